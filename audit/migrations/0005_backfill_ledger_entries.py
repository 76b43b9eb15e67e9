"""Ledger entries posted before the audit log existed get their `ledger.entry` record now (the
same payload `cashier._post` writes, the entry's own time), so `verify_audit`'s rule that the
log holds every entry holds in a room that upgrades. PostgreSQL links them at the migration's
commit."""

from django.db import migrations


def backfill(apps, schema_editor):
    from audit.services import content_hash_of, payload_normalize

    AuditRecord = apps.get_model("audit", "AuditRecord")
    Entry = apps.get_model("cashier", "Entry")
    Posting = apps.get_model("cashier", "Posting")
    recorded = set(
        AuditRecord.objects.filter(action="ledger.entry", subject_type="cashier.entry")
        .values_list("subject_id", flat=True)
        .iterator()
    )
    for entry in Entry.objects.order_by("id").iterator(chunk_size=2000):
        if str(entry.pk) in recorded:
            continue
        legs = list(
            Posting.objects.filter(entry_id=entry.pk).order_by("id").values_list("account_id", "amount")
        )
        record = AuditRecord(
            created_at=entry.created_at,
            actor_id=entry.created_by_id,
            actor_label="",
            actor_kind="system",
            action="ledger.entry",
            subject_type="cashier.entry",
            subject_id=str(entry.pk),
            subject_label=entry.reason,
            payload=payload_normalize(
                {
                    "reason": entry.reason,
                    "player_id": entry.player_id,
                    "table_id": entry.table_id,
                    "hand_id": entry.hand_id,
                    "legs": [list(leg) for leg in legs],
                    "backfilled": True,
                }
            ),
            reason="",
        )
        if entry.created_by_id is not None:
            user = entry.created_by
            record.actor_label = user.username
            record.actor_kind = "staff" if (user.is_staff or user.is_superuser) else "player"
        record.content_hash = content_hash_of(
            {name: getattr(record, name) for name in (
                "created_at", "actor_id", "actor_label", "actor_kind", "action", "subject_type",
                "subject_id", "subject_label", "payload", "reason",
            )}
        )  # fmt: skip
        record.save(force_insert=True)


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0004_chain_per_transaction"),
        ("cashier", "0004_ledger_guards"),
    ]

    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
