"""What PostgreSQL refuses beyond arithmetic (migration 0004), and the app role the room runs
as (`manage.py db_grant_app_role`): it can play, but cannot rewrite history or switch the
ledger's guards off."""

import psycopg
import pytest
from django.db import IntegrityError, ProgrammingError, connection, transaction

from cashier.checks import ledger_guards_hold
from cashier.database_roles import RoleError, app_role_grant
from cashier.models import Account, Entry, Posting
from cashier.selectors import table_stack_balance, wallet_balance
from cashier.services import table_cash_out, wallet_deposit, wallet_withdraw
from cashier.verify import ledger_verify
from tests.cashier.app_role import _drop_role, connected_as
from tests.cashier.raw_ledger import insert_entry, insert_posting
from tests.factories import (
    call_down,
    deal_hand,
    make_funded_player,
    make_player,
    make_seated_player,
    make_table,
)

# ------------------------------------------------------------------ a committed entry is closed


@pytest.mark.django_db(transaction=True)
def test_a_balanced_pair_added_to_a_committed_entry_is_refused():
    alice = make_funded_player("alice", cents=1_000, password=None)
    deposit = Entry.objects.get()
    wallet = Account.objects.get(kind="wallet", owner=alice)
    world = Account.objects.get(kind="outside_world")
    with (
        pytest.raises(IntegrityError, match="committed by an earlier transaction"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        insert_posting(cursor, deposit.pk, wallet.pk, 500)
        insert_posting(cursor, deposit.pk, world.pk, -500)
    assert sorted(deposit.postings.values_list("amount", flat=True)) == [-1_000, 1_000]


@pytest.mark.django_db(transaction=True)
def test_an_entry_and_its_postings_may_be_written_in_different_savepoints():
    """Django nests atomic blocks as savepoints (each row's xmin a subtransaction id); what
    counts is the top-level transaction."""
    alice = make_funded_player("alice", cents=0, password=None)
    wallet = Account.objects.create(kind="wallet", owner=alice)
    world = Account.objects.create(kind="outside_world")
    with transaction.atomic():
        with transaction.atomic(), connection.cursor() as cursor:
            entry_id = insert_entry(cursor)
        with transaction.atomic(), transaction.atomic(), connection.cursor() as cursor:
            insert_posting(cursor, entry_id, wallet.pk, 300)
            insert_posting(cursor, entry_id, world.pk, -300)
    assert Posting.objects.filter(entry_id=entry_id).count() == 2
    # The services run inside an outer transaction too (as the table services call them).
    with transaction.atomic():
        wallet_deposit(player=alice, amount=200, idempotency_key="nested")
    assert Entry.objects.count() == 2


@pytest.mark.django_db(transaction=True)
def test_a_posting_for_another_transaction_s_uncommitted_entry_is_refused():
    """Postings cannot borrow an entry another transaction is still writing (it would be
    committed, hence closed, by the time the foreign key is checked)."""
    alice = make_funded_player("alice", cents=1_000, password=None)
    wallet = Account.objects.get(kind="wallet", owner=alice)
    world = Account.objects.get(kind="outside_world")
    settings = connection.settings_dict
    with psycopg.connect(
        host=settings["HOST"], port=settings["PORT"], user=settings["USER"], dbname=settings["NAME"]
    ) as other:
        entry_id = insert_entry(other.cursor())
        insert_posting(other.cursor(), entry_id, wallet.pk, 100)
        insert_posting(other.cursor(), entry_id, world.pk, -100)
        with (
            pytest.raises(IntegrityError, match="does not exist in this transaction"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            insert_posting(cursor, entry_id, wallet.pk, 7)
            insert_posting(cursor, entry_id, world.pk, -7)
        other.commit()
    assert sorted(Posting.objects.filter(entry_id=entry_id).values_list("amount", flat=True)) == [
        -100,
        100,
    ]


# ------------------------------------------------------------------ an account stays whose it is


@pytest.mark.django_db
@pytest.mark.parametrize("change", ["owner", "table", "kind", "shard"])
def test_an_account_s_owner_kind_and_table_cannot_change(change):
    alice = make_funded_player("alice", cents=1_000, password=None)
    bob = make_player("bob", password=None)
    first, second = make_table(), make_table()
    stack = Account.objects.create(kind="table_stack", owner=alice, table=first)
    charity = Account.objects.create(kind="charity")
    # Each change would pass every CHECK and unique constraint: only the trigger refuses it.
    account, assignment, value = {
        "owner": (Account.objects.get(kind="wallet"), "owner_id", bob.pk),
        "table": (stack, "table_id", second.pk),
        "kind": (charity, "kind", "house_bankroll"),
        # A house shard moved to another shard would carry its players' money with it.
        "shard": (Account.objects.create(kind="banked_bets_in_play"), "shard", 5),
    }[change]
    with (
        pytest.raises(
            IntegrityError, match="kind, owner, table, id and creation time never change"
        ),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(
            f"UPDATE cashier_account SET {assignment} = %s WHERE id = %s", [value, account.pk]
        )
    # The balance and the in-hand mark stay the services' to move.
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE cashier_account SET balance = balance + 0, in_hand_id = 7 WHERE id = %s",
            [stack.pk],
        )
    stack.refresh_from_db()
    assert stack.in_hand_id == 7
    assert Account.objects.get(kind="wallet").owner == alice


# ------------------------------------------------------------------ the app role


def test_the_room_plays_as_the_app_role(app_role, transactional_db):
    table = make_table()  # staff's doing, as the owner is fine too; the rest is the room's
    with connected_as(app_role):
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_user")
            assert cursor.fetchone()[0] == app_role
        alice = make_seated_player(table, "alice", 2)  # sign-up, deposit, sit down (buy-in)
        bob = make_seated_player(table, "bob", 5)
        hand = call_down(deal_hand(table), {2: alice, 5: bob})  # dealing, acting, settling
        assert Entry.objects.get(hand_id=hand.pk).reason == "hand_settlement"
        table_cash_out(player=alice, table_id=table.pk)
        wallet_withdraw(player=alice, amount=1_000, idempotency_key="out")
        assert table_stack_balance(player=alice, table=table) == 0
        assert (
            wallet_balance(player=alice)
            + table_stack_balance(player=bob, table=table)
            + wallet_balance(player=bob)
            == 2 * 100_000 - 1_000
        )
        report = ledger_verify()
        assert report.ok, report.problems


@pytest.mark.parametrize(
    "sql",
    [
        "ALTER TABLE cashier_entry DISABLE TRIGGER ALL",
        "ALTER TABLE cashier_posting DISABLE TRIGGER cashier_posting_balanced",
        "DROP TRIGGER cashier_posting_same_transaction ON cashier_posting",
        "DROP FUNCTION cashier_check_entry_balanced(bigint) CASCADE",
        "ALTER TABLE cashier_account DROP CONSTRAINT cashier_player_balance_not_negative",
        "SET session_replication_role = replica",
        "UPDATE cashier_entry SET memo = 'rewritten'",
        "UPDATE cashier_posting SET amount = amount * 2",
        "DELETE FROM cashier_posting",
        "DELETE FROM cashier_entry",
        "TRUNCATE cashier_posting",
        "UPDATE cashier_account SET owner_id = NULL, kind = 'charity' WHERE kind = 'wallet'",
        "UPDATE cashier_account SET kind = 'house_bankroll' WHERE kind = 'outside_world'",
        "DELETE FROM cashier_account WHERE kind = 'wallet'",
        "INSERT INTO django_migrations (app, name, applied) VALUES ('cashier', 'x', now())",
        "UPDATE poker_handevent SET payload = '{}'",
        "DELETE FROM poker_handevent",
        "ALTER TABLE poker_handevent DISABLE TRIGGER ALL",
    ],
)
def test_the_app_role_cannot_touch_history_or_the_guards(app_role, transactional_db, sql):
    make_funded_player("alice", cents=1_000, password=None)
    with (
        connected_as(app_role),
        pytest.raises(ProgrammingError, match=r"permission denied|must be owner"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    assert sorted(Posting.objects.values_list("amount", flat=True)) == [-1_000, 1_000]
    assert Account.objects.get(kind="wallet").balance == 1_000


def test_a_temporary_table_cannot_stand_in_for_the_postings(app_role, transactional_db):
    """pg_temp is searched first unless a function names its search_path: a session's own
    cashier_posting must not be what the balance check sums."""
    with connected_as(app_role):
        with (
            pytest.raises(IntegrityError, match="an entry needs at least two"),
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute("CREATE TEMP TABLE cashier_posting (entry_id bigint, amount bigint)")
            entry_id = insert_entry(cursor, reason="void")
            cursor.execute(
                "INSERT INTO pg_temp.cashier_posting VALUES (%s, 5), (%s, -5)", [entry_id] * 2
            )
        assert not Entry.objects.exists()


def test_new_tables_of_later_migrations_are_granted_too(app_role, transactional_db):
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE later_migration (id bigint GENERATED BY DEFAULT AS IDENTITY)")
    try:
        with connected_as(app_role), connection.cursor() as cursor:
            cursor.execute("INSERT INTO later_migration DEFAULT VALUES")
            cursor.execute("DELETE FROM later_migration")
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE later_migration")


@pytest.mark.django_db(transaction=True)
def test_a_role_that_could_act_as_the_owner_is_refused():
    role = f"{connection.settings_dict['NAME']}_owner_too"[:63]
    _drop_role(role)
    with connection.cursor() as cursor:
        cursor.execute(f'CREATE ROLE "{role}" LOGIN')
        cursor.execute(f'GRANT "{connection.settings_dict["USER"]}" TO "{role}"')
    try:
        with pytest.raises(RoleError, match="member of the owner of"):
            app_role_grant(role=role)
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT count(*) FROM information_schema.role_table_grants WHERE grantee = %s",
                [role],
            )
            assert cursor.fetchone()[0] == 0
    finally:
        _drop_role(role)


@pytest.mark.django_db
@pytest.mark.parametrize("role", ["Room-App", "", "x" * 64, "room app"])
def test_a_bad_role_name_is_refused(role):
    with pytest.raises(RoleError, match="Not a role name"):
        app_role_grant(role=role)


def test_the_deploy_check_warns_when_the_room_could_switch_the_guards_off(
    app_role, transactional_db
):
    """`manage.py check --deploy --database default` names a superuser or owner connection."""
    (warning,) = ledger_guards_hold(databases=["default"])
    assert warning.id == "cashier.W001" and "could switch the ledger's triggers off" in warning.msg
    assert ledger_guards_hold(databases=None) == []  # plain `check` does not ask the database
    with connected_as(app_role):
        assert ledger_guards_hold(databases=["default"]) == []


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("kind", "shard"), [("banked_bets_in_play", 16), ("house_bankroll", 99), ("charity", 1)]
)
def test_only_the_house_s_banked_accounts_have_shards_and_only_sixteen(kind, shard):
    with pytest.raises(IntegrityError, match="cashier_account_shard"), transaction.atomic():
        Account.objects.create(kind=kind, shard=shard)
    Account.objects.create(kind="house_bankroll", shard=15)
    with pytest.raises(IntegrityError), transaction.atomic():
        Account.objects.create(kind="house_bankroll", shard=15)  # one row per kind and shard
