"""`manage.py verify_ledger`: passes on a clean ledger, fails naming a tampered entry."""

import io
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from cashier.models import Entry
from cashier.services import hand_settle, table_buy_in, wallet_withdraw
from tests.conftest import REPO_ROOT
from tests.factories import make_funded_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def busy_ledger(table):
    alice = make_funded_player("alice")
    bob = make_funded_player("bob")
    table_buy_in(player=alice, table=table, amount=10_000, idempotency_key="a")
    table_buy_in(player=bob, table=table, amount=10_000, idempotency_key="b")
    hand_settle(table=table, hand_id=1, net_by_player={alice.pk: 950, bob.pk: -1_000}, rake=50)
    wallet_withdraw(player=alice, amount=3_000, idempotency_key="w")
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
    assert "consistent" in out


# Committed data: the test runner re-checks deferred constraints of an open test transaction.
@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql", reason="tampering bypasses PG triggers")
def test_a_tampered_posting_is_named(busy_ledger):
    settlement = Entry.objects.get(hand_id=1)
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
    assert "summing to 500" in err
    assert "stores" in err  # the stack whose posting changed no longer matches its balance
    assert "NOT consistent" in err


@pytest.mark.skipif(connection.vendor != "postgresql", reason="tampering bypasses PG triggers")
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


def test_the_command_exits_non_zero_on_a_violation(tmp_path):
    """Through manage.py, on a throwaway SQLite ledger, so the exit status itself is checked."""
    database = tmp_path / "ledger.sqlite3"
    env = {"DEBUG": "true", "DATABASE_URL": f"sqlite:///{database}", "PATH": "/usr/bin:/bin"}
    manage = [sys.executable, "manage.py"]
    subprocess.run([*manage, "migrate", "-v0"], cwd=REPO_ROOT, env=env, check=True)
    clean = subprocess.run(
        [*manage, "verify_ledger"], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )
    assert clean.returncode == 0, clean.stderr
    script = (
        "from tests.factories import make_funded_player\n"
        "from cashier.models import Account\n"
        "make_funded_player('zed', cents=700)\n"
        "Account.objects.filter(kind='wallet').update(balance=900)\n"
    )
    subprocess.run([*manage, "shell", "-c", script], cwd=REPO_ROOT, env=env, check=True)
    broken = subprocess.run(
        [*manage, "verify_ledger"], cwd=REPO_ROOT, env=env, capture_output=True, text=True
    )
    assert broken.returncode == 1
    assert "Player wallet / zed" in broken.stderr
