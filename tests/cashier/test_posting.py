"""cashier.posting: one entry locked, checked and posted in one statement, or refused with
nothing written."""

import pytest
from django.conf import settings
from django.db import IntegrityError, connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from audit.models import AuditRecord
from audit.services import content_hash
from audit.verify import audit_verify
from cashier import posting
from cashier.models import Account, Entry
from cashier.posting import (
    EntryId,
    Guard,
    Leg,
    Link,
    Movement,
    entries_post_locked,
    entry_post_locked,
)
from cashier.verify import ledger_verify
from tests.factories import make_funded_player, make_table

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


def _charity_gift(alice, cents: int):
    return entry_post_locked(
        legs=[
            Leg(Kind.WALLET, -cents, owner_id=alice.pk, guarded=True),
            Leg(Kind.CHARITY, cents),
        ],
        reason=Entry.Reason.VOID,
        player=alice,
    )


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_an_entry_is_one_statement_with_its_audit_record():
    """The entry, its postings, the balances and its audit record in one statement,
    which is its own transaction (one round trip), prepared once; the record's content hash,
    computed by PostgreSQL around the new entry's id, is the one verify_audit recomputes."""
    alice = make_funded_player("alice", cents=100_000)
    Account.objects.get_or_create(kind=Kind.CHARITY, shard=0)
    assert _charity_gift(alice, 100).entry is not None  # learns the accounts' ids
    with CaptureQueriesContext(connection) as statements:
        entry = _charity_gift(alice, 200).entry
    assert entry is not None and not connection.in_atomic_block
    assert len(statements) == 1, [q["sql"][:60] for q in statements]
    assert "INSERT INTO audit_auditrecord" in statements[0]["sql"]
    record = AuditRecord.objects.get(subject_type="cashier.entry", subject_id=str(entry.pk))
    assert record.content_hash == content_hash(record)
    assert record.payload["legs"] == [
        [Account.objects.get(kind=Kind.WALLET, owner=alice).pk, -200],
        [Account.objects.get(kind=Kind.CHARITY).pk, 200],
    ]
    assert Account.objects.get(kind=Kind.WALLET, owner=alice).balance == 99_700
    assert audit_verify().ok and ledger_verify().ok
    if settings.DB_PREPARED_STATEMENTS:
        assert _charity_gift(alice, 300).entry is not None
        prepared = _prepared_postings()
        assert prepared >= 1, "the statement is prepared"
        # An amount past a smallint (psycopg would send it as an integer): still the
        # statement prepared for the last one.
        assert _charity_gift(alice, 40_000).entry is not None
        assert _prepared_postings() == prepared


def _prepared_postings() -> int:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%INSERT INTO audit_auditrecord%"],
        )
        return cursor.fetchone()[0]


@pytest.mark.django_db
def test_an_account_id_known_from_before_that_does_not_fit_is_looked_up_again():
    """The ids a process knows are checked against the locked rows' identity: a wrong one
    (a database recreated under the process) posts nothing on the wrong account."""
    alice = make_funded_player("alice", cents=1_000)
    charity, _ = Account.objects.get_or_create(kind=Kind.CHARITY, shard=0)
    wallet = Account.objects.get(kind=Kind.WALLET, owner=alice)
    assert _charity_gift(alice, 100).entry is not None
    database = connection.settings_dict["NAME"]
    posting._account_ids[(database, (Kind.WALLET, alice.pk, None, 0))] = charity.pk
    entry = _charity_gift(alice, 200).entry
    assert entry is not None
    assert sorted(entry.postings.values_list("account_id", "amount")) == sorted(
        [(wallet.pk, -200), (charity.pk, 200)]
    )
    assert posting._account_ids[(database, (Kind.WALLET, alice.pk, None, 0))] == wallet.pk
    assert audit_verify().ok and ledger_verify().ok


def _bet_then_settle(alice, *, bet: int, staked: int, paid: int, shard: int = 5):
    """A banked decision's two entries: the Bet into play, then `staked` out of play with
    `paid` to the wallet and the rest to the house's bankroll."""
    return [
        Movement(
            [
                Leg(Kind.WALLET, -bet, owner_id=alice.pk, guarded=True),
                Leg(Kind.BANKED_BETS_IN_PLAY, bet, shard=shard, guarded=True),
            ],
            Entry.Reason.BANKED_BET,
            player=alice,
            created_by=alice,
        ),
        Movement(
            [
                Leg(Kind.WALLET, paid, owner_id=alice.pk, guarded=True),
                Leg(Kind.BANKED_BETS_IN_PLAY, -staked, shard=shard, guarded=True),
                Leg(Kind.HOUSE_BANKROLL, staked - paid, shard=shard),
            ],
            Entry.Reason.BANKED_PAYOUT,
            player=alice,
        ),
    ]


def _open_house_shard(shard: int = 5) -> None:
    for kind in (Kind.BANKED_BETS_IN_PLAY, Kind.HOUSE_BANKROLL):
        Account.objects.get_or_create(kind=kind, shard=shard)


@pytest.mark.django_db(transaction=True)
def test_two_entries_in_one_statement_balance_and_are_audited_each_on_its_own():
    """A banked decision: the Bet and the settlement are two entries posted by one
    statement (outside a transaction, one round trip), each with its own postings summing to
    zero and its own audit record; the row linked to them gets both ids in the same statement."""
    alice = make_funded_player("alice", cents=1_000)
    _open_house_shard()
    wallet = Account.objects.get(kind=Kind.WALLET, owner=alice)
    stack = Account.objects.create(kind=Kind.TABLE_STACK, owner=alice, table=make_table())
    assert entries_post_locked(entries=_bet_then_settle(alice, bet=1, staked=1, paid=0)).entry
    with CaptureQueriesContext(connection) as statements:
        posted = entries_post_locked(
            entries=_bet_then_settle(alice, bet=300, staked=300, paid=500),
            link=Link(Account, stack.pk, {"in_hand_id": EntryId(1)}),
        )
    assert len(statements) == 1, [q["sql"][:60] for q in statements]
    bet, settlement = posted.entries
    assert posted.entry == settlement and bet.pk < settlement.pk
    assert (bet.reason, settlement.reason) == (Entry.Reason.BANKED_BET, Entry.Reason.BANKED_PAYOUT)
    for entry, legs in ((bet, 2), (settlement, 3)):
        amounts = list(entry.postings.values_list("amount", flat=True))
        assert len(amounts) == legs and sum(amounts) == 0
        record = AuditRecord.objects.get(subject_type="cashier.entry", subject_id=str(entry.pk))
        assert record.content_hash == content_hash(record)
        assert record.subject_label == entry.reason
    wallet.refresh_from_db()
    assert wallet.balance == 1_000 - 1 + 0 - 300 + 500
    assert posted.locked[(Kind.WALLET, alice.pk, None, 0)].balance == wallet.balance
    stack.refresh_from_db()
    assert stack.in_hand_id == settlement.pk  # the link (any bigint column serves the test)
    Account.objects.filter(pk=stack.pk).update(in_hand_id=None)
    # No showdown round names these entries (tests/showdown plays real ones).
    assert audit_verify().ok and ledger_verify(skip={"banked_entries_match_rounds"}).ok


@pytest.mark.django_db
def test_a_guarded_account_is_checked_after_each_entry_not_only_after_both():
    """The wallet holds 100: a Bet of 300 that the settlement would pay back 400 is refused
    (the wallet would stand at -200 between the two), and nothing of either is posted; so is a
    settlement that takes out of play more than the Bet put in."""
    alice = make_funded_player("alice", cents=100)
    _open_house_shard()
    before = (Entry.objects.count(), AuditRecord.objects.count())
    refused = entries_post_locked(entries=_bet_then_settle(alice, bet=300, staked=300, paid=400))
    assert refused.entry is None and refused.entries == [] and refused.refusal == "below_zero"
    short = entries_post_locked(entries=_bet_then_settle(alice, bet=50, staked=80, paid=80))
    assert short.entry is None and short.refusal == "below_zero"
    assert (Entry.objects.count(), AuditRecord.objects.count()) == before
    assert Account.objects.get(kind=Kind.WALLET, owner=alice).balance == 100
    assert Account.objects.get(kind=Kind.BANKED_BETS_IN_PLAY, shard=5).balance == 0


@pytest.mark.django_db(transaction=True)
def test_the_database_refuses_two_entries_that_balance_only_together():
    """Each entry of the statement balances on its own at commit (the deferred trigger), not
    the statement as a whole: a first entry of -100/+50 and a second of +50 (together zero)
    are refused at commit, and the first is rolled back with the second."""
    alice = make_funded_player("alice", cents=1_000)
    Account.objects.get_or_create(kind=Kind.CHARITY, shard=0)
    Account.objects.get_or_create(kind=Kind.HOUSE_BANKROLL, shard=0)
    entries = [
        Movement(
            [Leg(Kind.WALLET, -100, owner_id=alice.pk), Leg(Kind.CHARITY, 50)],
            Entry.Reason.VOID,
            player=alice,
        ),
        Movement([Leg(Kind.HOUSE_BANKROLL, 50)], Entry.Reason.VOID, player=alice),
    ]
    with pytest.raises(ValueError):
        entries_post_locked(entries=entries)  # the caller's arithmetic is checked first
    before = (Entry.objects.count(), AuditRecord.objects.count())
    fields = [posting._entry_fields(movement) for movement in entries]
    with pytest.raises(IntegrityError, match="unbalanced"), transaction.atomic():
        posting._post_in_one_statement(entries, fields, timezone.now(), None, None, ())
    assert (Entry.objects.count(), AuditRecord.objects.count()) == before
    assert Account.objects.get(kind=Kind.WALLET, owner=alice).balance == 1_000
    assert audit_verify().ok and ledger_verify().ok


@pytest.mark.django_db(transaction=True)
def test_a_guard_that_no_longer_holds_posts_nothing():
    """A `Guard` names a row as the caller read it: when it no longer holds (another request
    changed the row), the statement posts no entry and writes no link, and says "moved_on";
    while it holds, the statement posts as without it."""
    alice = make_funded_player("alice", cents=1_000)
    _open_house_shard()
    stack = Account.objects.create(kind=Kind.TABLE_STACK, owner=alice, table=make_table())
    Account.objects.filter(pk=stack.pk).update(in_hand_id=7)  # changed since it was "read"
    before = (Entry.objects.count(), AuditRecord.objects.count())
    gone = entries_post_locked(
        entries=_bet_then_settle(alice, bet=300, staked=300, paid=500),
        link=Link(Account, stack.pk, {"in_hand_id": EntryId(1)}),
        guard=Guard(Account, stack.pk, {"in_hand_id": None}),
    )
    assert gone.entry is None and gone.entries == [] and gone.refusal == "moved_on"
    assert (Entry.objects.count(), AuditRecord.objects.count()) == before
    assert Account.objects.get(pk=stack.pk).in_hand_id == 7
    assert Account.objects.get(kind=Kind.WALLET, owner=alice).balance == 1_000
    held = entries_post_locked(
        entries=_bet_then_settle(alice, bet=300, staked=300, paid=500),
        link=Link(Account, stack.pk, {"in_hand_id": EntryId(1)}),
        guard=Guard(Account, stack.pk, {"in_hand_id": 7}),
    )
    assert held.entry is not None and Account.objects.get(pk=stack.pk).in_hand_id == held.entry.pk
    assert Account.objects.get(kind=Kind.WALLET, owner=alice).balance == 1_200
    Account.objects.filter(pk=stack.pk).update(in_hand_id=None)
    assert audit_verify().ok and ledger_verify(skip={"banked_entries_match_rounds"}).ok
