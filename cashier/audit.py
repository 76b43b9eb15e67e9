"""Read-only exports for auditors: the journal, balances at a moment, daily rake per table.

Each function returns plain rows (lists of dicts) that the API renders as JSON or CSV.
"""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, Q, Sum
from django.db.models.functions import TruncDate

from cashier.models import Account, Entry, Posting

AUDITORS_GROUP = "auditors"


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
    return {
        "account_id": account.pk,
        "account_kind": account.kind,
        "account_owner": account.owner.get_username() if account.owner_id else "",
        "account_table": account.table.name if account.table_id else "",
    }


def journal(*, date_from=None, date_to=None, account_id: int | None = None) -> list[dict]:
    """Entries in the range (those touching `account_id` if given), each with all its postings."""
    start, end = day_bounds(date_from, date_to)
    entries = Entry.objects.select_related("player", "table", "created_by").order_by("id")
    if start:
        entries = entries.filter(created_at__gte=start)
    if end:
        entries = entries.filter(created_at__lt=end)
    if account_id is not None:
        entries = entries.filter(postings__account_id=account_id).distinct()
    postings = Posting.objects.select_related("account", "account__owner", "account__table")
    rows = []
    by_entry: dict[int, list] = {}
    entry_list = list(entries)
    for posting in postings.filter(entry__in=[e.pk for e in entry_list]).order_by("id"):
        by_entry.setdefault(posting.entry_id, []).append(
            {"posting_id": posting.pk, **_account_label(posting.account), "amount": posting.amount}
        )
    for entry in entry_list:
        rows.append(
            {
                "entry_id": entry.pk,
                "created_at": entry.created_at.astimezone(UTC).isoformat(),
                "reason": entry.reason,
                "player": entry.player.get_username() if entry.player_id else "",
                "table": entry.table.name if entry.table_id else "",
                "hand_id": entry.hand_id,
                "created_by": entry.created_by.get_username() if entry.created_by_id else "",
                "memo": entry.memo,
                "postings": by_entry.get(entry.pk, []),
            }
        )
    return rows


def journal_flat(rows: list[dict]) -> list[dict]:
    """One row per posting, for CSV."""
    flat = []
    for entry in rows:
        head = {k: v for k, v in entry.items() if k != "postings"}
        for posting in entry["postings"] or [{}]:
            flat.append({**head, **posting})
    return flat


def balances_at(*, at: datetime, account_id: int | None = None) -> list[dict]:
    """Every account's balance from the postings of entries made before `at` (0 for accounts
    with none by then)."""
    accounts = Account.objects.select_related("owner", "table").order_by("id")
    if account_id is not None:
        accounts = accounts.filter(pk=account_id)
    sums = dict(
        Posting.objects.filter(entry__created_at__lt=at)
        .values("account_id")
        .annotate(total=Sum("amount"))
        .values_list("account_id", "total")
    )
    return [
        {**_account_label(account), "at": at.isoformat(), "balance": sums.get(account.pk, 0)}
        for account in accounts
    ]


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
