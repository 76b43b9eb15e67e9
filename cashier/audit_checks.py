"""The audit log holds every ledger entry: one `ledger.entry` record per entry, none for an
entry that does not exist, and the records match the entries and the approved adjustments.

The cashier sits above the audit log, so it registers these into `verify_audit`
(CashierConfig.ready): the log never imports the ledger."""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import CharField, Count, Exists, OuterRef
from django.db.models.functions import Cast

from audit.models import AuditRecord
from audit.verify import MAX_LISTED, AuditCheck
from cashier.models import Account, BalanceAdjustment, Entry, Posting

ACTION = "ledger.entry"
SUBJECT = "cashier.entry"


def _entry_records():
    return AuditRecord.objects.filter(action=ACTION, subject_type=SUBJECT)


def ledger_entries_recorded() -> Iterator[str]:
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


# -- meaning: each record says what the row it names holds

CHUNK = 2000


def _sorted_legs(legs) -> list[list[int]]:
    try:
        return sorted([int(account), int(amount)] for account, amount in legs or [])
    except (TypeError, ValueError):
        return [[-1, -1]]  # not a list of [account, amount] pairs: never equal to postings


def ledger_records_match_entries() -> Iterator[str]:
    """Each `ledger.entry` record's legs, reason, player, table, hand, actor and time against
    the entry's actual postings and fields: an entry rewritten with the triggers off (postings
    and balances changed together, so the ledger still adds up) no longer matches the record
    written with it, and the record is in the chain."""
    last_id = 0
    while True:
        entries = list(
            Entry.objects.filter(pk__gt=last_id)
            .order_by("pk")
            .values("id", "reason", "player_id", "table_id", "hand_id", "created_by_id")[:CHUNK]
        )
        if not entries:
            return
        last_id = entries[-1]["id"]
        ids = [entry["id"] for entry in entries]
        legs: dict[int, list[list[int]]] = {}
        for entry_id, account_id, amount in Posting.objects.filter(entry_id__in=ids).values_list(
            "entry_id", "account_id", "amount"
        ):
            legs.setdefault(entry_id, []).append([account_id, amount])
        records = _entry_records().filter(subject_id__in=[str(pk) for pk in ids])
        by_entry = {
            subject_id: (record_id, payload, actor_id)
            for record_id, subject_id, payload, actor_id in records.values_list(
                "id", "subject_id", "payload", "actor_id"
            )
        }
        for entry in entries:
            found = by_entry.get(str(entry["id"]))
            if found is None:
                continue  # ledger_entries_recorded names it
            record_id, payload, actor_id = found
            payload = payload if isinstance(payload, dict) else {}
            actual = sorted(legs.get(entry["id"], []))
            differs = []
            if _sorted_legs(payload.get("legs")) != actual:
                differs.append(f"legs {payload.get('legs')} in the record, {actual} posted")
            for name, field in (
                ("reason", "reason"),
                ("player_id", "player_id"),
                ("table_id", "table_id"),
                ("hand_id", "hand_id"),
            ):
                if payload.get(name) != entry[field]:
                    differs.append(f"{name} {payload.get(name)!r} in the record, {entry[field]!r}")
            if actor_id != entry["created_by_id"]:
                differs.append(
                    f"actor #{actor_id} in the record, made by #{entry['created_by_id']}"
                )
            if differs:
                yield (
                    f"ledger entry #{entry['id']} does not match its record #{record_id}: "
                    + "; ".join(differs)
                )


ADJUSTMENT_ACTIONS = (
    "staff.adjustment_requested",
    "staff.adjustment_approved",
    "staff.adjustment_rejected",
)


def adjustment_records_match() -> Iterator[str]:
    """Each staff balance adjustment record's player and amount against the adjustment it
    names, and an approval's entry against the adjustment's entry and that entry's wallet leg."""
    records = (
        AuditRecord.objects.filter(action__in=ADJUSTMENT_ACTIONS)
        .order_by("id")
        .values_list("id", "action", "subject_id", "payload")
    )
    batch: list[tuple] = []

    def compare(batch):
        ids = {str(row[2]) for row in batch}
        adjustments = {
            str(a["id"]): a
            for a in BalanceAdjustment.objects.filter(
                pk__in=[int(i) for i in ids if i.isdigit()]
            ).values("id", "player_id", "amount", "entry_id", "status")
        }
        entry_ids = [a["entry_id"] for a in adjustments.values() if a["entry_id"]]
        wallet_legs = dict(
            Posting.objects.filter(
                entry_id__in=entry_ids, account__kind=Account.Kind.WALLET
            ).values_list("entry_id", "amount")
        )
        for record_id, action, subject_id, payload in batch:
            payload = payload if isinstance(payload, dict) else {}
            adjustment = adjustments.get(str(subject_id))
            if adjustment is None:
                yield (
                    f"record #{record_id} ({action}) names adjustment #{subject_id}, "
                    "which does not exist"
                )
                continue
            differs = _adjustment_differences(action, payload, adjustment, wallet_legs)
            if differs:
                yield (
                    f"adjustment #{subject_id} does not match its record #{record_id} ({action}): "
                    + "; ".join(differs)
                )

    for row in records.iterator(chunk_size=CHUNK):
        batch.append(row)
        if len(batch) >= CHUNK:
            yield from compare(batch)
            batch = []
    if batch:
        yield from compare(batch)


def _adjustment_differences(
    action: str, payload: dict, adjustment: dict, wallet_legs: dict
) -> list[str]:
    """Where one adjustment record says otherwise than its adjustment: the amount, the player
    and, for an approval, the entry and what that entry moved on the wallet."""
    differs = []
    if payload.get("amount") != adjustment["amount"]:
        differs.append(f"amount {payload.get('amount')!r} in the record, {adjustment['amount']}")
    if payload.get("player") != adjustment["player_id"]:
        differs.append(
            f"player {payload.get('player')!r} in the record, #{adjustment['player_id']}"
        )
    if action == "staff.adjustment_approved":
        if payload.get("entry") != adjustment["entry_id"]:
            differs.append(
                f"entry {payload.get('entry')!r} in the record, {adjustment['entry_id']!r}"
            )
        posted = wallet_legs.get(adjustment["entry_id"])
        if posted != adjustment["amount"]:
            differs.append(f"its entry moved {posted!r} on the wallet")
    return differs


MATCH_CHECK = AuditCheck(
    name="ledger_records_match_entries",
    says="every ledger.entry record's legs, reason, player, table, hand and actor are the entry's",
    find=ledger_records_match_entries,
)
ADJUSTMENT_CHECK = AuditCheck(
    name="adjustment_records_match",
    says="every adjustment record's player, amount and entry are the adjustment's",
    find=adjustment_records_match,
)
