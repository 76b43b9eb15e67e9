"""Bars: a player staff removed from a table stays away from it for the period staff chose.
Sitting down (and so buying in), joining the waiting list and a seat offer
there are refused until then, with the time it ends in the player's language. Other tables are
not affected."""

from __future__ import annotations

from datetime import datetime

from django.utils import formats
from django.utils.translation import gettext as _

from poker.models import TableBar
from poker.selectors import table_bar_of
from poker.services.unit import TableError


def bar_message(bar: TableBar) -> str:
    """What the player is told: who (staff, not why) and until when."""
    return _(
        "Staff removed you from this table: you may not sit down or join its waiting list here "
        "until %(until)s UTC."
    ) % {"until": formats.date_format(bar.until, "SHORT_DATETIME_FORMAT")}


def table_bar_check(*, table, player, now: datetime | None = None) -> None:
    """Refuse `player` at `table` while a bar keeps them from it."""
    bar = table_bar_of(table=table, player=player, now=now)
    if bar is not None:
        raise TableError("barred_from_table", bar_message(bar))
