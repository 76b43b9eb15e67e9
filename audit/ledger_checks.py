"""The audit log holds every ledger entry: one `ledger.entry` record per entry, none for an
entry that does not exist (registered into `verify_audit` by AuditConfig.ready)."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import CharField, Count, Exists, OuterRef
from django.db.models.functions import Cast

from audit.models import AuditRecord
from audit.verify import MAX_LISTED, AuditCheck

ACTION = "ledger.entry"
SUBJECT = "cashier.entry"


def _entry_records():
    return AuditRecord.objects.filter(action=ACTION, subject_type=SUBJECT)


def ledger_entries_recorded() -> Iterator[str]:
    from cashier.models import Entry

    recorded = _entry_records().filter(subject_id=Cast(OuterRef("pk"), CharField()))
    missing = Entry.objects.filter(~Exists(recorded)).order_by("id")
    for entry_id, reason, created_at in missing.values_list("id", "reason", "created_at")[
        : MAX_LISTED + 1
    ]:
        yield f"ledger entry #{entry_id} ({reason}, {created_at:%Y-%m-%d %H:%M:%S}) has no record"
    doubled = (
        _entry_records().values("subject_id").annotate(n=Count("id")).filter(n__gt=1)
    ).order_by("subject_id")
    for row in doubled[: MAX_LISTED + 1]:
        yield f"ledger entry #{row['subject_id']} has {row['n']} records"
    entries = Entry.objects.annotate(key=Cast("pk", CharField())).filter(key=OuterRef("subject_id"))
    orphans = _entry_records().filter(~Exists(entries)).order_by("id")
    for record_id, subject_id in orphans.values_list("id", "subject_id")[: MAX_LISTED + 1]:
        yield f"record #{record_id} names ledger entry #{subject_id}, which does not exist"


CHECK = AuditCheck(
    name="ledger_entries_recorded",
    says="every ledger entry has exactly one ledger.entry record, and every such record an entry",
    find=ledger_entries_recorded,
)
