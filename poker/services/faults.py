"""Faults: cancelling a hand that cannot go on (RULES.md 6) and the sweep that catches what
lost or late tasks missed, from what the database says."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.utils import timezone

from cashier import services as cashier
from poker.models import Hand, HandIncident, Seat, Table
from poker.services import timers
from poker.services.acting import hand_reveal, tidy_seats
from poker.services.dealing import table_hand_start
from poker.services.events import HandCancelled
from poker.services.seating import seat_evict
from poker.services.unit import Status, TableChange, table_change
from poker.services.waiting import table_offers_pass, waiting_offers_due

log = logging.getLogger(__name__)

# A running hand whose deadline passed this long ago and still did not move is cancelled.
STUCK_HAND_SECONDS = settings.POKER_STUCK_HAND_SECONDS


def hand_cancel(*, hand: Hand, reason: str, code: str = "cancelled", detail: str = "") -> bool:
    """Cancel a hand that cannot go on: no settlement, so every bet is back where it was;
    players are told why and staff get an incident row (RULES.md 6)."""
    with table_change(hand.table_id) as change:
        hand_row = Hand.objects.filter(pk=hand.pk).first()
        if hand_row is None or hand_row.status != Hand.Status.RUNNING:
            return False
        hand_cancel_in(change, hand_row, reason=reason, code=code, detail=detail)
        return True


def hand_cancel_in(
    change: TableChange, hand_row: Hand, *, reason: str, code: str = "cancelled", detail: str = ""
) -> None:
    """`hand_cancel` in a change that already holds the hand's table (a Sit & Go cancelled
    by staff: tournaments.services): every bet back where it was, the players told why."""
    table = change.table
    now = timezone.now()
    cashier.hand_release(table_id=table.pk, hand_id=hand_row.pk)
    hand_row.status = Hand.Status.CANCELLED
    hand_row.cancel_reason = reason
    hand_row.ended_at = now
    hand_row.deadline = None
    hand_row.save()
    HandIncident.objects.create(
        hand=hand_row,
        table=table,
        code=code,
        reason=reason,
        detail={"detail": detail, "turn": hand_row.turn, "players": _seat_players(hand_row)},
    )
    log.error("hand %s at table %s cancelled: %s (%s)", hand_row.pk, table.pk, reason, detail)
    table.last_hand_ended_at = now
    table.next_hand_at = now + timedelta(seconds=table.next_hand_delay_seconds)
    table.save(update_fields=["last_hand_ended_at", "next_hand_at"])
    change.event(
        HandCancelled(type="hand_cancelled", hand_id=hand_row.pk, reason=reason, code=code)
    )
    hand_reveal(change, hand_row, now)
    tidy_seats(change, now)
    change.schedule_hand_start(table.next_hand_delay_seconds)


# What the sweep found due at one table (a JSON-ready dict, as the owner's command carries
# it): {"do": "turn" | "stale" | "deal" | "evict" | "offers", "table": id,
# "hand"/"turn"/"seat": ids, "now": ISO time}.
SweepItem = dict[str, Any]


def tables_sweep(
    *, now: datetime | None = None, at_owner: Callable[[int, SweepItem], bool] | None = None
) -> dict[str, int]:
    """Catch what lost or late tasks missed, from what the database says (idempotent):
    overdue turns, stuck hands, hands that should have started, sitters-out past the limit,
    seat offers past their time.

    Each is one change at one table. `at_owner(table_id, item)` sends it to the table's live
    owner (poker/tasks.py: True when sent; the owner runs `sweep_item_run`, which checks again
    that it is still due); else, or without `at_owner`, it runs here. The counts are of what
    was done here ("timeouts": turns timed out, "cancelled": stuck hands, "started": hands
    dealt, "evicted": sitters-out, "offers": tables whose offers were looked at), and "sent":
    the items sent to owners, whatever they turn out to do."""
    now = now or timezone.now()
    done = {"timeouts": 0, "cancelled": 0, "started": 0, "evicted": 0, "offers": 0, "sent": 0}
    for table_id, item in _sweep_items(now):
        item["now"] = now.isoformat()
        if at_owner is not None and at_owner(table_id, item):
            done["sent"] += 1
            continue
        outcome = sweep_item_run(item=item, now=now)
        if outcome:
            done[outcome] += 1
    return done


def _sweep_items(now: datetime) -> Iterator[tuple[int, SweepItem]]:
    """What is due, table by table, in the sweep's order: turns, stale hands, deals,
    evictions, offers."""
    overdue = Hand.objects.filter(status=Hand.Status.RUNNING, deadline__lt=now).values_list(
        "table_id", "pk", "turn"
    )
    for table_id, hand_id, turn in list(overdue):
        yield table_id, {"do": "turn", "table": table_id, "hand": hand_id, "turn": turn}
    stale = Hand.objects.filter(
        status=Hand.Status.RUNNING,
        deadline__isnull=True,
        started_at__lt=now - timedelta(seconds=STUCK_HAND_SECONDS),
    ).values_list("table_id", "pk")
    for table_id, hand_id in list(stale):
        yield table_id, {"do": "stale", "table": table_id, "hand": hand_id}
    # A table where a hand could start: open, none running or planned, two seats taken at
    # least (a lone player waiting for opponents is not sent to the owner every sweep).
    idle = (
        Table.objects.filter(is_open=True)
        .exclude(hands__status=Hand.Status.RUNNING)
        .exclude(next_hand_at__gt=now)
        .exclude(break_until__gt=now)
        .annotate(seated=Count("seats"))
        .filter(seated__gte=2)
        .values_list("pk", flat=True)
    )
    for table_id in list(idle):
        yield table_id, {"do": "deal", "table": table_id}
    sitting_out = Seat.objects.filter(
        status=Status.SITTING_OUT, sat_out_at__isnull=False, leave_pending=False
    ).values_list("table_id", "pk", "sat_out_at", "table__sit_out_limit_seconds")
    for table_id, seat_id, sat_out_at, limit in list(sitting_out):
        if sat_out_at is not None and sat_out_at + timedelta(seconds=limit) <= now:
            yield table_id, {"do": "evict", "table": table_id, "seat": seat_id}
    try:
        offers = waiting_offers_due(now=now)
    except Exception:
        log.exception("the sweep could not look for overdue seat offers")
        offers = []
    for table_id in offers:
        yield table_id, {"do": "offers", "table": table_id}


def sweep_item_run(*, item: SweepItem, now: datetime | None = None) -> str:
    """Do one thing the sweep found due, if it still is (the turn may have moved on, the
    player sat in, the hand started): at the table's owner or where the sweep runs. Returns
    the count of `tables_sweep` it adds to, or "" when nothing was done. A failure is logged,
    not raised: the sweep goes on, and the next one tries again."""
    if now is None:
        now = datetime.fromisoformat(item["now"]) if item.get("now") else timezone.now()
    do, table_id = item["do"], item["table"]
    try:
        if do == "turn":
            return _overdue_turn_time_out(item["hand"], item["turn"], now)
        if do == "stale":
            return "cancelled" if _stale_hand_cancel(item["hand"], now) else ""
        if do == "deal":
            return "started" if table_hand_start(table=table_id) is not None else ""
        if do == "evict":
            return "evicted" if seat_evict(table=table_id, seat_id=item["seat"]) else ""
        if do == "offers":
            table_offers_pass(table_id=table_id, now=now)
            return "offers"
    except Exception:
        log.exception("the sweep could not %s at table %s (%s)", do, table_id, item)
        return ""
    raise ValueError(f"the sweep does not know {do!r}")


def _overdue_turn_time_out(hand_id: int, turn: int, now: datetime) -> str:
    """Time out a turn past its deadline ("timeouts"); a hand whose turn cannot be timed out
    and is overdue by STUCK_HAND_SECONDS is cancelled ("cancelled")."""
    try:
        if timers.hand_turn_timeout(hand_id=hand_id, turn=turn) in ("check", "fold"):
            return "timeouts"
        return ""
    except Exception:
        log.exception("the sweep could not time out hand %s", hand_id)
    hand = Hand.objects.filter(pk=hand_id, status=Hand.Status.RUNNING).first()
    if hand is None or hand.deadline is None:
        return ""
    if hand.deadline + timedelta(seconds=STUCK_HAND_SECONDS) >= now:
        return ""
    cancelled = hand_cancel(
        hand=hand, reason="The hand stopped moving, so it was cancelled.", code="stuck"
    )
    return "cancelled" if cancelled else ""


def _stale_hand_cancel(hand_id: int, now: datetime) -> bool:
    """Cancel a running hand that never got a deadline within STUCK_HAND_SECONDS of starting
    (if it still has none)."""
    hand = Hand.objects.filter(
        pk=hand_id,
        status=Hand.Status.RUNNING,
        deadline__isnull=True,
        started_at__lt=now - timedelta(seconds=STUCK_HAND_SECONDS),
    ).first()
    if hand is None:
        return False
    return hand_cancel(
        hand=hand, reason="The hand never got going, so it was cancelled.", code="stuck"
    )


def _seat_players(hand_row: Hand) -> dict[str, int]:
    """Seat number (text, as JSON keys are) -> user id of everyone dealt in, for the incident."""
    return {str(seat): user_id for seat, user_id in hand_row.player_ids().items()}
