"""The buy-in range of a player at a table, ratholing included (RULES.md section 5).

A player who leaves a table and sits at the very same table again within 30 minutes may not
come back with less than they left with (up to the table's maximum buy-in), and one who left
with the maximum or more brings at least the maximum. Players who do it often (five times or
more since 00:00 UTC, across all games) must come back with exactly what they left with.

The table's own range stands for the rules' "50 BB" and "100 BB" (they are 50 and 100 big
blinds by default; a table with another range uses its own). Cash-outs are read from the
ledger: each `cash_out` entry says who left which table with how much, and when.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from django.db.models import OuterRef, Subquery

from cashier.models import Account, Entry, Posting

RATHOLE_WINDOW = timedelta(minutes=30)
FREQUENT_RATHOLER = 5


@dataclass(frozen=True)
class Departure:
    table_id: int
    left_with: int
    left_at: datetime


def _cash_outs(*, player, before: datetime, table_id: int | None = None):
    """The player's cash-outs up to `before`, newest first, with the amount they left with."""
    left_with = Posting.objects.filter(
        entry=OuterRef("pk"), account__kind=Account.Kind.TABLE_STACK
    ).values("amount")[:1]
    entries = Entry.objects.filter(
        player=player, reason=Entry.Reason.CASH_OUT, created_at__lte=before
    )
    if table_id is not None:
        entries = entries.filter(table_id=table_id)
    return entries.annotate(stack_posting=Subquery(left_with)).order_by("-created_at", "-id")


def last_departure(*, player, table_id: int, now: datetime) -> Departure | None:
    """The player's latest cash-out from this table at or before `now`."""
    entry = _cash_outs(player=player, before=now, table_id=table_id).first()
    if entry is None:
        return None
    return Departure(table_id=table_id, left_with=-entry.stack_posting, left_at=entry.created_at)


def day_start(now: datetime) -> datetime:
    """00:00 UTC of `now`'s day: when the ratholing count resets."""
    utc = now.astimezone(UTC)
    return utc.replace(hour=0, minute=0, second=0, microsecond=0)


def rathole_count(*, player, now: datetime) -> int:
    """Times since 00:00 UTC the player left a table with its maximum buy-in or more and sat
    at the same table again within 30 minutes (across all games), before `now`."""
    buy_ins = Entry.objects.filter(
        player=player,
        reason=Entry.Reason.BUY_IN,
        created_at__gte=day_start(now),
        created_at__lt=now,
    ).select_related("table")
    count = 0
    for buy_in in buy_ins:
        before = _cash_outs(
            player=player, before=buy_in.created_at, table_id=buy_in.table_id
        ).first()
        if before is None or buy_in.created_at - before.created_at > RATHOLE_WINDOW:
            continue
        if -before.stack_posting >= buy_in.table.max_buy_in:
            count += 1
    return count


@dataclass(frozen=True)
class BuyInTerms:
    """What a player may bring to a table now, and why when ratholing moved it: `rule` is
    None (the table's own range), "at_least_left_with", "up_to_left_with" or
    "exactly_left_with"; `until` is when the rule stops applying."""

    low: int
    high: int
    rule: str | None = None
    left_with: int | None = None
    until: datetime | None = None


def buy_in_terms_for(
    *, player, table_id: int, table_range: tuple[int, int], now: datetime
) -> BuyInTerms:
    """The player's buy-in terms at this table now; `table_range` is the table's own (min,
    max) buy-in, from its settings."""
    low, high = table_range
    departure = last_departure(player=player, table_id=table_id, now=now)
    if departure is None or now - departure.left_at > RATHOLE_WINDOW:
        return BuyInTerms(low, high)
    left = departure.left_with
    if left <= low:
        return BuyInTerms(low, high)
    until = departure.left_at + RATHOLE_WINDOW
    if left < high:
        return BuyInTerms(left, high, "at_least_left_with", left, until)
    if rathole_count(player=player, now=now) < FREQUENT_RATHOLER:
        return BuyInTerms(high, left, "up_to_left_with", left, until)
    return BuyInTerms(left, left, "exactly_left_with", left, until)


def buy_in_range_for(
    *, player, table_id: int, table_range: tuple[int, int], now: datetime
) -> tuple[int, int]:
    """(min, max) cents this player may bring to this table now (`buy_in_terms_for`)."""
    terms = buy_in_terms_for(player=player, table_id=table_id, table_range=table_range, now=now)
    return terms.low, terms.high
