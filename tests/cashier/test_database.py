"""PostgreSQL itself guards the ledger, even when Python is bypassed with raw SQL."""

import pytest
from django.db import IntegrityError, connection, transaction

from cashier.models import Account, Entry, Posting
from cashier.services import wallet_deposit
from tests.cashier.raw_ledger import insert_entry, insert_posting
from tests.factories import make_funded_player


@pytest.mark.django_db(transaction=True)
def test_an_unbalanced_entry_is_refused_at_commit():
    alice = make_funded_player("alice", cents=1_000)
    wallet = Account.objects.get(kind="wallet", owner=alice)
    world = Account.objects.get(kind="outside_world")
    with (
        pytest.raises(IntegrityError, match="unbalanced"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        entry_id = insert_entry(cursor)
        insert_posting(cursor, entry_id, wallet.pk, 500)
        insert_posting(cursor, entry_id, world.pk, -499)
    assert Entry.objects.count() == 1
    # A balanced raw entry commits: the trigger checks the sum, not who wrote it.
    with transaction.atomic(), connection.cursor() as cursor:
        entry_id = insert_entry(cursor)
        insert_posting(cursor, entry_id, wallet.pk, 500)
        insert_posting(cursor, entry_id, world.pk, -500)
    assert Entry.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_posting_added_later_to_an_old_entry_is_refused():
    alice = make_funded_player("alice", cents=1_000)
    entry = Entry.objects.get()
    wallet = Account.objects.get(kind="wallet", owner=alice)
    with (
        pytest.raises(IntegrityError, match="committed by an earlier transaction"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        insert_posting(cursor, entry.pk, wallet.pk, 1)
    assert Posting.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_an_entry_with_one_leg_or_none_is_refused():
    with (
        pytest.raises(IntegrityError, match="at least two"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        insert_entry(cursor, reason="deposit")
    assert Entry.objects.count() == 0


@pytest.mark.django_db
def test_the_deferred_check_also_fires_when_forced_inside_a_transaction(player):
    wallet_deposit(player=player, amount=1_000, idempotency_key="d")
    wallet = Account.objects.get(kind="wallet", owner=player)
    with (
        pytest.raises(IntegrityError, match="unbalanced"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        entry_id = insert_entry(cursor)
        insert_posting(cursor, entry_id, wallet.pk, 700)
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


@pytest.mark.django_db
@pytest.mark.parametrize("kind", ["wallet", "table_stack"])
def test_a_negative_player_balance_is_refused(player, table, kind):
    wallet_deposit(player=player, amount=1_000, idempotency_key="d")
    account, _ = Account.objects.get_or_create(
        kind=kind, owner=player, table=table if kind == "table_stack" else None
    )
    with (
        pytest.raises(IntegrityError, match="cashier_player_balance_not_negative"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("UPDATE cashier_account SET balance = -1 WHERE id = %s", [account.pk])
    # House accounts may go below zero: the outside world does with every deposit.
    assert Account.objects.get(kind="outside_world").balance == -1_000


@pytest.mark.django_db
@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE cashier_posting SET amount = amount * 2",
        "DELETE FROM cashier_posting",
        "UPDATE cashier_entry SET memo = 'rewritten'",
        "DELETE FROM cashier_entry",
    ],
)
def test_posted_history_cannot_be_changed(player, sql):
    wallet_deposit(player=player, amount=1_000, idempotency_key="d")
    with (
        pytest.raises(IntegrityError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert sorted(Posting.objects.values_list("amount", flat=True)) == [-1_000, 1_000]


@pytest.mark.django_db
def test_a_hand_settles_once_even_bypassing_python(table):
    with (
        pytest.raises(IntegrityError),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        insert_entry(cursor, reason="hand_settlement", hand_id=1)
        insert_entry(cursor, reason="hand_settlement", hand_id=1)
