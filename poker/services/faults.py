"""Faults: cancelling a hand that cannot go on (RULES.md 6) and the sweep that catches what
lost or late tasks missed, from what the database says."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from cashier import services as cashier
from poker.models import Hand, HandIncident, Seat, Table
from poker.services import timers
from poker.services.acting import hand_reveal, tidy_seats
from poker.services.dealing import table_hand_start
from poker.services.events import HandCancelled
from poker.services.seating import seat_evict
from poker.services.unit import Status, table_change
from poker.services.waiting import waiting_offers_expire

log = logging.getLogger(__name__)

# A running hand whose deadline passed this long ago and still did not move is cancelled.
STUCK_HAND_SECONDS = settings.POKER_STUCK_HAND_SECONDS


def hand_cancel(*, hand: Hand, reason: str, code: str = "cancelled", detail: str = "") -> bool:
    """Cancel a hand that cannot go on: no settlement, so every bet is back where it was;
    players are told why and staff get an incident row (RULES.md 6)."""
    with table_change(hand.table_id) as change:
        table = change.table
        hand_row = Hand.objects.filter(pk=hand.pk).first()
        if hand_row is None or hand_row.status != Hand.Status.RUNNING:
            return False
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
        return True


def tables_sweep(*, now: datetime | None = None) -> dict[str, int]:
    """Catch what lost or late tasks missed, from what the database says (idempotent):
    overdue turns, stuck hands, hands that should have started, sitters-out past the limit,
    seat offers past their time."""
    now = now or timezone.now()
    done = {"timeouts": 0, "cancelled": 0, "started": 0, "evicted": 0, "offers": 0}
    done["timeouts"], done["cancelled"] = _overdue_turns_time_out(now)
    done["cancelled"] += _stale_hands_cancel(now)
    done["started"] = _idle_tables_deal(now)
    done["evicted"] = _sitters_out_evict(now)
    try:
        done["offers"] = waiting_offers_expire(now=now)
    except Exception:
        log.exception("the sweep could not pass on overdue seat offers")
    return done


def _overdue_turns_time_out(now: datetime) -> tuple[int, int]:
    """Time out every turn past its deadline; a hand whose turn cannot be timed out and is
    overdue by STUCK_HAND_SECONDS is cancelled. (turns timed out, hands cancelled)"""
    timeouts = cancelled = 0
    overdue = Hand.objects.filter(status=Hand.Status.RUNNING, deadline__lt=now).values_list(
        "pk", "turn", "deadline"
    )
    for hand_id, turn, deadline in overdue:
        try:
            if timers.hand_turn_timeout(hand_id=hand_id, turn=turn) in ("check", "fold"):
                timeouts += 1
            continue
        except Exception:
            log.exception("the sweep could not time out hand %s", hand_id)
        if deadline is not None and deadline + timedelta(seconds=STUCK_HAND_SECONDS) < now:
            hand = Hand.objects.get(pk=hand_id)
            if hand_cancel(
                hand=hand,
                reason="The hand stopped moving, so it was cancelled.",
                code="stuck",
            ):
                cancelled += 1
    return timeouts, cancelled


def _stale_hands_cancel(now: datetime) -> int:
    """Cancel running hands that never got a deadline within STUCK_HAND_SECONDS of starting."""
    cancelled = 0
    stale = Hand.objects.filter(
        status=Hand.Status.RUNNING,
        deadline__isnull=True,
        started_at__lt=now - timedelta(seconds=STUCK_HAND_SECONDS),
    )
    for hand in stale:
        if hand_cancel(
            hand=hand, reason="The hand never got going, so it was cancelled.", code="stuck"
        ):
            cancelled += 1
    return cancelled


def _idle_tables_deal(now: datetime) -> int:
    """Deal at open tables with players, no running hand and no later start planned."""
    started = 0
    idle = (
        Table.objects.filter(is_open=True)
        .exclude(hands__status=Hand.Status.RUNNING)
        .filter(seats__isnull=False)
        .distinct()
    )
    for table in idle:
        if table.next_hand_at and table.next_hand_at > now:
            continue
        try:
            if table_hand_start(table=table.pk) is not None:
                started += 1
        except Exception:
            log.exception("the sweep could not start a hand at table %s", table.pk)
    return started


def _sitters_out_evict(now: datetime) -> int:
    """Evict the players sitting out past their table's limit (RULES.md 5)."""
    evicted = 0
    sitting_out = Seat.objects.filter(
        status=Status.SITTING_OUT, sat_out_at__isnull=False
    ).select_related("table")
    for seat in sitting_out:
        if seat.sat_out_at is None or seat.leave_pending:
            continue
        limit = seat.sat_out_at + timedelta(seconds=seat.table.sit_out_limit_seconds)
        if limit <= now:
            try:
                if seat_evict(table=seat.table_id, seat_id=seat.pk):
                    evicted += 1
            except Exception:
                log.exception("the sweep could not evict seat %s", seat.pk)
    return evicted


def _seat_players(hand_row: Hand) -> dict[str, int]:
    """Seat number (text, as JSON keys are) -> user id of everyone dealt in, for the incident."""
    return {str(seat): user_id for seat, user_id in hand_row.player_ids().items()}
