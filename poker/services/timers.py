"""Turn timers, held turns, and scheduling what comes next after a change commits.

A turn's deadline goes on commit to the timekeeper (poker/timekeeper.py), replacing the turn
before, so a player who acts in time costs no task; a timekeeper sends `poker.turn_timeout`
only once the deadline has passed. The sweep (`faults.tables_sweep`) acts on the stored
deadline when anything on that path is lost or late.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from poker import timekeeper
from poker.models import Hand, Table
from poker.services.acting import advance, turn_clock
from poker.services.unit import HandRefused, TableChange, load, table_change

log = logging.getLogger(__name__)


def schedule(items: list[tuple[str, int, int | None, float]]) -> None:
    """After commit, pass on what a change asked for: ("turn_deadline", hand id, turn, Unix
    time) and ("turn_clear", hand id, turn, 0) to the timekeeper, ("hand_start", table id,
    None, countdown) as a task. Redis or a broker that is down loses them: the sweep acts on
    what the database says."""
    deadlines = [
        (key, turn, datetime.fromtimestamp(at, UTC))
        for kind, key, turn, at in items
        if kind == "turn_deadline" and turn is not None
    ]
    cleared = [
        (key, turn) for kind, key, turn, _ in items if kind == "turn_clear" and turn is not None
    ]
    starts = [(key, countdown) for kind, key, _, countdown in items if kind == "hand_start"]

    def send() -> None:
        from poker.tasks import start_next_hand

        timekeeper.deadlines_write(deadlines)
        for hand_id, turn in cleared:
            timekeeper.deadline_clear(hand_id, turn)
        for table_id, countdown in starts:
            try:
                start_next_hand.apply_async(
                    args=(table_id,),
                    countdown=max(countdown, 0.0),
                    queue=settings.CELERY_TASK_DEFAULT_QUEUE,
                )
            except Exception:
                log.exception("could not schedule the next hand at table %s", table_id)

    transaction.on_commit(send)


def hand_turn_timeout(
    *, hand_id: int, turn: int, broadcast_healed_at: datetime | None = None
) -> str:
    """The timer of one turn: nothing if the turn moved on or the deadline moved later;
    else check if possible, otherwise fold, and sit the player out when the hand ends.

    `broadcast_healed_at` set means the room cannot reach its players until then
    (config.channel_health): the turn is held (`turn_hold`), not timed out."""
    # Turns only grow and a hand only leaves "running": a timer whose turn has passed
    # can tell without waiting for the table lock (most timers are, players act).
    hand_row = Hand.objects.filter(pk=hand_id).only("table_id", "status", "turn").first()
    if hand_row is None:
        return "gone"
    if hand_row.status != Hand.Status.RUNNING or hand_row.turn != turn:
        return "moved_on"
    try:
        with table_change(hand_row.table_id) as change:
            hand_row = Hand.objects.with_deck().get(pk=hand_id)
            if hand_row.status != Hand.Status.RUNNING or hand_row.turn != turn:
                return "moved_on"
            now = timezone.now()
            if hand_row.deadline is not None and now < hand_row.deadline:
                change.schedule_turn_timer(hand_row)  # the deadline moved later: keep it
                return "not_yet"
            if broadcast_healed_at is not None:
                turn_hold(change, hand_row, healed_at=broadcast_healed_at, now=now)
                return "held"
            engine = load(hand_row)
            since = len(engine.events)
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
            change.event("timeout", seat=seat_number, hand_id=hand_row.pk, action=action)
            advance(change, hand_row, engine, since=since, now=now)
            return action
    except HandRefused:
        return "cancelled"


def turn_hold(change: TableChange, hand_row: Hand, *, healed_at: datetime, now: datetime) -> bool:
    """The room cannot reach its players until `healed_at` (its broadcast path lost its
    groups): a turn whose clock would run out before then, or too soon after for the player
    to see it, runs until a full turn after it (docs/rules.md "Silent tables"). True if the
    deadline moved."""
    table: Table = change.table
    margin = timedelta(seconds=min(table.countdown_seconds, table.action_seconds))
    if hand_row.deadline is None or hand_row.deadline >= healed_at + margin:
        return False
    engine = load(hand_row)
    # The clock restarts now (so the page's countdown and clock sync stay true) and runs
    # until a whole turn (and the player's time bank) after the path is healed.
    hand_row.action_started_at = now
    hand_row.time_bank_from, hand_row.deadline = turn_clock(change, engine.to_act, start=healed_at)
    hand_row.save(update_fields=["action_started_at", "time_bank_from", "deadline"])
    change.hand(hand_row, engine, len(engine.events), moved=False)
    change.schedule_turn_timer(hand_row)
    return True


def hands_hold(*, healed_at: datetime, now: datetime | None = None) -> int:
    """Hold every running turn that would time out before the room can reach its players
    again (`healed_at`); one transaction per hand. Returns how many deadlines moved."""
    now = now or timezone.now()
    held = 0
    running = Hand.objects.filter(status=Hand.Status.RUNNING, deadline__isnull=False)
    rows = running.values_list(
        "pk", "deadline", "table__countdown_seconds", "table__action_seconds"
    )
    for hand_id, deadline, countdown_seconds, action_seconds in rows:
        if deadline >= healed_at + timedelta(seconds=min(countdown_seconds, action_seconds)):
            continue
        try:
            table_id = Hand.objects.values_list("table_id", flat=True).get(pk=hand_id)
            with table_change(table_id) as change:
                hand_row = Hand.objects.with_deck().get(pk=hand_id)
                if hand_row.status == Hand.Status.RUNNING and turn_hold(
                    change, hand_row, healed_at=healed_at, now=now
                ):
                    held += 1
        except HandRefused:
            pass  # table_change cancelled it
        except Exception:
            log.exception("could not hold the turn of hand %s", hand_id)
    return held
