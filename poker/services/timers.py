"""What the room's timers do (`config.timeouts`): a turn's timeout, the next hand's start and
a sitter-out's eviction.

Each timer carries the step it was set for and first reads it without the table's lock: most
turn timers find that the player acted in time, and cost one indexed read. Only a due one
takes the lock, through its service, which checks again. The sweep (`faults.tables_sweep`)
acts on the stored deadlines when a timer is lost or late.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.utils import timezone

from config.timeouts import Timeout, timeouts_set
from poker.models import Hand, Seat
from poker.services.acting import advance, sat_out_step
from poker.services.dealing import table_hand_start
from poker.services.events import TimedOut
from poker.services.seating import seat_evict
from poker.services.unit import HandRefused, Status, TableError, load, table_change

log = logging.getLogger(__name__)


def table_start_timeout(*, table_id: int) -> str:
    """The next hand's timer: deal if the table is ready ("dealt"); nothing if a hand is
    already running ("moved_on") or the table is not ready ("not_ready")."""
    if Hand.objects.filter(table_id=table_id, status=Hand.Status.RUNNING).exists():
        return "moved_on"
    try:
        return "dealt" if table_hand_start(table=table_id) is not None else "not_ready"
    except TableError:
        return "gone"


def seat_sit_out_timeout(*, table_id: int, seat_id: int, sat_out: int, now=None) -> str:
    """A sitter-out's eviction timer (RULES.md 5): evict if the seat is still sitting out since
    the moment `sat_out` (`acting.sat_out_step`) and the table's limit has passed."""
    now = now or timezone.now()
    seat = (
        Seat.objects.filter(pk=seat_id, table_id=table_id)
        .values_list("status", "sat_out_at", "table__sit_out_limit_seconds")
        .first()
    )
    if seat is None:
        return "gone"
    status, sat_out_at, limit_seconds = seat
    if status != Status.SITTING_OUT or sat_out_at is None or sat_out_step(sat_out_at) != sat_out:
        return "moved_on"
    due = sat_out_at + timedelta(seconds=limit_seconds)
    if now < due:  # staff gave the table a longer limit: wait for it
        timeouts_set(
            [
                Timeout.due_at(
                    "poker.sit_out", table_id=table_id, ref_id=seat_id, step=sat_out, at=due
                )
            ]
        )
        return "not_yet"
    try:
        return "evicted" if seat_evict(table=table_id, seat_id=seat_id) else "moved_on"
    except TableError:
        return "gone"


def hand_turn_passed(*, hand_id: int, turn: int) -> str:
    """ "gone" or "moved_on" when the hand's `turn` is over, "" while it is still being played:
    one indexed read, no lock. Turns only grow and a hand only leaves "running", so a timer
    whose turn has passed (most of them: players act in time) ends here."""
    status_turn = Hand.objects.filter(pk=hand_id).values_list("status", "turn").first()
    if status_turn is None:
        return "gone"
    if status_turn != (Hand.Status.RUNNING, turn):
        return "moved_on"
    return ""


def hand_turn_timeout(*, hand_id: int, turn: int) -> str:
    """The timer of one turn: nothing if the turn moved on or the deadline moved later;
    else check if possible, otherwise fold, and sit the player out when the hand ends."""
    passed = hand_turn_passed(hand_id=hand_id, turn=turn)
    if passed:
        return passed
    table_id = Hand.objects.values_list("table_id", flat=True).get(pk=hand_id)
    try:
        with table_change(table_id) as change:
            hand_row = Hand.objects.with_deck().get(pk=hand_id)
            if hand_row.status != Hand.Status.RUNNING or hand_row.turn != turn:
                return "moved_on"
            now = timezone.now()
            if hand_row.deadline is not None and now < hand_row.deadline:
                change.schedule_turn_timer(hand_row)  # the deadline moved later: keep it
                return "not_yet"
            engine = load(hand_row)
            since = len(engine.events)
            if engine.deciding_runs:  # not everyone agreed in time: run it once
                engine.run_once()
                change.seats_fresh = True
                advance(change, hand_row, engine, since=since, now=now)
                return "runs_once"
            action = engine.default_action()  # IllegalAction when nobody is to act
            seat_number = engine.to_act
            assert seat_number is not None  # default_action found the player to act
            engine.act(seat_number, action)
            timed_out = change.seats().get(seat_number)
            if timed_out is not None:
                timed_out.time_out_pending = True
                timed_out.time_bank = 0  # the deadline came after the whole time bank
                change.save_later(timed_out, ["time_out_pending", "time_bank"])
            change.seats_fresh = True  # a timeout alters seats only through change.seats()
            change.event(
                TimedOut(type="timeout", seat=seat_number, hand_id=hand_row.pk, action=action)
            )
            advance(change, hand_row, engine, since=since, now=now)
            return action
    except HandRefused:
        return "cancelled"
