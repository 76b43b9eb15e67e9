"""`manage.py verify_ledger`: passes on a clean ledger, fails naming a tampered entry."""

import io
import os
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from cashier.models import Account, Entry
from cashier.services import hand_settle, wallet_withdraw
from cashier.verify import ledger_checks
from tests.cashier.ledger_writes import post_behind_the_guards
from tests.conftest import REPO_ROOT
from tests.factories import (
    call_down,
    deal_hand,
    default_rake_schedule_row,
    make_funded_player,
    make_seated_player,
    make_table,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def table():
    """A raked pot-limit table, so that hands played to a showdown pay rake."""
    return make_table(rake_schedule=default_rake_schedule_row("pot-limit"))


@pytest.fixture
def busy_ledger(table):
    """Deposits, buy-ins, a hand played to the showdown at the table service (so settled with
    rake), a withdrawal."""
    alice = make_seated_player(table, "alice", 2)
    bob = make_seated_player(table, "bob", 5)
    hand = call_down(deal_hand(table), {2: alice, 5: bob})
    wallet_withdraw(player=alice, amount=3_000, idempotency_key="w")
    assert hand.result["rake"] > 0
    return alice, bob


def run_verify():
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("verify_ledger", stdout=out, stderr=err)
    except CommandError as error:
        return False, out.getvalue(), err.getvalue() + str(error)
    return True, out.getvalue(), err.getvalue()


def test_a_clean_ledger_passes_and_says_what_it_checked(busy_ledger):
    ok, out, _ = run_verify()
    assert ok
    assert f"Checked {Entry.objects.count()} entries with" in out
    assert "Total over all accounts: 0" in out
    for name in [
        "rake_only_from_hand_settlements",
        "charity_only_from_voids",
        "player_money_in_own_entries",
        "outside_world_only_deposits_and_withdrawals",
        "hand_settlements_match_hands",  # poker's, registered from its AppConfig
    ]:
        assert f"  {name}: " in out
    assert "consistent" in out


# Committed data: the test runner re-checks deferred constraints of an open test transaction.
@pytest.mark.django_db(transaction=True)
def test_a_tampered_posting_is_named(busy_ledger):
    settlement = Entry.objects.get(reason="hand_settlement")
    with connection.cursor() as cursor:
        # Bypass the immutability triggers the way an intruder with superuser rights could.
        cursor.execute("SET session_replication_role = replica")
        cursor.execute(
            "UPDATE cashier_posting SET amount = amount + 500 "
            "WHERE id = (SELECT min(id) FROM cashier_posting WHERE entry_id = %s)",
            [settlement.pk],
        )
        cursor.execute("SET session_replication_role = origin")
    ok, _, err = run_verify()
    assert not ok
    assert f"entry #{settlement.pk} (hand_settlement" in err
    assert "[balanced_entries]" in err and "summing to 500" in err
    assert "stores" in err  # the stack whose posting changed no longer matches its balance
    assert "NOT consistent" in err


def test_a_tampered_balance_is_named(busy_ledger):
    alice, _ = busy_ledger
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE cashier_account SET balance = balance + 1 WHERE kind = 'wallet' "
            "AND owner_id = %s",
            [alice.pk],
        )
    ok, _, err = run_verify()
    assert not ok
    assert "Player wallet / alice" in err and "sum to 1" in err


# Committed data: manage.py reads the test database from a process of its own.
@pytest.mark.django_db(transaction=True)
def test_the_command_exits_non_zero_on_a_violation(live_database_url):
    """Through manage.py, in a process of its own on the test database, so the exit status
    itself is checked."""
    env = {**os.environ, "DEBUG": "true", "DATABASE_URL": live_database_url}
    verify = [sys.executable, "manage.py", "verify_ledger"]
    zed = make_funded_player("zed", cents=700)
    clean = subprocess.run(verify, cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    assert clean.returncode == 0, clean.stderr
    Account.objects.filter(kind="wallet", owner=zed).update(balance=900)
    broken = subprocess.run(verify, cwd=REPO_ROOT, env=env, capture_output=True, text=True)
    assert broken.returncode == 1, broken.stderr
    assert "Player wallet / zed" in broken.stderr


# -- the ledger's meaning: each rule named when broken, and only that one


def assert_only_broken(rule: str, err: str) -> None:
    assert f"VIOLATION [{rule}]" in err, err
    others = [check.name for check in ledger_checks() if check.name != rule]
    assert not [name for name in others if f"[{name}]" in err], err
    assert "NOT consistent" in err


def accounts(alice, bob, table) -> dict[str, Account]:
    return {
        "alice_wallet": Account.objects.get(kind="wallet", owner=alice),
        "bob_wallet": Account.objects.get(kind="wallet", owner=bob),
        "alice_stack": Account.objects.get(kind="table_stack", owner=alice, table=table),
        "rake": Account.objects.get(kind="table_rake", table=table),
        "world": Account.objects.get(kind="outside_world"),
        "charity": Account.objects.get_or_create(kind="charity")[0],
    }


# (rule, reason, whose entry: alice/bob, at the table?, legs by account name)
TAMPERING = {
    "rake_from_a_cash_out": (
        "rake_only_from_hand_settlements",
        "cash_out",
        "alice",
        True,
        [("alice_stack", -100), ("rake", 100)],
    ),
    "charity_from_a_buy_in": (
        "charity_only_from_voids",
        "buy_in",
        "alice",
        False,
        [("alice_wallet", -100), ("charity", 100)],
    ),
    "alice_s_wallet_in_bob_s_entry": (
        "player_money_in_own_entries",
        "buy_in",
        "bob",
        False,
        [("alice_wallet", -100), ("bob_wallet", 100)],
    ),
    "a_stack_moved_away_from_its_table": (
        "player_money_in_own_entries",
        "cash_out",
        "alice",
        False,
        [("alice_stack", -100), ("alice_wallet", 100)],
    ),
    "a_withdrawal_from_a_stack": (
        "outside_world_only_deposits_and_withdrawals",
        "withdrawal",
        "alice",
        True,
        [("alice_stack", -100), ("world", 100)],
    ),
    "the_outside_world_in_a_top_up": (
        "outside_world_only_deposits_and_withdrawals",
        "top_up",
        "alice",
        False,
        [("world", -100), ("alice_wallet", 100)],
    ),
}


@pytest.mark.parametrize("case", list(TAMPERING))
def test_a_ledger_that_adds_up_but_means_nothing_is_named(busy_ledger, table, case):
    alice, bob = busy_ledger
    assert run_verify()[0]
    rule, reason, whose, at_table, legs = TAMPERING[case]
    named = accounts(alice, bob, table)
    entry_id = post_behind_the_guards(
        reason=reason,
        player={"alice": alice, "bob": bob}[whose],
        table=table if at_table else None,
        legs=[(named[name], amount) for name, amount in legs],
    )
    ok, _, err = run_verify()
    assert not ok
    assert_only_broken(rule, err)
    assert f"entry #{entry_id} ({reason}" in err


def test_a_settlement_unlike_its_hand_is_named(busy_ledger, table):
    """Ten cents moved from a player's result to the rake: balanced, balances in step, rake
    from a settlement; only the hand's own result tells."""
    settlement = Entry.objects.get(reason="hand_settlement")
    stack_leg = settlement.postings.filter(account__kind="table_stack").order_by("amount").last()
    rake_leg = settlement.postings.get(account__kind="table_rake")
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        for leg, delta in [(stack_leg, -10), (rake_leg, 10)]:
            cursor.execute(
                "UPDATE cashier_posting SET amount = amount + %s WHERE id = %s", [delta, leg.pk]
            )
            cursor.execute(
                "UPDATE cashier_account SET balance = balance + %s WHERE id = %s",
                [delta, leg.account_id],
            )
        cursor.execute("SET session_replication_role = origin")
    ok, _, err = run_verify()
    assert not ok
    assert_only_broken("hand_settlements_match_hands", err)
    assert f"entry #{settlement.pk} settling hand #{settlement.hand_id}" in err
    assert "but the hand's result is" in err


def test_a_settlement_of_no_hand_is_named(busy_ledger, table):
    """The cashier's own service settles whatever hand id it is given; only poker knows that
    no such hand was played."""
    alice, bob = busy_ledger
    entry = hand_settle(
        table_id=table.pk, hand_id=999_999, net_by_player={alice.pk: 5, bob.pk: -5}, rake=0
    )
    ok, _, err = run_verify()
    assert not ok
    assert_only_broken("hand_settlements_match_hands", err)
    assert f"entry #{entry.pk} (hand_settlement, table {table.pk}) settles hand #999999" in err
    assert "which is no hand at all" in err
