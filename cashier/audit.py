"""Read-only exports for auditors: the journal, balances at a moment, daily rake per table.

Each function returns plain rows (lists of dicts) that the API renders as JSON or CSV.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, date, datetime, time, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Exists, Max, Min, OuterRef, Q, Sum
from django.db.models.functions import TruncDate

from cashier.models import SHARDED_KIND_VALUES, Account, BalanceAdjustment, Entry, Posting

AUDITORS_GROUP = "auditors"
# Rows read per query by the exports that stream (the journal, the audit log, adjustments).
CHUNK = 2000
# The columns of the journal's CSV, one row a posting.
JOURNAL_COLUMNS = (
    "entry_id",
    "created_at",
    "reason",
    "player",
    "table",
    "hand_id",
    "tournament_id",
    "created_by",
    "memo",
    "posting_id",
    "account_id",
    "account_kind",
    "account_owner",
    "account_table",
    "account_shard",
    "account_tournament",
    "amount",
)


def is_auditor(user: AbstractBaseUser) -> bool:
    return bool(
        user
        and user.is_authenticated
        and (user.is_superuser or user.groups.filter(name=AUDITORS_GROUP).exists())
    )


def day_bounds(date_from: date | None, date_to: date | None) -> tuple[datetime | None, ...]:
    """Inclusive UTC days -> [start, end) datetimes."""
    start = datetime.combine(date_from, time.min, tzinfo=UTC) if date_from else None
    end = datetime.combine(date_to + timedelta(days=1), time.min, tzinfo=UTC) if date_to else None
    return start, end


def _account_label(account: Account) -> dict:
    """Which account: its id, kind, owner and table, and for one of the house's sharded
    accounts (bets in play, the bankroll: `SHARDED_KIND_VALUES`) which shard; None for any
    other account. The house's figure of such a kind is the sum over its shards."""
    return {
        "account_id": account.pk,
        "account_kind": account.kind,
        "account_owner": account.owner.get_username() if account.owner_id else "",
        "account_table": account.table.name if account.table_id else "",
        "account_shard": account.shard if account.kind in SHARDED_KIND_VALUES else None,
        # A tournament's prize pool: which Sit & Go (the tournaments app's id).
        "account_tournament": account.tournament_id,
    }


def _journal_entries(*, date_from=None, date_to=None, account_id: int | None = None):
    start, end = day_bounds(date_from, date_to)
    entries = Entry.objects.order_by("id")
    if start:
        entries = entries.filter(created_at__gte=start)
    if end:
        entries = entries.filter(created_at__lt=end)
    if account_id is not None:
        touching = Posting.objects.filter(
            entry=OuterRef("pk"), account_id__in=_one_figure(account_id)
        )
        entries = entries.filter(Exists(touching))
    return entries


def _id_batches(rows, *, after: int | None, limit: int | None, chunk: int) -> Iterator[list]:
    """`rows` in id order after id `after`, `chunk` at a time and at most `limit`: one keyset
    query per chunk, so memory holds one chunk whatever the range."""
    last, left = after or 0, limit
    while left is None or left > 0:
        size = chunk if left is None else min(chunk, left)
        batch = list(rows.filter(pk__gt=last).order_by("pk")[:size])
        if not batch:
            return
        yield batch
        last = batch[-1].pk
        left = None if left is None else left - len(batch)
        if len(batch) < size:
            return


def journal_chunks(
    *,
    date_from=None,
    date_to=None,
    account_id: int | None = None,
    after: int | None = None,
    limit: int | None = None,
    chunk: int = CHUNK,
) -> Iterator[list[dict]]:
    """Entries in the range (those touching `account_id` if given) in id order after entry
    `after`, each with all its postings, `chunk` entries at a time and at most `limit`: one
    keyset query for the entries and one for their postings per chunk, so memory holds one
    chunk whatever the range."""
    entries = _journal_entries(date_from=date_from, date_to=date_to, account_id=account_id)
    entries = entries.select_related("player", "table", "created_by")
    postings = Posting.objects.select_related("account", "account__owner", "account__table")
    for batch in _id_batches(entries, after=after, limit=limit, chunk=chunk):
        by_entry: dict[int, list] = {}
        for posting in postings.filter(entry__in=[e.pk for e in batch]).order_by("id"):
            by_entry.setdefault(posting.entry_id, []).append(
                {
                    "posting_id": posting.pk,
                    **_account_label(posting.account),
                    "amount": posting.amount,
                }
            )
        yield [
            {
                "entry_id": entry.pk,
                "created_at": entry.created_at.astimezone(UTC).isoformat(),
                "reason": entry.reason,
                "player": entry.player.get_username() if entry.player_id else "",
                "table": entry.table.name if entry.table_id else "",
                "hand_id": entry.hand_id,
                # A tournament's buy-in, refund or prizes: the Sit & Go whose pool it moves.
                "tournament_id": next(
                    (
                        p["account_tournament"]
                        for p in by_entry.get(entry.pk, [])
                        if p["account_tournament"] is not None
                    ),
                    None,
                ),
                "created_by": entry.created_by.get_username() if entry.created_by_id else "",
                "memo": entry.memo,
                "postings": by_entry.get(entry.pk, []),
            }
            for entry in batch
        ]


def journal(*, date_from=None, date_to=None, account_id: int | None = None) -> list[dict]:
    """Entries in the range (those touching `account_id` if given), each with all its postings."""
    chunks = journal_chunks(date_from=date_from, date_to=date_to, account_id=account_id)
    return [row for rows in chunks for row in rows]


def journal_manifest(*, date_from=None, date_to=None, account_id: int | None = None) -> dict:
    """What a journal export of these filters holds, counted by the database: entries,
    postings, CSV rows (one a posting, one for an entry without any), the first and last entry,
    and per account kind the postings and their credits, debits and net (cents): an auditor
    checks a download against it."""
    entries = _journal_entries(date_from=date_from, date_to=date_to, account_id=account_id)
    postings = Posting.objects.filter(entry__in=entries.values("pk"))
    counted = entries.aggregate(
        entries=Count("id"),
        first=Min("id"),
        last=Max("id"),
        bare=Count("id", filter=~Exists(Posting.objects.filter(entry=OuterRef("pk")))),
    )
    kinds = (
        postings.values("account__kind")
        .annotate(
            postings=Count("id"),
            credits=Sum("amount", filter=Q(amount__gt=0)),
            debits=Sum("amount", filter=Q(amount__lt=0)),
            net=Sum("amount"),
        )
        .order_by("account__kind")
    )
    totals = {
        row["account__kind"]: {
            "postings": row["postings"],
            "credits": row["credits"] or 0,
            "debits": -(row["debits"] or 0),
            "net": row["net"] or 0,
        }
        for row in kinds
    }
    posting_count = sum(kind["postings"] for kind in totals.values())
    return {
        "entries": counted["entries"],
        "postings": posting_count,
        "csv_rows": posting_count + counted["bare"],
        "first_entry_id": counted["first"],
        "last_entry_id": counted["last"],
        "totals_per_account_kind": totals,
    }


def journal_flat(rows: list[dict]) -> list[dict]:
    """One row per posting, for CSV."""
    flat = []
    for entry in rows:
        head = {k: v for k, v in entry.items() if k != "postings"}
        for posting in entry["postings"] or [{}]:
            flat.append({**head, **posting})
    return flat


ADJUSTMENT_COLUMNS = (
    "adjustment_id",
    "player",
    "amount",
    "reason",
    "status",
    "requested_by",
    "requested_at",
    "decided_by",
    "decided_at",
    "decision_reason",
    "entry_id",
)


def _adjustments(*, date_from=None, date_to=None, status: str = ""):
    start, end = day_bounds(date_from, date_to)
    adjustments = BalanceAdjustment.objects.order_by("id")
    if start:
        adjustments = adjustments.filter(requested_at__gte=start)
    if end:
        adjustments = adjustments.filter(requested_at__lt=end)
    if status:
        adjustments = adjustments.filter(status=status)
    return adjustments


def adjustment_chunks(
    *,
    date_from=None,
    date_to=None,
    status: str = "",
    after: int | None = None,
    limit: int | None = None,
    chunk: int = CHUNK,
) -> Iterator[list[dict]]:
    """Staff balance adjustment requests asked for in the range (every status: pending,
    posted, rejected), in id order after `after`, `chunk` at a time and at most `limit`."""
    adjustments = _adjustments(date_from=date_from, date_to=date_to, status=status)
    adjustments = adjustments.select_related("player", "requested_by", "decided_by")
    for batch in _id_batches(adjustments, after=after, limit=limit, chunk=chunk):
        yield [
            {
                "adjustment_id": a.pk,
                "player": a.player.get_username(),
                "amount": a.amount,
                "reason": a.reason,
                "status": a.status,
                "requested_by": a.requested_by.get_username(),
                "requested_at": a.requested_at.astimezone(UTC).isoformat(),
                "decided_by": a.decided_by.get_username() if a.decided_by_id else "",
                "decided_at": a.decided_at.astimezone(UTC).isoformat() if a.decided_at else "",
                "decision_reason": a.decision_reason,
                "entry_id": a.entry_id,
            }
            for a in batch
        ]


def adjustments_manifest(*, date_from=None, date_to=None, status: str = "") -> dict:
    """Rows, and per status the count and the signed cents asked for."""
    adjustments = _adjustments(date_from=date_from, date_to=date_to, status=status)
    per_status = {
        row["status"]: {"count": row["count"], "amount": row["amount"] or 0}
        for row in adjustments.values("status")
        .annotate(count=Count("id"), amount=Sum("amount"))
        .order_by("status")
    }
    return {
        "rows": sum(row["count"] for row in per_status.values()),
        "per_status": per_status,
    }


def _one_figure(account_id: int) -> list[int]:
    """The accounts shown as this one: every shard of a sharded house account (the house's
    bets in play and bankroll are one figure to auditors), else the account itself."""
    kind = Account.objects.filter(pk=account_id).values_list("kind", flat=True).first()
    if kind not in SHARDED_KIND_VALUES:
        return [account_id]
    return list(Account.objects.filter(kind=kind).values_list("pk", flat=True))


def balances_at(*, at: datetime, account_id: int | None = None) -> list[dict]:
    """Every account's balance from the postings of entries made before `at` (0 for accounts
    with none by then). The shards of a sharded house account are one row holding their sum:
    `account_shard` "all", under the id of its first shard (the lowest id of that kind)."""
    accounts = Account.objects.select_related("owner", "table").order_by("id")
    if account_id is not None:
        accounts = accounts.filter(pk__in=_one_figure(account_id))
    sums = dict(
        Posting.objects.filter(entry__created_at__lt=at)
        .values("account_id")
        .annotate(total=Sum("amount"))
        .values_list("account_id", "total")
    )
    rows: list[dict] = []
    first_of_kind: dict[str, dict] = {}
    for account in accounts:
        balance = sums.get(account.pk, 0)
        if account.kind in first_of_kind:
            first_of_kind[account.kind]["balance"] += balance
            continue
        row = {**_account_label(account), "at": at.isoformat(), "balance": balance}
        if account.kind in SHARDED_KIND_VALUES:
            row["account_shard"] = "all"
            first_of_kind[account.kind] = row
        rows.append(row)
    return rows


def daily_rake(*, date_from=None, date_to=None, table_id: int | None = None) -> list[dict]:
    """Rake booked per UTC day, table and game, with the number of raked hands."""
    start, end = day_bounds(date_from, date_to)
    postings = Posting.objects.filter(
        account__kind=Account.Kind.TABLE_RAKE, entry__reason=Entry.Reason.HAND_SETTLEMENT
    )
    if start:
        postings = postings.filter(entry__created_at__gte=start)
    if end:
        postings = postings.filter(entry__created_at__lt=end)
    if table_id is not None:
        postings = postings.filter(account__table_id=table_id)
    grouped = (
        postings.annotate(day=TruncDate("entry__created_at", tzinfo=UTC))
        .values(
            "day",
            "account__table_id",
            "account__table__name",
            "account__table__game",
            "account__table__structure",
        )
        .annotate(rake=Sum("amount"), hands=Count("entry", filter=Q(amount__gt=0)))
        .order_by("day", "account__table__name")
    )
    return [
        {
            "date": row["day"].isoformat(),
            "table_id": row["account__table_id"],
            "table": row["account__table__name"],
            "game": row["account__table__game"],
            "structure": row["account__table__structure"],
            "raked_hands": row["hands"],
            "rake": row["rake"],
        }
        for row in grouped
    ]
