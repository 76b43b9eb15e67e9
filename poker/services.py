"""Live tables: seating, hands that run themselves, actions, timers and cancellation.

Every service is one transaction: lock the table row (`select_for_update`), load, call the
engine, save, post to the cashier in the same transaction, and only after commit broadcast the
change (`poker.broadcast`) and schedule what comes next (`poker.tasks`). The table lock
serialises everything that happens at one table, on any number of processes.

Refusals raise `TableError(code, message)` before anything is written. A hand whose stored
state the engine refuses is cancelled (`hand_cancel`): the cashier never saw its bets (a hand
posts once, when it settles), so every chip is back where it was.
"""

from __future__ import annotations

import logging
import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from cashier import services as cashier
from cashier.selectors import table_stack_balance, table_stacks
from config.errors import Refused
from config.inputs import parse_cents
from poker import broadcast
from poker.engine import dealer
from poker.engine.hand import Hand as EngineHand
from poker.engine.hand import IllegalAction, ReplayMismatch
from poker.models import Hand, HandIncident, Seat, Table
from responsible import rules as responsible

log = logging.getLogger(__name__)

MAX_SEQ = 10**11  # a client counter larger than this is a bad frame, not a long session
# A running hand whose deadline passed this long ago and still did not move is cancelled.
STUCK_HAND_SECONDS = settings.POKER_STUCK_HAND_SECONDS
# Tolerance for a start-next-hand task arriving a little before its countdown.
START_SLACK_SECONDS = 0.25

Status = Seat.Status


class TableError(Refused):
    """A refused request at a table: `code` for programs, `message` for people. Nothing changed."""


class _HandRefused(Exception):
    """The engine refused a stored hand: it must be cancelled (in a transaction of its own)."""

    def __init__(self, hand_id: int, code: str, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.hand_id = hand_id
        self.code = code
        self.reason = reason
        self.detail = detail


# ------------------------------------------------------------------ validation


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_amount(amount: Any, what: str) -> int:
    """Whole cents, 1 to 10^11, by the room's one rule (config.inputs): `bad_amount` else."""
    return parse_cents(amount, field=what, error=TableError)


def _check_bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise TableError("bad_field", f"{what} must be true or false, not {value!r}.")
    return value


# ------------------------------------------------------------------ the change being made


class _Change:
    """What one service did, for the broadcast after commit."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.events: list[dict[str, Any]] = []
        self.hand_row: Hand | None = None
        self.engine: EngineHand | None = None
        self.since = 0
        self.users: set[int] = set()

    def event(self, kind: str, **fields: Any) -> None:
        self.events.append({"type": kind, **fields})

    def hand(self, hand_row: Hand, engine: EngineHand, since: int) -> None:
        if self.hand_row is None or self.hand_row.pk != hand_row.pk:
            self.since = since
        self.hand_row, self.engine = hand_row, engine


def _publish(change: _Change) -> None:
    """Bump the table's version, build every recipient's frame now, send them after commit."""
    table = change.table
    table.version += 1
    table.save(update_fields=["version"])
    frames = broadcast.frames_for_change(
        table=table,
        events=change.events,
        hand_row=change.hand_row,
        engine=change.engine,
        since=change.since,
        extra_user_ids=change.users,
    )
    transaction.on_commit(lambda: broadcast.send(table_id=table.pk, frames=frames))
    if any(event["type"] in ("player_sat", "player_left") for event in change.events):
        seats_taken = Seat.objects.filter(table=table).count()
        transaction.on_commit(
            lambda: broadcast.send_lobby(table_id=table.pk, seats_taken=seats_taken)
        )


def _schedule_turn_timer(hand_row: Hand, now: datetime) -> None:
    hand_id, turn = hand_row.pk, hand_row.turn
    countdown = max((hand_row.deadline - now).total_seconds(), 0.0)

    def send() -> None:
        from poker.tasks import turn_timeout

        try:
            turn_timeout.apply_async(
                args=(hand_id, turn),
                countdown=countdown,
                queue=settings.CELERY_TASK_DEFAULT_QUEUE,
            )
        except Exception:  # the broker is down: the sweep acts on the stored deadline
            log.exception("could not schedule the timer of hand %s turn %s", hand_id, turn)

    transaction.on_commit(send)


def _schedule_hand_start(table: Table, countdown: float) -> None:
    table_id = table.pk

    def send() -> None:
        from poker.tasks import start_next_hand

        try:
            start_next_hand.apply_async(
                args=(table_id,),
                countdown=max(countdown, 0.0),
                queue=settings.CELERY_TASK_DEFAULT_QUEUE,
            )
        except Exception:  # the sweep starts hands that should have started
            log.exception("could not schedule the next hand at table %s", table_id)

    transaction.on_commit(send)


# ------------------------------------------------------------------ loading


def _deal_soon_if_idle(table: Table) -> None:
    """A player became ready: with no hand running, the next one may now be possible."""
    if _running_hand(table) is None:
        _schedule_hand_start(table, table.next_hand_delay_seconds)


def _lock_table(table: Table | int) -> Table:
    table_id = table if _is_int(table) else getattr(table, "pk", None)
    locked = Table.objects.select_for_update().filter(pk=table_id).first()
    if locked is None:
        raise TableError("no_table", "There is no such table.")
    return locked


def _seat_of(table: Table, player) -> Seat:
    seat = Seat.objects.filter(table=table, player=player).first()
    if seat is None:
        raise TableError("not_seated", "You have no seat at this table.")
    return seat


def _running_hand(table: Table) -> Hand | None:
    return Hand.objects.filter(table=table, status=Hand.Status.RUNNING).first()


def _load(hand_row: Hand) -> EngineHand:
    """The engine's hand from the stored state, checked by replaying it from its inputs."""
    try:
        engine = EngineHand.from_dict(hand_row.state)
        replayed = EngineHand.replay(engine.setup, engine.events)
        if replayed.to_dict() != engine.to_dict():
            raise ReplayMismatch("the stored state is not what its events give")
        if engine.deck != hand_row.deck:
            raise ReplayMismatch("the stored deck is not the deck the hand was dealt from")
        if sorted(int(seat) for seat in hand_row.players) != sorted(engine.seats):
            raise ReplayMismatch("the hand's players do not match its seats")
        if engine.is_over:
            raise ReplayMismatch("a running hand whose state says it is over")
    except Exception as error:  # anything the engine or the data refuses
        raise _HandRefused(
            hand_row.pk,
            "state_refused",
            "The hand's saved state could not be read back, so it was cancelled.",
            f"{type(error).__name__}: {error}",
        ) from error
    return engine


def _peek(hand_row: Hand) -> EngineHand | None:
    """The stored hand without the replay check, for reads that change nothing."""
    try:
        return EngineHand.from_dict(hand_row.state)
    except Exception:
        return None


# ------------------------------------------------------------------ seating


def table_sit(
    *,
    table: Table,
    player,
    seat_number: int,
    buy_in: int,
    post_big_blind: bool,
    idempotency_key: str,
) -> Seat:
    """Take a free seat with a buy-in from the wallet; wait for the big blind or post one now."""
    if not _is_int(seat_number):
        raise TableError("bad_seat", f"A seat is a seat number, not {seat_number!r}.")
    buy_in = _check_amount(buy_in, "buy-in")
    post_big_blind = _check_bool(post_big_blind, "post_big_blind")
    try:
        with transaction.atomic():
            table = _lock_table(table)
            if not table.is_open:
                raise TableError("table_closed", "This table is closed.")
            if not 1 <= seat_number <= table.max_seats:
                raise TableError(
                    "bad_seat", f"Seats at this table run from 1 to {table.max_seats}."
                )
            if Seat.objects.filter(table=table, player=player).exists():
                raise TableError("already_seated", "You already have a seat at this table.")
            responsible.check_play(player=player, error=TableError)
            if Seat.objects.filter(table=table, number=seat_number).exists():
                raise TableError("seat_taken", f"Seat {seat_number} is taken.")
            cashier.table_buy_in(
                player=player, table=table, amount=buy_in, idempotency_key=idempotency_key
            )
            seat = Seat.objects.create(
                table=table,
                number=seat_number,
                player=player,
                status=Status.PLAYING if post_big_blind else Status.WAITING_BIG_BLIND,
                posts_big_blind_next=post_big_blind,
            )
            change = _Change(table)
            change.event(
                "player_sat",
                seat=seat_number,
                player=broadcast.player_json(player),
                status=seat.status,
            )
            change.users.add(player.pk)
            _publish(change)
            _deal_soon_if_idle(table)
            return seat
    except cashier.CashierError as error:
        raise TableError(error.code, error.message) from error


def table_leave(*, table: Table, player) -> None:
    """Stand up. In a hand: checked or folded at each turn, cashed out when it ends."""
    with transaction.atomic():
        table = _lock_table(table)
        seat = _seat_of(table, player)
        change = _Change(table)
        change.users.add(player.pk)
        hand_row = _running_hand(table)
        if hand_row is not None and str(seat.number) in hand_row.players:
            seat.leave_pending = True
            seat.save(update_fields=["leave_pending"])
            change.event("player_leaving", seat=seat.number)
            engine = _load_or_none(hand_row)
            if engine is not None and engine.to_act == seat.number:
                since = len(engine.events)
                _advance(table, hand_row, engine, change, since=since, now=timezone.now())
        else:
            _remove_seat(table, seat, change, reason="left")
        _publish(change)


def _load_or_none(hand_row: Hand) -> EngineHand | None:
    try:
        return _load(hand_row)
    except _HandRefused:
        return None  # the sweep cancels it in its own transaction


def table_sit_out(*, table: Table, player) -> Seat:
    """Stop being dealt in from the next hand; the current hand goes on as usual."""
    with transaction.atomic():
        table = _lock_table(table)
        seat = _seat_of(table, player)
        if seat.status == Status.SITTING_OUT:
            raise TableError("already_sitting_out", "You are already sitting out.")
        _sit_out(seat, timezone.now())
        change = _Change(table)
        change.event("player_sat_out", seat=seat.number, reason="asked")
        change.users.add(player.pk)
        _publish(change)
        return seat


def _sit_out(seat: Seat, now: datetime) -> None:
    seat.status = Status.SITTING_OUT
    seat.sat_out_at = now
    seat.posts_big_blind_next = False
    seat.save(update_fields=["status", "sat_out_at", "posts_big_blind_next"])


def table_sit_in(*, table: Table, player, post_big_blind: bool) -> Seat:
    """Come back; one who missed the big blind waits for it or posts one now (RULES.md 4)."""
    post_big_blind = _check_bool(post_big_blind, "post_big_blind")
    with transaction.atomic():
        table = _lock_table(table)
        seat = _seat_of(table, player)
        if seat.status != Status.SITTING_OUT:
            raise TableError("not_sitting_out", "You are not sitting out.")
        responsible.check_play(player=player, error=TableError)
        if table_stack_balance(player=player, table=table) <= 0:
            raise TableError("no_chips", "You have no chips here: top up first.")
        if seat.missed_big_blind:
            seat.status = Status.PLAYING if post_big_blind else Status.WAITING_BIG_BLIND
            seat.posts_big_blind_next = post_big_blind
        else:
            seat.status = Status.PLAYING
            seat.posts_big_blind_next = False
        seat.sat_out_at = None
        seat.time_out_pending = False
        seat.save()
        change = _Change(table)
        change.event("player_sat_in", seat=seat.number, status=seat.status)
        change.users.add(player.pk)
        _publish(change)
        _deal_soon_if_idle(table)
        return seat


def table_big_blind_choose(*, table: Table, player, post_now: Any) -> Seat:
    """Change a waiting player's mind before they are dealt in (RULES.md 4): post a big blind
    at the next hand (`post_now`), or go back to waiting for the big blind to reach them."""
    post_now = _check_bool(post_now, "post_now")
    with transaction.atomic():
        table = _lock_table(table)
        seat = _seat_of(table, player)
        if post_now:
            if seat.status != Status.WAITING_BIG_BLIND:
                raise TableError("not_waiting", "You are not waiting for the big blind.")
            seat.status, seat.posts_big_blind_next = Status.PLAYING, True
        else:
            if not (seat.status == Status.PLAYING and seat.posts_big_blind_next):
                raise TableError(
                    "not_posting", "You are not about to post a big blind: nothing to wait for."
                )
            seat.status, seat.posts_big_blind_next = Status.WAITING_BIG_BLIND, False
        seat.save(update_fields=["status", "posts_big_blind_next"])
        change = _Change(table)
        change.event(
            "big_blind_choice",
            seat=seat.number,
            status=seat.status,
            posts_big_blind=seat.posts_big_blind_next,
        )
        change.users.add(player.pk)
        _publish(change)
        _deal_soon_if_idle(table)
        return seat


def table_top_up(*, table: Table, player, amount: int, idempotency_key: str) -> None:
    """Add chips between hands; with no chips left it is a fresh buy-in (the cashier's rules)."""
    amount = _check_amount(amount, "top-up")
    try:
        with transaction.atomic():
            table = _lock_table(table)
            seat = _seat_of(table, player)
            hand_row = _running_hand(table)
            if hand_row is not None and str(seat.number) in hand_row.players:
                raise TableError("in_hand", "You cannot top up during a hand; wait for it to end.")
            before = table_stack_balance(player=player, table=table)
            if before > 0:
                cashier.table_top_up(
                    player=player, table=table, amount=amount, idempotency_key=idempotency_key
                )
            else:
                cashier.table_buy_in(
                    player=player, table=table, amount=amount, idempotency_key=idempotency_key
                )
            if table_stack_balance(player=player, table=table) == before:
                return  # the same request again (its idempotency key): it moved money once
            change = _Change(table)
            change.event("player_topped_up", seat=seat.number, amount=amount)
            change.users.add(player.pk)
            _publish(change)
    except cashier.CashierError as error:
        raise TableError(error.code, error.message) from error


def table_connection_set(*, table: Table, player, connected: bool, socket: str = "") -> None:
    """A player's socket came or went; a disconnected player to act gets the grace time.

    `socket` names the socket (its channel): when a page reloads, the old socket's goodbye
    may arrive after the new one's hello, and must not mark the player as gone.
    """
    with transaction.atomic():
        table = _lock_table(table)
        seat = Seat.objects.filter(table=table, player=player).first()
        if seat is None:
            return
        if not connected and socket and seat.socket not in ("", socket):
            return  # an older socket going away: a newer one is live
        seat.socket = socket if connected else ""
        if seat.connected == connected:
            seat.save(update_fields=["socket"])
            return
        now = timezone.now()
        seat.connected = connected
        seat.disconnected_at = None if connected else now
        seat.save(update_fields=["connected", "disconnected_at", "socket"])
        change = _Change(table)
        change.event("player_connection", seat=seat.number, connected=connected)
        hand_row = _running_hand(table)
        if not connected and hand_row is not None and hand_row.action_started_at:
            engine = _peek(hand_row)
            if engine is not None and engine.to_act == seat.number:
                graced = hand_row.action_started_at + timedelta(
                    seconds=table.action_seconds + table.disconnect_grace_seconds
                )
                if graced > hand_row.deadline:
                    hand_row.deadline = graced
                    hand_row.save(update_fields=["deadline"])
                    change.hand(hand_row, engine, len(engine.events))
        _publish(change)


def seat_evict(*, table: Table, seat_id: int, reason: str = "sit_out_limit") -> bool:
    """Remove a player sitting out past the limit and cash them out (RULES.md 5)."""
    with transaction.atomic():
        table = _lock_table(table)
        seat = Seat.objects.filter(pk=seat_id, table=table).first()
        now = timezone.now()
        if (
            seat is None
            or seat.status != Status.SITTING_OUT
            or seat.sat_out_at is None
            or seat.sat_out_at + timedelta(seconds=table.sit_out_limit_seconds) > now
        ):
            return False
        change = _Change(table)
        change.users.add(seat.player_id)
        hand_row = _running_hand(table)
        if hand_row is not None and str(seat.number) in hand_row.players:
            if seat.leave_pending:
                return False
            seat.leave_pending = True
            seat.save(update_fields=["leave_pending"])
        else:
            _remove_seat(table, seat, change, reason=reason)
        _publish(change)
        return True


def _remove_seat(table: Table, seat: Seat, change: _Change, *, reason: str) -> None:
    cashier.table_cash_out(player=seat.player, table=table)
    change.event(
        "player_left", seat=seat.number, player=broadcast.player_json(seat.player), reason=reason
    )
    change.users.add(seat.player_id)
    seat.delete()


# ------------------------------------------------------------------ starting a hand


def _draw_button(seats: list[int]) -> tuple[int, dict[int, str]]:
    """High card for the button, one card each from a CSPRNG shuffle (RULES.md 4)."""
    deck = dealer.shuffle_deck(secrets.randbelow)
    cards = {seat: deck[k] for k, seat in enumerate(sorted(seats))}
    return dealer.draw_for_button(cards), cards


def _plan_deal(table: Table, seats: list[Seat], stacks: dict[int, int]) -> dict | None:
    """Who is dealt in, the button and the blinds (RULES.md 4), or None if no hand can start."""
    ready = {
        seat.number: seat
        for seat in seats
        if seat.status != Status.SITTING_OUT
        and not seat.leave_pending
        and not seat.time_out_pending
        and stacks.get(seat.player_id, 0) > 0
    }
    active = [n for n, seat in ready.items() if seat.status == Status.PLAYING]
    waiting = [n for n, seat in ready.items() if seat.status == Status.WAITING_BIG_BLIND]
    fresh = table.button_seat is None or len(active) < 2
    if fresh:  # nobody to wait behind: everyone ready is dealt in, nobody posts extra
        active, waiting = sorted(active + waiting), []
    if len(active) < 2:
        return None
    draw = None
    if table.button_seat is None:
        button, draw = _draw_button(active)
    else:
        button = dealer.next_button(table.button_seat, active)
    small, big = dealer.blind_seats(button, active, waiting)
    dealt = sorted(active + ([big] if big in waiting else []))
    ready_enough = dealer.enough_players(
        len(dealt),
        min_players=table.min_players_to_start,
        three_to_start=table.three_to_start,
        last_hand_players=table.last_hand_players,
    )
    if not ready_enough:
        return None
    extras = []
    if not fresh:
        extras = [n for n in active if ready[n].posts_big_blind_next and n not in (small, big)]
    return {
        "dealt": dealt,
        "button": button,
        "small": small,
        "big": big,
        "extras": extras,
        "draw": draw,
        "seats": ready,
    }


def table_hand_start(*, table: Table | int) -> Hand | None:
    """Deal the next hand if the table is ready for one; else nothing (safe to call anytime)."""
    with transaction.atomic():
        table = _lock_table(table)
        now = timezone.now()
        if not table.is_open or _running_hand(table) is not None:
            return None
        if table.last_hand_ended_at is not None:
            ready_at = table.last_hand_ended_at + timedelta(
                seconds=table.next_hand_delay_seconds - START_SLACK_SECONDS
            )
            if now < ready_at:
                return None
        seats = list(Seat.objects.filter(table=table).select_related("player"))
        stacks = table_stacks(table=table)
        plan = _plan_deal(table, seats, stacks)
        if plan is None:
            return None
        ready = plan["seats"]
        deck = dealer.shuffle_deck(secrets.randbelow)
        engine = EngineHand.start(
            game=table.game,
            structure=table.structure,
            seats={n: stacks[ready[n].player_id] for n in plan["dealt"]},
            button=plan["button"],
            small_blind_seat=plan["small"],
            big_blind_seat=plan["big"],
            extra_big_blind_seats=plan["extras"],
            deck=deck,
            rake=table.engine_rake(),
            **table.engine_stakes(),
        )
        number = (Hand.objects.filter(table=table).aggregate(top=Max("number"))["top"] or 0) + 1
        hand_row = Hand.objects.create(
            table=table,
            number=number,
            deck=deck,
            setup=engine.setup,
            state=engine.to_dict(),
            players={str(n): ready[n].player_id for n in plan["dealt"]},
        )
        cashier.hand_stacks_commit(
            table=table, hand_id=hand_row.pk, players=[ready[n].player_id for n in plan["dealt"]]
        )
        change = _Change(table)
        if plan["draw"] is not None:
            change.event(
                "button_drawn",
                cards={str(seat): card for seat, card in plan["draw"].items()},
                button=plan["button"],
            )
        # The big blind passing a seat that sits out is a missed big blind (RULES.md 4).
        for seat in seats:
            if seat.number in plan["dealt"]:
                if seat.status != Status.PLAYING or seat.posts_big_blind_next:
                    seat.status = Status.PLAYING
                    seat.posts_big_blind_next = False
                seat.missed_big_blind = False
                seat.save(update_fields=["status", "posts_big_blind_next", "missed_big_blind"])
            elif (
                seat.status == Status.SITTING_OUT
                and table.big_blind_seat is not None
                and dealer.big_blind_passed(seat.number, table.big_blind_seat, plan["big"])
            ):
                seat.missed_big_blind = True
                seat.save(update_fields=["missed_big_blind"])
        table.button_seat = plan["button"]
        table.big_blind_seat = plan["big"]
        table.save(update_fields=["button_seat", "big_blind_seat"])
        change.hand(hand_row, engine, 0)
        _advance(table, hand_row, engine, change, since=0, now=now, new_hand=True)
        _publish(change)
        return hand_row


# ------------------------------------------------------------------ acting


def _advance(
    table: Table,
    hand_row: Hand,
    engine: EngineHand,
    change: _Change,
    *,
    since: int,
    now: datetime,
    new_hand: bool = False,
) -> None:
    """After the engine moved: play for leavers, then end the hand or start the next turn."""
    leaving = set(
        Seat.objects.filter(table=table, leave_pending=True).values_list("number", flat=True)
    )
    while not engine.is_over and engine.to_act in leaving:
        engine.act(engine.to_act, engine.default_action())
    change.hand(hand_row, engine, since)
    hand_row.state = engine.to_dict()
    if engine.is_over:
        _finish(table, hand_row, engine, change, now)
        return
    if not new_hand:
        hand_row.turn += 1
    actor = Seat.objects.filter(table=table, number=engine.to_act).first()
    seconds = table.action_seconds
    if actor is not None and not actor.connected:
        seconds += table.disconnect_grace_seconds
    hand_row.action_started_at = now
    hand_row.deadline = now + timedelta(seconds=seconds)
    hand_row.save()
    _schedule_turn_timer(hand_row, now)


def _finish(
    table: Table, hand_row: Hand, engine: EngineHand, change: _Change, now: datetime
) -> None:
    """Settle the hand in the cashier in this same transaction and tidy the seats."""
    result = engine.result
    net = {hand_row.players[str(entry["seat"])]: entry["net"] for entry in result["seats"]}
    cashier.hand_settle(table=table, hand_id=hand_row.pk, net_by_player=net, rake=result["rake"])
    hand_row.status = Hand.Status.FINISHED
    hand_row.result = result
    hand_row.ended_at = now
    hand_row.deadline = None
    hand_row.save()
    table.last_hand_players = len(engine.seats)
    table.last_hand_ended_at = now
    table.save(update_fields=["last_hand_players", "last_hand_ended_at"])
    _tidy_seats(table, change, now)
    _schedule_hand_start(table, table.next_hand_delay_seconds)


def _tidy_seats(table: Table, change: _Change, now: datetime) -> None:
    """Between hands: timed-out players sit out, leavers are cashed out, the bust sit out."""
    stacks = table_stacks(table=table)
    for seat in Seat.objects.filter(table=table).select_related("player"):
        if seat.leave_pending:
            _remove_seat(table, seat, change, reason="left")
            continue
        if seat.time_out_pending:
            seat.time_out_pending = False
            seat.save(update_fields=["time_out_pending"])
            if seat.status != Status.SITTING_OUT:
                _sit_out(seat, now)
                change.event("player_sat_out", seat=seat.number, reason="timeout")
        if stacks.get(seat.player_id, 0) <= 0 and seat.status != Status.SITTING_OUT:
            _sit_out(seat, now)
            change.event("player_sat_out", seat=seat.number, reason="no_chips")


def table_act(*, table: Table, player, action: Any, amount: Any, turn: Any, seq: Any) -> None:
    """A player's action for `turn`, with their client `seq` (a duplicate or stale one is
    refused); the engine decides if it is legal."""
    if not isinstance(action, str):
        raise TableError("bad_field", 'action must be a string such as "call".')
    if amount is not None:
        amount = _check_amount(amount, "amount")
    if not _is_int(turn) or turn < 1:
        raise TableError("bad_field", f"turn must be a positive whole number, not {turn!r}.")
    if not _is_int(seq) or seq < 1 or seq > MAX_SEQ:
        raise TableError("bad_field", f"seq must be a positive whole number, not {seq!r}.")
    try:
        with transaction.atomic():
            table = _lock_table(table)
            seat = _seat_of(table, player)
            hand_row = _running_hand(table)
            if hand_row is None:
                raise TableError("no_hand", "No hand is running at this table.")
            last = hand_row.last_seq.get(str(player.pk), 0)
            if seq <= last:
                raise TableError(
                    "duplicate_seq",
                    f"Action {seq} was already received (the last one was {last}).",
                )
            if turn != hand_row.turn:
                raise TableError(
                    "stale_turn",
                    f"That action was for turn {turn}; it is now turn {hand_row.turn}.",
                )
            if str(seat.number) not in hand_row.players:
                raise TableError("not_your_turn", "You are not in this hand.")
            engine = _load(hand_row)
            if engine.to_act != seat.number:
                raise TableError("not_your_turn", f"It is seat {engine.to_act}'s turn, not yours.")
            since = len(engine.events)
            try:
                engine.act(seat.number, action, amount)
            except IllegalAction as error:
                raise TableError(error.code, error.reason) from error
            hand_row.last_seq = {**hand_row.last_seq, str(player.pk): seq}
            change = _Change(table)
            change.users.add(player.pk)
            _advance(table, hand_row, engine, change, since=since, now=timezone.now())
            _publish(change)
    except _HandRefused as refused:
        _cancel_refused(refused)
        raise TableError("hand_cancelled", refused.reason) from refused


def hand_turn_timeout(
    *, hand_id: int, turn: int, broadcast_healed_at: datetime | None = None
) -> str:
    """The timer of one turn: nothing if the turn moved on or the deadline moved later;
    else check if possible, otherwise fold, and sit the player out when the hand ends.

    `broadcast_healed_at` set means the room cannot reach its players until then
    (config.channel_health): the turn is held (`_turn_hold`), not timed out."""
    try:
        with transaction.atomic():
            # Turns only grow and a hand only leaves "running": a timer whose turn has passed
            # can tell without waiting for the table lock (most timers are, players act).
            hand_row = Hand.objects.filter(pk=hand_id).only("table_id", "status", "turn").first()
            if hand_row is None:
                return "gone"
            if hand_row.status != Hand.Status.RUNNING or hand_row.turn != turn:
                return "moved_on"
            table = _lock_table(hand_row.table_id)
            hand_row = Hand.objects.get(pk=hand_id)
            if hand_row.status != Hand.Status.RUNNING or hand_row.turn != turn:
                return "moved_on"
            now = timezone.now()
            if hand_row.deadline is not None and now < hand_row.deadline:
                _schedule_turn_timer(hand_row, now)
                return "not_yet"
            if broadcast_healed_at is not None:
                _turn_hold(table, hand_row, healed_at=broadcast_healed_at, now=now)
                return "held"
            engine = _load(hand_row)
            seat_number = engine.to_act
            since = len(engine.events)
            action = engine.default_action()
            engine.act(seat_number, action)
            Seat.objects.filter(table=table, number=seat_number).update(time_out_pending=True)
            change = _Change(table)
            change.event("timeout", seat=seat_number, hand_id=hand_row.pk, action=action)
            _advance(table, hand_row, engine, change, since=since, now=now)
            _publish(change)
            return action
    except _HandRefused as refused:
        _cancel_refused(refused)
        return "cancelled"


# ------------------------------------------------------------------ holding turns


def _turn_hold(table: Table, hand_row: Hand, *, healed_at: datetime, now: datetime) -> bool:
    """The room cannot reach its players until `healed_at` (its broadcast path lost its
    groups): a turn whose clock would run out before then, or too soon after for the player
    to see it, runs until a full turn after it (docs/rules.md "Silent tables"). The table is
    locked by the caller. True if the deadline moved."""
    margin = timedelta(seconds=min(table.countdown_seconds, table.action_seconds))
    if hand_row.deadline is None or hand_row.deadline >= healed_at + margin:
        return False
    engine = _load(hand_row)
    actor = Seat.objects.filter(table=table, number=engine.to_act).first()
    seconds = table.action_seconds
    if actor is not None and not actor.connected:
        seconds += table.disconnect_grace_seconds
    # The clock restarts now (so the page's countdown and clock sync stay true) and runs
    # until a whole turn after the path is healed.
    hand_row.action_started_at = now
    hand_row.deadline = healed_at + timedelta(seconds=seconds)
    hand_row.save(update_fields=["action_started_at", "deadline"])
    change = _Change(table)
    change.hand(hand_row, engine, len(engine.events))
    _publish(change)
    _schedule_turn_timer(hand_row, now)
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
            with transaction.atomic():
                table = _lock_table(Hand.objects.values_list("table_id", flat=True).get(pk=hand_id))
                hand_row = Hand.objects.get(pk=hand_id)
                if hand_row.status == Hand.Status.RUNNING and _turn_hold(
                    table, hand_row, healed_at=healed_at, now=now
                ):
                    held += 1
        except _HandRefused as refused:
            _cancel_refused(refused)
        except Exception:
            log.exception("could not hold the turn of hand %s", hand_id)
    return held


# ------------------------------------------------------------------ cancelling


def _cancel_refused(refused: _HandRefused) -> None:
    hand = Hand.objects.filter(pk=refused.hand_id).first()
    if hand is not None:
        hand_cancel(hand=hand, reason=refused.reason, code=refused.code, detail=refused.detail)


def hand_cancel(*, hand: Hand, reason: str, code: str = "cancelled", detail: str = "") -> bool:
    """Cancel a hand that cannot go on: no settlement, so every bet is back where it was;
    players are told why and staff get an incident row (RULES.md 6)."""
    with transaction.atomic():
        table = _lock_table(hand.table_id)
        hand_row = Hand.objects.filter(pk=hand.pk).first()
        if hand_row is None or hand_row.status != Hand.Status.RUNNING:
            return False
        now = timezone.now()
        cashier.hand_release(table=table, hand_id=hand_row.pk)
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
            detail={"detail": detail, "turn": hand_row.turn, "players": hand_row.players},
        )
        log.error("hand %s at table %s cancelled: %s (%s)", hand_row.pk, table.pk, reason, detail)
        table.last_hand_ended_at = now
        table.save(update_fields=["last_hand_ended_at"])
        change = _Change(table)
        change.event("hand_cancelled", hand_id=hand_row.pk, reason=reason, code=code)
        _tidy_seats(table, change, now)
        _publish(change)
        _schedule_hand_start(table, table.next_hand_delay_seconds)
        return True


# ------------------------------------------------------------------ the sweep


def tables_sweep(
    *, now: datetime | None = None, broadcast_healed_at: datetime | None = None
) -> dict[str, int]:
    """Catch what lost or late tasks missed, from what the database says (idempotent):
    overdue turns, stuck hands, hands that should have started, sitters-out past the limit.

    With `broadcast_healed_at` (the room cannot reach its players until then) turns are held
    instead of timed out, and no hand counts as stuck."""
    now = now or timezone.now()
    done = {"timeouts": 0, "cancelled": 0, "started": 0, "evicted": 0, "held": 0}
    overdue = Hand.objects.filter(status=Hand.Status.RUNNING, deadline__lt=now).values_list(
        "pk", "turn", "deadline"
    )
    if broadcast_healed_at is not None:
        done["held"] = hands_hold(healed_at=broadcast_healed_at, now=now)
        overdue = overdue.none()
    for hand_id, turn, deadline in overdue:
        try:
            if hand_turn_timeout(hand_id=hand_id, turn=turn) in ("check", "fold"):
                done["timeouts"] += 1
            continue
        except Exception:
            log.exception("the sweep could not time out hand %s", hand_id)
        if deadline + timedelta(seconds=STUCK_HAND_SECONDS) < now:
            hand = Hand.objects.get(pk=hand_id)
            if hand_cancel(
                hand=hand,
                reason="The hand stopped moving, so it was cancelled.",
                code="stuck",
            ):
                done["cancelled"] += 1
    stale = Hand.objects.filter(
        status=Hand.Status.RUNNING,
        deadline__isnull=True,
        started_at__lt=now - timedelta(seconds=STUCK_HAND_SECONDS),
    )
    for hand in stale:
        if hand_cancel(
            hand=hand, reason="The hand never got going, so it was cancelled.", code="stuck"
        ):
            done["cancelled"] += 1
    idle = (
        Table.objects.filter(is_open=True)
        .exclude(hands__status=Hand.Status.RUNNING)
        .filter(seats__isnull=False)
        .distinct()
    )
    for table in idle:
        if (
            table.last_hand_ended_at
            and table.last_hand_ended_at + timedelta(seconds=table.next_hand_delay_seconds) > now
        ):
            continue
        try:
            if table_hand_start(table=table.pk) is not None:
                done["started"] += 1
        except Exception:
            log.exception("the sweep could not start a hand at table %s", table.pk)
    sitting_out = Seat.objects.filter(
        status=Status.SITTING_OUT, sat_out_at__isnull=False
    ).select_related("table")
    for seat in sitting_out:
        limit = seat.sat_out_at + timedelta(seconds=seat.table.sit_out_limit_seconds)
        if limit <= now and not seat.leave_pending:
            try:
                if seat_evict(table=seat.table_id, seat_id=seat.pk):
                    done["evicted"] += 1
            except Exception:
                log.exception("the sweep could not evict seat %s", seat.pk)
    return done
