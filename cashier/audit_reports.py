"""What auditors export beside the ledger: the audit log itself and the daily report.

Plain rows (lists of dicts) that `cashier/audit_api.py` renders as JSON or CSV. The daily report's
amounts are computed from ledger postings only (never from stored balances or service-side
tables), so they agree with the journal export by construction. One count is not in the ledger:
how many players' rounds a live Showdown board's one shared settlement entry settled (a seat
that lost every stake has no leg of its own in it); the banked game tells the report that
(`shared_settlement_rounds_register`, from its AppConfig).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from datetime import UTC, date, datetime, timedelta

from django.db.models import Count, F, Max, Min, Q, QuerySet, Sum
from django.db.models.functions import TruncDate

from audit.models import AuditRecord
from cashier.audit import CHUNK, daily_rake, day_bounds
from cashier.models import Account, Entry, Posting
from config.inputs import BAD_PARAMETER, BadInput

Kind = Account.Kind
# The ledger reason a staff balance adjustment posts under (cashier's BalanceAdjustment).
ADJUSTMENT_REASON = "adjustment"
# One report covers at most this many days (a year and a day for a leap year).
MAX_REPORT_DAYS = 366


# -- the audit log


def audit_log(
    *,
    date_from: date | None = None,
    date_to: date | None = None,
    action: str = "",
    actor: str = "",
    subject_type: str = "",
    subject_id: str = "",
) -> QuerySet[AuditRecord]:
    """Records in chain order (unchained ones, of transactions not yet committed, last).
    `action` matches a whole code or a family ("security" matches "security.login")."""
    records = AuditRecord.objects.order_by("seq", "id")
    start, end = day_bounds(date_from, date_to)
    if start:
        records = records.filter(created_at__gte=start)
    if end:
        records = records.filter(created_at__lt=end)
    if action:
        records = records.filter(Q(action=action) | Q(action__startswith=action + "."))
    if actor:
        records = records.filter(actor_label=actor)
    if subject_type:
        records = records.filter(subject_type=subject_type)
    if subject_id:
        records = records.filter(subject_id=subject_id)
    return records


AUDIT_LOG_COLUMNS = (
    "seq",
    "id",
    "created_at",
    "actor_id",
    "actor_label",
    "actor_kind",
    "action",
    "subject_type",
    "subject_id",
    "subject_label",
    "payload",
    "reason",
    "content_hash",
    "prev_hash",
    "hash",
)


def audit_log_row(record: AuditRecord, *, as_csv: bool) -> dict:
    """Every field an auditor needs to recompute the record's hashes (docs/operations.md, "The
    audit log"); in CSV the payload is its canonical JSON text."""
    payload = record.payload
    if as_csv:
        payload = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return {
        "seq": record.seq,
        "id": record.pk,
        "created_at": record.created_at.astimezone(UTC).isoformat(),
        "actor_id": record.actor_id,
        "actor_label": record.actor_label,
        "actor_kind": record.actor_kind,
        "action": record.action,
        "subject_type": record.subject_type,
        "subject_id": record.subject_id,
        "subject_label": record.subject_label,
        "payload": payload,
        "reason": record.reason,
        "content_hash": record.content_hash,
        "prev_hash": record.prev_hash,
        "hash": record.hash,
    }


def audit_log_rows(records: QuerySet[AuditRecord], *, as_csv: bool) -> list[dict]:
    return [audit_log_row(record, as_csv=as_csv) for record in records.iterator(chunk_size=2000)]


# A page cursor: the last row's seq, or "u" and its id for a record not chained yet (those come
# after every chained one).
CURSOR = re.compile(r"^(u?)([0-9]{1,18})$")


def audit_log_cursor(row: dict) -> str:
    return str(row["seq"]) if row["seq"] is not None else f"u{row['id']}"


def audit_log_chunks(
    records: QuerySet[AuditRecord],
    *,
    as_csv: bool,
    after: str = "",
    limit: int | None = None,
    chunk: int = CHUNK,
) -> Iterator[list[dict]]:
    """Rows in chain order after the cursor `after`, `chunk` at a time and at most `limit`:
    one keyset query per chunk."""
    records = records.order_by(F("seq").asc(nulls_last=True), "id")
    left = limit
    while left is None or left > 0:
        size = chunk if left is None else min(chunk, left)
        page = records
        if after:
            unchained, number = CURSOR.match(after).groups()
            if unchained:
                page = page.filter(seq__isnull=True, id__gt=int(number))
            else:
                page = page.filter(Q(seq__gt=int(number)) | Q(seq__isnull=True))
        rows = [audit_log_row(record, as_csv=as_csv) for record in page[:size]]
        if not rows:
            return
        yield rows
        after = audit_log_cursor(rows[-1])
        left = None if left is None else left - len(rows)
        if len(rows) < size:
            return


def audit_log_manifest(records: QuerySet[AuditRecord]) -> dict:
    """Rows, how many are chained, the first and last seq, and rows per action family."""
    counted = records.aggregate(
        rows=Count("id"), chained=Count("seq"), first_seq=Min("seq"), last_seq=Max("seq")
    )
    families: dict[str, int] = {}
    for action, count in (
        records.values("action").annotate(n=Count("id")).values_list("action", "n").order_by()
    ):
        family = action.split(".", 1)[0]
        families[family] = families.get(family, 0) + count
    return {**counted, "per_action_family": dict(sorted(families.items()))}


# -- the daily report

# The rounds settled by shared settlement entries (a banked_payout entry that names no player:
# a live Showdown board settles all its seats in one), per UTC day of the entry, for entries
# made in [start, end). Registered by the app that knows its rounds (the cashier never imports
# it); without one, such an entry counts once.
SharedRoundsCounter = Callable[[datetime, datetime], dict[date, int]]
_shared_rounds: list[SharedRoundsCounter] = []


def shared_settlement_rounds_register(counter: SharedRoundsCounter) -> None:
    """Count the rounds of shared banked settlement entries with `counter` (one counter: a
    second registration replaces the first, so a repeated `ready()` changes nothing)."""
    _shared_rounds[:] = [counter]


def report_days(date_from: date | None, date_to: date | None, *, today: date) -> list[date]:
    """The UTC days a report covers: `to` defaults to today and `from` to `to` (one day)."""
    last = date_to or today
    first = date_from or last
    if first > last:
        raise BadInput(BAD_PARAMETER, "'from' must not be after 'to'.")
    if (last - first).days + 1 > MAX_REPORT_DAYS:
        raise BadInput(
            BAD_PARAMETER, f"A daily report covers at most {MAX_REPORT_DAYS} days at a time."
        )
    return [first + timedelta(days=n) for n in range((last - first).days + 1)]


def _empty_day(day: date) -> dict:
    return {
        "date": day.isoformat(),
        "deposits": {"count": 0, "amount": 0},
        "withdrawals": {"count": 0, "amount": 0},
        "rake": [],
        "rake_total": 0,
        "banked": {"rounds_settled": 0, "staked": 0, "house_result": 0},
        "voids_to_charity": {"count": 0, "amount": 0},
        "adjustments": {"count": 0, "credited": 0, "debited": 0},
        "audit_anchor": None,
    }


def daily_report(*, days: list[date]) -> list[dict]:
    """Per UTC day, from the ledger: deposits and withdrawals (entries and cents), rake per
    table, the banked game's result for the house, voids to charity, and staff balance
    adjustments (credited to and debited from wallets). Amounts are cents; withdrawals and
    debits are shown positive. Each day also carries the signed anchor of the audit chain's
    head its last daily verification wrote (audit/anchor.py), for auditors to keep outside the
    database.

    The banked game: `rounds_settled` is one per player's round settled that day (the day of
    its settlement entry), as it has been since the report began, when every round, a live
    table's seats included, settled in an entry of its own: an online round's entry names its
    player and counts once; a live board's one entry for all its seats counts each seat's round
    (`shared_settlement_rounds_register`). `staked` is the stakes those settlements took out of
    bets in play and `house_result` the house bankroll's movement in them, each the sum over
    the house's shards: one house figure."""
    report = {day: _empty_day(day) for day in days}
    start, end = day_bounds(days[0], days[-1])
    assert start is not None and end is not None  # days are never empty
    legs = (
        Posting.objects.filter(entry__created_at__gte=start, entry__created_at__lt=end)
        .annotate(day=TruncDate("entry__created_at", tzinfo=UTC))
        .values("day", "entry__reason", "account__kind")
        .annotate(
            total=Sum("amount"),
            credited=Sum("amount", filter=Q(amount__gt=0)),
            debited=Sum("amount", filter=Q(amount__lt=0)),
            entries=Count("entry", distinct=True),
        )
    )
    for leg in legs:
        row = report[leg["day"]]
        reason, kind = leg["entry__reason"], leg["account__kind"]
        if reason == Entry.Reason.DEPOSIT and kind == Kind.WALLET:
            row["deposits"] = {"count": leg["entries"], "amount": leg["total"]}
        elif (reason == Entry.Reason.WITHDRAWAL and kind == Kind.WALLET) or (
            # A withdrawal that waited for identity checks counts the day it is paid out.
            reason == Entry.Reason.WITHDRAWAL_PAID and kind == Kind.OUTSIDE_WORLD
        ):
            paid = -leg["total"] if kind == Kind.WALLET else leg["total"]
            row["withdrawals"]["count"] += leg["entries"]
            row["withdrawals"]["amount"] += paid
        elif reason == Entry.Reason.BANKED_PAYOUT and kind == Kind.HOUSE_BANKROLL:
            row["banked"]["house_result"] = leg["total"]
        elif reason == Entry.Reason.BANKED_PAYOUT and kind == Kind.BANKED_BETS_IN_PLAY:
            row["banked"]["staked"] = -leg["total"]
        elif reason == Entry.Reason.VOID and kind == Kind.CHARITY:
            row["voids_to_charity"] = {"count": leg["entries"], "amount": leg["total"]}
        elif reason == ADJUSTMENT_REASON and kind == Kind.WALLET:
            row["adjustments"] = {
                "count": leg["entries"],
                "credited": leg["credited"] or 0,
                "debited": -(leg["debited"] or 0),
            }
    for day, rounds in _banked_rounds_settled(start, end).items():
        if day in report:
            report[day]["banked"]["rounds_settled"] = rounds
    for day, anchor in _audit_anchors(start, end).items():
        report[day]["audit_anchor"] = anchor
    for rake in daily_rake(date_from=days[0], date_to=days[-1]):
        row = report[date.fromisoformat(rake["date"])]
        row["rake"].append({k: v for k, v in rake.items() if k != "date"})
        row["rake_total"] += rake["rake"]
    return list(report.values())


def _audit_anchors(start: datetime, end: datetime) -> dict[date, dict]:
    """Per UTC day, the anchor of the day's last linked daily verification of the audit log."""
    anchors: dict[date, dict] = {}
    verifications = (
        AuditRecord.objects.filter(
            action="verify.audit", created_at__gte=start, created_at__lt=end, seq__isnull=False
        )
        .order_by("seq")
        .values_list("created_at", "payload")
    )
    for created_at, payload in verifications:
        anchor = payload.get("anchor") if isinstance(payload, dict) else None
        if anchor:
            anchors[created_at.astimezone(UTC).date()] = anchor
    return anchors


def _banked_rounds_settled(start: datetime, end: datetime) -> dict[date, int]:
    """Players' rounds settled per UTC day: each banked settlement entry naming its player is
    one round; a shared one (naming no player) counts the rounds the banked game says it
    settled, or once if no app counts them."""
    counted: dict[date, int] = {}
    payouts = (
        Entry.objects.filter(
            reason=Entry.Reason.BANKED_PAYOUT, created_at__gte=start, created_at__lt=end
        )
        .annotate(day=TruncDate("created_at", tzinfo=UTC))
        .values("day")
        .annotate(
            named=Count("id", filter=Q(player__isnull=False)),
            shared=Count("id", filter=Q(player__isnull=True)),
        )
        .values_list("day", "named", "shared")
        .order_by()
    )
    for day, named, shared in payouts:
        counted[day] = named + (0 if _shared_rounds else shared)
    for counter in _shared_rounds:
        for day, rounds in counter(start, end).items():
            counted[day] = counted.get(day, 0) + rounds
    return counted


def daily_report_flat(days: list[dict]) -> list[dict]:
    """One CSV row per day and figure: date, section, table, count, amount (cents)."""
    rows = []

    def add(day, section, count, amount, table="", hands=None):
        rows.append(
            {
                "date": day["date"],
                "section": section,
                "table": table,
                "count": count if hands is None else hands,
                "amount": amount,
            }
        )

    for day in days:
        add(day, "deposits", day["deposits"]["count"], day["deposits"]["amount"])
        add(day, "withdrawals", day["withdrawals"]["count"], day["withdrawals"]["amount"])
        for rake in day["rake"]:
            add(day, "rake", rake["raked_hands"], rake["rake"], table=rake["table"])
        add(day, "rake_total", sum(r["raked_hands"] for r in day["rake"]), day["rake_total"])
        banked = day["banked"]
        add(day, "banked_staked", banked["rounds_settled"], banked["staked"])
        add(day, "banked_house_result", banked["rounds_settled"], banked["house_result"])
        add(
            day,
            "voids_to_charity",
            day["voids_to_charity"]["count"],
            day["voids_to_charity"]["amount"],
        )
        adjustments = day["adjustments"]
        add(day, "adjustments_credited", adjustments["count"], adjustments["credited"])
        add(day, "adjustments_debited", adjustments["count"], adjustments["debited"])
        if day["audit_anchor"]:
            anchor = day["audit_anchor"]
            rows.append(
                {
                    "date": day["date"],
                    "section": "audit_anchor",
                    "table": "",
                    "count": anchor["seq"],
                    "amount": "",
                    "anchor_hash": anchor["hash"],
                    "anchor_at": anchor["at"],
                    "anchor_signature": anchor["signature"] or "",
                }
            )
    return rows
