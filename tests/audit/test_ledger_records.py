"""Every ledger entry is in the audit log by reference, written in the entry's transaction."""

import pytest
from django.db import connection

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


@pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the deferred trigger is PostgreSQL's"
)
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
