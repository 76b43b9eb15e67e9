"""cashier.posting: one entry locked, checked and posted in one statement on PostgreSQL, and
the same steps one by one on SQLite (the embedded room), with the same refusals."""

import subprocess
import sys

import pytest
from django.db import connection

from cashier.models import Account, Entry
from cashier.posting import Leg, entry_post_locked
from tests.conftest import REPO_ROOT
from tests.factories import make_funded_player

Kind = Account.Kind


@pytest.mark.django_db
def test_a_refused_entry_posts_nothing_and_says_why():
    alice = make_funded_player("alice", cents=1_000)
    before = (Entry.objects.count(), sorted(Account.objects.values_list("pk", "balance")))
    Account.objects.create(kind=Kind.BANKED_BETS_IN_PLAY, shard=3)
    posted = entry_post_locked(
        legs=[
            Leg(Kind.WALLET, -1_500, owner_id=alice.pk, guarded=True),
            Leg(Kind.BANKED_BETS_IN_PLAY, 1_500, shard=3, guarded=True),
        ],
        reason=Entry.Reason.BANKED_BET,
        player=alice,
    )
    assert posted.entry is None and posted.refusal == "below_zero"
    assert posted.locked[(Kind.WALLET, alice.pk, None, 0)].balance == 1_000
    missing = entry_post_locked(
        legs=[
            Leg(Kind.WALLET, -100, owner_id=alice.pk, guarded=True),
            Leg(Kind.BANKED_BETS_IN_PLAY, 100, shard=4, guarded=True),
        ],
        reason=Entry.Reason.BANKED_BET,
        player=alice,
    )
    assert missing.entry is None and missing.refusal == "missing"
    # Nothing moved, and the transaction goes on (the test's own queries still run).
    assert Entry.objects.count() == before[0]
    assert Account.objects.get(kind=Kind.WALLET, owner=alice).balance == 1_000


@pytest.mark.django_db
def test_legs_that_do_not_balance_or_repeat_an_account_are_refused_before_sending():
    alice = make_funded_player("alice", cents=1_000)
    for legs in (
        [Leg(Kind.WALLET, -100, owner_id=alice.pk), Leg(Kind.CHARITY, 99)],
        [Leg(Kind.CHARITY, 100), Leg(Kind.CHARITY, -100)],
    ):
        with pytest.raises(ValueError):
            entry_post_locked(legs=legs, reason=Entry.Reason.VOID, player=alice)


@pytest.mark.skipif(connection.vendor != "postgresql", reason="runs SQLite in a subprocess")
def test_the_embedded_room_posts_the_same_entries_step_by_step(migrated_sqlite):
    """On SQLite (a copy of the run's migrated database): a hand settled, settled again
    (refused), a banked round dealt and decided; verify_ledger is clean afterwards."""
    env = {"DEBUG": "true", "DATABASE_URL": f"sqlite:///{migrated_sqlite}", "PATH": "/usr/bin:/bin"}
    manage = [sys.executable, "manage.py"]
    script = """
from cashier.services import CashierError, hand_settle, hand_stacks_commit, table_buy_in
from showdown.services import round_deal, round_decide
from tests.factories import make_funded_player, make_showdown_table, make_table, table_stakes
table = make_table(name="sqlite")
ann, bob = make_funded_player("ann"), make_funded_player("bob")
for p in (ann, bob):
    table_buy_in(player=p, **table_stakes(table), amount=table.max_buy_in, idempotency_key="b")
hand_stacks_commit(table_id=table.pk, hand_id=7, players=[ann, bob])
hand_settle(table_id=table.pk, hand_id=7, net_by_player={ann.pk: 95, bob.pk: -100}, rake=5)
try:
    hand_settle(table_id=table.pk, hand_id=7, net_by_player={ann.pk: 95, bob.pk: -100}, rake=5)
except CashierError as error:
    print("again:", error.code)
showdown = make_showdown_table()
dealt = round_deal(player=ann, table=showdown, ante=500, idempotency_key="d")
round_decide(player=ann, round_id=dealt.pk, decision="call", idempotency_key="c")
print("done")
# Every check but poker's (hand 7 was settled without a table dealing it).
from cashier.verify import ledger_verify
report = ledger_verify(skip={'hand_settlements_match_hands'})
assert report.ok and report.entries > 5, report.problems
print('ledger ok')
"""
    ran = subprocess.run(
        [*manage, "shell", "-c", script],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert ran.returncode == 0, ran.stderr
    assert "again: already_settled" in ran.stdout and "done" in ran.stdout
    assert "ledger ok" in ran.stdout, ran.stdout + ran.stderr
