"""Every ledger entry is in the audit log by reference, written in the entry's transaction."""

import io

import pytest
from django.db import connection, transaction

from audit.models import AuditRecord
from audit.verify import audit_verify
from cashier.models import Entry
from cashier.services import (
    CashierError,
    hand_settle,
    hand_stacks_commit,
    table_buy_in,
    wallet_deposit,
    wallet_withdraw,
)
from tests.factories import make_funded_player, make_player, make_table, table_stakes


def ledger_records() -> dict[str, AuditRecord]:
    records = AuditRecord.objects.filter(action="ledger.entry")
    by_entry = {}
    for record in records:
        assert record.subject_type == "cashier.entry"
        assert record.subject_id not in by_entry, "two records for one entry"
        by_entry[record.subject_id] = record
    return by_entry


@pytest.mark.django_db(transaction=True)
def test_each_entry_has_exactly_one_record_with_its_legs():
    table = make_table()
    alice = make_funded_player("alice", cents=50_000)
    bob = make_funded_player("bob", cents=50_000)
    for player in (alice, bob):
        table_buy_in(player=player, **table_stakes(table), amount=10_000, idempotency_key="sit")
    hand_stacks_commit(table_id=table.pk, hand_id=41, players=[alice, bob])
    hand_settle(table_id=table.pk, hand_id=41, net_by_player={alice.pk: 500, bob.pk: -550}, rake=50)
    wallet_withdraw(player=alice, amount=1_000, idempotency_key="out")
    wallet_withdraw(player=alice, amount=1_000, idempotency_key="out")  # a replay: no new entry

    records = ledger_records()
    entries = list(Entry.objects.prefetch_related("postings"))
    assert sorted(records) == sorted(str(e.pk) for e in entries) and len(entries) == 6
    for entry in entries:
        record = records[str(entry.pk)]
        legs = sorted([p.account_id, p.amount] for p in entry.postings.all())
        assert sorted(record.payload["legs"]) == legs
        assert record.payload["reason"] == entry.reason == record.subject_label
        assert record.payload["hand_id"] == entry.hand_id
        assert record.created_at == entry.created_at
        assert record.actor_id == entry.created_by_id
    settlement = records[str(Entry.objects.get(reason="hand_settlement").pk)]
    assert settlement.actor_kind == "system" and settlement.payload["table_id"] == table.pk
    deposit = records[str(Entry.objects.filter(reason="deposit").first().pk)]
    assert deposit.actor_kind == "player"
    assert audit_verify().ok


@pytest.mark.django_db(transaction=True)
def test_a_refused_movement_leaves_no_record():
    alice = make_funded_player("alice", cents=1_000)
    before = AuditRecord.objects.count()
    with pytest.raises(CashierError):
        wallet_withdraw(player=alice, amount=5_000, idempotency_key="too-much")
    unverified = make_player("carol", email_verified=False)
    with pytest.raises(CashierError):
        wallet_deposit(player=unverified, amount=100, idempotency_key="no-proof")
    assert AuditRecord.objects.count() == before == 1


@pytest.mark.django_db(transaction=True)
def test_an_entry_refused_at_commit_takes_its_record_with_it():
    """The ledger's balance trigger refuses at commit: the audit record goes too, and the
    chain does not move."""
    from django.db import IntegrityError, transaction
    from django.utils import timezone

    from audit.services import Subject, audit_record

    make_funded_player("alice", cents=1_000)
    with pytest.raises(IntegrityError, match="unbalanced"), transaction.atomic():
        entry = Entry.objects.create(reason="void", created_at=timezone.now())
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO cashier_posting (entry_id, account_id, amount) "
                "SELECT %s, id, 5 FROM cashier_account LIMIT 1",
                [entry.pk],
            )
        audit_record(action="ledger.entry", subject=Subject("cashier.entry", entry.pk, "void"))
    assert AuditRecord.objects.count() == 1
    assert audit_verify().ok and audit_verify().head_seq == 1


@pytest.mark.django_db(transaction=True)
def test_verify_audit_names_entries_without_a_record_and_records_without_an_entry():
    from django.utils import timezone

    from audit.services import Subject, audit_record

    make_funded_player("alice", cents=1_000)
    report = audit_verify()
    assert report.ok and "ledger_entries_recorded" in report.checks
    # An entry written around the service (a settled hand with no legs is the one entry the
    # ledger's triggers accept without postings).
    bare = Entry.objects.create(reason="hand_settlement", hand_id=99, created_at=timezone.now())
    deposit = Entry.objects.get(reason="deposit")
    audit_record(action="ledger.entry", subject=Subject("cashier.entry", deposit.pk, "again"))
    audit_record(action="ledger.entry", subject=Subject("cashier.entry", 987654, "invented"))
    report = audit_verify()
    assert not report.ok and report.first_broken is None  # the chain itself is intact
    text = "\n".join(report.problems)
    assert f"ledger entry #{bare.pk} (hand_settlement" in text and "has no record" in text
    assert f"ledger entry #{deposit.pk} has 2 records" in text
    assert "names ledger entry #987654, which does not exist" in text


def rewrite_behind_the_guards(sql: str, params: list) -> None:
    """Run `sql` with every trigger off, as a database superuser could."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(sql, params)


@pytest.mark.django_db(transaction=True)
def test_a_deposit_rewritten_with_its_balances_no_longer_matches_its_record():
    """The probe's attack: a $5,000 deposit made $50,000 (both postings and both balances), so
    the ledger still adds up; the audit record still holds the original legs."""
    from django.core.management import CommandError, call_command

    from cashier.verify import ledger_verify

    alice = make_funded_player("alice", cents=500_000)
    deposit = Entry.objects.get(reason="deposit")
    assert audit_verify().ok
    rewrite_behind_the_guards(
        "UPDATE cashier_posting SET amount = amount * 10 WHERE entry_id = %s", [deposit.pk]
    )
    rewrite_behind_the_guards(
        "UPDATE cashier_account SET balance = balance * 10 WHERE id IN "
        "(SELECT account_id FROM cashier_posting WHERE entry_id = %s)",
        [deposit.pk],
    )
    assert ledger_verify().ok  # the arithmetic holds: only the record knows
    report = audit_verify()
    assert not report.ok and report.first_broken is None
    text = "\n".join(report.problems)
    assert "[ledger_records_match_entries]" in text
    assert f"ledger entry #{deposit.pk} does not match its record" in text
    assert "5000000" in text and "500000" in text
    with pytest.raises(CommandError, match="NOT intact"):
        call_command("verify_audit", stdout=io.StringIO(), stderr=io.StringIO())
    assert alice.pk


@pytest.mark.django_db(transaction=True)
def test_an_entry_moved_to_another_hand_or_player_no_longer_matches_its_record():
    make_funded_player("alice", cents=1_000)
    bob = make_player("bob")
    deposit = Entry.objects.get(reason="deposit")
    rewrite_behind_the_guards(
        "UPDATE cashier_entry SET player_id = %s WHERE id = %s", [bob.pk, deposit.pk]
    )
    text = "\n".join(audit_verify().problems)
    assert f"ledger entry #{deposit.pk} does not match its record" in text
    assert f"player_id {deposit.player_id!r} in the record, {bob.pk!r}" in text


@pytest.mark.django_db(transaction=True)
def test_an_adjustment_rewritten_after_approval_no_longer_matches_its_records():
    from cashier.adjustments import adjustment_approve, adjustment_request
    from cashier.models import BalanceAdjustment

    alice = make_funded_player("alice", cents=1_000)
    asker = make_player("asker", is_staff=True)
    approver = make_player("approver", is_staff=True)
    adjustment = adjustment_request(player=alice, amount=300, reason="refund", requested_by=asker)
    adjustment_approve(adjustment=adjustment, approved_by=approver, reason="ok")
    assert audit_verify().ok
    rewrite_behind_the_guards(
        "UPDATE cashier_balanceadjustment SET amount = 30000 WHERE id = %s", [adjustment.pk]
    )
    assert BalanceAdjustment.objects.get().amount == 30_000
    report = audit_verify()
    text = "\n".join(report.problems)
    assert "[adjustment_records_match]" in text
    assert f"adjustment #{adjustment.pk} does not match its record" in text
    assert "staff.adjustment_requested" in text and "staff.adjustment_approved" in text
    assert "its entry moved 300 on the wallet" in text
