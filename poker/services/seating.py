"""Seating: sit down with a buy-in, leave, sit out and in, the big blind choice, top up, the
socket coming and going, and eviction past the sit-out limit (RULES.md 4 and 5)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import Subject, audit_record
from cashier import services as cashier
from cashier.selectors import table_stack_balance
from fairness import services as fairness
from poker import broadcast
from poker.models import Seat, Table
from poker.services.acting import advance, remove_seat, sit_out, turn_clock
from poker.services.bars import table_bar_check
from poker.services.events import (
    BigBlindChoice,
    PlayerConnection,
    PlayerLeaving,
    PlayerSat,
    PlayerSatIn,
    PlayerSatOut,
    PlayerToppedUp,
)
from poker.services.unit import (
    Status,
    TableError,
    check_amount,
    check_bool,
    is_int,
    load_or_none,
    peek,
    table_change,
)
from poker.services.waiting import seat_hold_check, waiting_list_sat
from responsible import rules as responsible


def tournament_seats_check(table: Table) -> None:
    """A tournament table's seats are its players' until they are eliminated: nobody sits,
    stands up, tops up or sets a seat option there (they may sit out: they are blinded)."""
    if table.is_tournament:
        raise TableError(
            "tournament_table",
            _("This is a tournament table: its seats stay until a player is eliminated."),
        )


def _stakes(table: Table) -> dict[str, int]:
    """What the cashier needs of a table to move chips to it: its id and buy-in range."""
    return {"table_id": table.pk, "min_buy_in": table.min_buy_in, "max_buy_in": table.max_buy_in}


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
    if not is_int(seat_number):
        raise TableError(
            "bad_seat",
            _("A seat is a seat number, not %(seat_number)s.") % {"seat_number": repr(seat_number)},
        )
    buy_in = check_amount(buy_in, "buy-in")
    post_big_blind = check_bool(post_big_blind, "post_big_blind")
    try:
        with table_change(table) as change:
            table = change.table
            tournament_seats_check(table)
            if not table.is_open:
                raise TableError("table_closed", _("This table is closed."))
            if not 1 <= seat_number <= table.max_seats:
                raise TableError(
                    "bad_seat",
                    _("Seats at this table run from 1 to %(max_seats)s.")
                    % {"max_seats": table.max_seats},
                )
            if Seat.objects.filter(table=table, player=player).exists():
                raise TableError("already_seated", _("You already have a seat at this table."))
            responsible.check_play(player=player, error=TableError)
            table_bar_check(table=table, player=player)
            seat_hold_check(change, player)
            if Seat.objects.filter(table=table, number=seat_number).exists():
                raise TableError(
                    "seat_taken", _("Seat %(seat_number)s is taken.") % {"seat_number": seat_number}
                )
            cashier.table_buy_in(
                player=player,
                amount=buy_in,
                idempotency_key=idempotency_key,
                **_stakes(table),
            )
            seat = Seat.objects.create(
                table=table,
                number=seat_number,
                player=player,
                status=Status.PLAYING if post_big_blind else Status.WAITING_BIG_BLIND,
                posts_big_blind_next=post_big_blind,
                time_bank=table.time_bank_seconds,
            )
            responsible.play_session_touch(player_ids=[player.pk])
            change.seats_reload()
            waiting_list_sat(change, player)
            # The room's seed for the next hand is drawn (if not yet) and its hash shown now,
            # before the hand that will use it (docs/fairness.md).
            fairness.table_seed_publish(table_id=table.pk)
            change.event(
                PlayerSat(
                    type="player_sat",
                    seat=seat_number,
                    player=broadcast.player_json(player),
                    status=seat.status,
                )
            )
            change.users.add(player.pk)
            change.deal_soon_if_idle()
            return seat
    except cashier.CashierError as error:
        raise TableError(error.code, error.message) from error


def table_leave(*, table: Table | int, player, by=None) -> None:
    """Stand up. In a hand: checked or folded at each turn, cashed out when it ends. `by`: the
    staff member making the player leave (a suspension), the author of an immediate cash-out.
    `table`: the row or its id."""
    with table_change(table) as change:
        tournament_seats_check(change.table)
        seat = change.seat_of(player)
        change.users.add(player.pk)
        hand_row = change.running_hand()
        if hand_row is not None and hand_row.is_dealt(seat.number):
            seat.leave_pending = True
            if by is not None:  # a player's own leave keeps the staff member who asked first
                seat.leave_by = by
            seat.save(update_fields=["leave_pending", "leave_by"])
            change.event(PlayerLeaving(type="player_leaving", seat=seat.number))
            engine = load_or_none(hand_row)
            if engine is not None and engine.to_act == seat.number:
                since = len(engine.events)
                advance(change, hand_row, engine, since=since, now=timezone.now())
        else:
            remove_seat(change, seat, reason="left", by=by)


def table_leave_after_hand(*, table: Table | int, player, reason: str) -> None:
    """Stand up once the hand the player is in ends, played out as usual (a session limit
    reached: responsible.services.session_limit_reach); at once outside a hand. `reason` goes
    on the cash-out and the `player_left` event, and the player cannot take it back."""
    with table_change(table) as change:
        seat = change.seat_of(player)
        change.users.add(player.pk)
        hand_row = change.running_hand()
        if hand_row is not None and hand_row.is_dealt(seat.number):
            seat.leave_after_hand, seat.leave_reason = True, reason
            seat.save(update_fields=["leave_after_hand", "leave_reason"])
            change.touch()
        else:
            remove_seat(change, seat, reason=reason)


def table_sit_out(*, table: Table, player) -> Seat:
    """Stop being dealt in from the next hand; the current hand goes on as usual."""
    with table_change(table) as change:
        seat = change.seat_of(player)
        if seat.status == Status.SITTING_OUT:
            raise TableError("already_sitting_out", _("You are already sitting out."))
        sit_out(change, seat, timezone.now())
        change.event(PlayerSatOut(type="player_sat_out", seat=seat.number, reason="asked"))
        change.users.add(player.pk)
        return seat


def table_sit_in(*, table: Table, player, post_big_blind: bool) -> Seat:
    """Come back; one who missed the big blind waits for it or posts one now (RULES.md 4)."""
    post_big_blind = check_bool(post_big_blind, "post_big_blind")
    with table_change(table) as change:
        seat = change.seat_of(player)
        if seat.status != Status.SITTING_OUT:
            raise TableError("not_sitting_out", _("You are not sitting out."))
        responsible.check_play(player=player, error=TableError)
        chips = (
            seat.chips or 0
            if change.table.is_tournament
            else table_stack_balance(player=player, table=change.table)
        )
        if chips <= 0:
            raise TableError("no_chips", _("You have no chips here: top up first."))
        if seat.missed_big_blind:
            seat.status = Status.PLAYING if post_big_blind else Status.WAITING_BIG_BLIND
            seat.posts_big_blind_next = post_big_blind
        else:
            seat.status = Status.PLAYING
            seat.posts_big_blind_next = False
        seat.sat_out_at = None
        seat.time_out_pending = False
        seat.save()
        responsible.play_session_touch(player_ids=[player.pk])
        change.event(PlayerSatIn(type="player_sat_in", seat=seat.number, status=seat.status))
        change.users.add(player.pk)
        change.deal_soon_if_idle()
        return seat


def table_big_blind_choose(*, table: Table, player, post_now: Any) -> Seat:
    """Change a waiting player's mind before they are dealt in (RULES.md 4): post a big blind
    at the next hand (`post_now`), or go back to waiting for the big blind to reach them."""
    post_now = check_bool(post_now, "post_now")
    with table_change(table) as change:
        seat = change.seat_of(player)
        if post_now:
            if seat.status != Status.WAITING_BIG_BLIND:
                raise TableError("not_waiting", _("You are not waiting for the big blind."))
            seat.status, seat.posts_big_blind_next = Status.PLAYING, True
        else:
            if not (seat.status == Status.PLAYING and seat.posts_big_blind_next):
                raise TableError(
                    "not_posting", _("You are not about to post a big blind: nothing to wait for.")
                )
            seat.status, seat.posts_big_blind_next = Status.WAITING_BIG_BLIND, False
        seat.save(update_fields=["status", "posts_big_blind_next"])
        change.event(
            BigBlindChoice(
                type="big_blind_choice",
                seat=seat.number,
                status=seat.status,
                posts_big_blind=seat.posts_big_blind_next,
            )
        )
        change.users.add(player.pk)
        change.deal_soon_if_idle()
        return seat


def table_top_up(*, table: Table, player, amount: int, idempotency_key: str) -> None:
    """Add chips between hands; with no chips left it is a fresh buy-in (the cashier's rules)."""
    amount = check_amount(amount, "top-up")
    try:
        with table_change(table) as change:
            table = change.table
            tournament_seats_check(table)
            seat = change.seat_of(player)
            hand_row = change.running_hand()
            if hand_row is not None and hand_row.is_dealt(seat.number):
                raise TableError(
                    "in_hand", _("You cannot top up during a hand; wait for it to end.")
                )
            before = table_stack_balance(player=player, table=table)
            if before > 0:
                cashier.table_top_up(
                    player=player, amount=amount, idempotency_key=idempotency_key, **_stakes(table)
                )
            else:
                cashier.table_buy_in(
                    player=player, amount=amount, idempotency_key=idempotency_key, **_stakes(table)
                )
            if table_stack_balance(player=player, table=table) == before:
                return  # the same request again (its idempotency key): it moved money once
            change.event(PlayerToppedUp(type="player_topped_up", seat=seat.number, amount=amount))
            change.users.add(player.pk)
    except cashier.CashierError as error:
        raise TableError(error.code, error.message) from error


SEAT_OPTIONS = ("sit_out_next_big_blind", "leave_after_hand", "auto_top_up")


def table_seat_options_set(
    *,
    table: Table | int,
    player,
    sit_out_next_big_blind: Any = None,
    leave_after_hand: Any = None,
    auto_top_up: Any = None,
) -> Seat | None:
    """Turn the player's seat options on or off (None leaves one as it is; docs/rules.md "Seat
    options"). "Leave after this hand" asked when the player is in no running hand stands them
    up at once (there is no hand to wait for): returns None then, else the seat."""
    given = {
        name: check_bool(value, name)
        for name, value in (
            ("sit_out_next_big_blind", sit_out_next_big_blind),
            ("leave_after_hand", leave_after_hand),
            ("auto_top_up", auto_top_up),
        )
        if value is not None
    }
    if not given:
        raise TableError(
            "bad_field",
            _("Say which option to set: %(names)s.") % {"names": ", ".join(SEAT_OPTIONS)},
        )
    with table_change(table) as change:
        if any(given.values()):  # turning one off is harmless; none applies in a tournament
            tournament_seats_check(change.table)
        seat = change.seat_of(player)
        change.users.add(player.pk)
        hand_row = change.running_hand()
        if given.get("leave_after_hand") and not (
            hand_row is not None and hand_row.is_dealt(seat.number)
        ):
            remove_seat(change, seat, reason="left")
            return None
        if given.get("leave_after_hand") is False and seat.leave_reason == "session_limit":
            raise TableError(
                "session_limit",
                _("Your session limit is reached: you leave the table after this hand."),
            )
        for name, value in given.items():
            setattr(seat, name, value)
        seat.save(update_fields=list(given))
        change.touch()
        return seat


def table_connection_set(*, table: Table, player, connected: bool, socket: str = "") -> None:
    """A player's socket came or went; a disconnected player to act gets the grace time.

    `socket` names the socket (its channel): when a page reloads, the old socket's goodbye
    may arrive after the new one's hello, and must not mark the player as gone.
    """
    with table_change(table) as change:
        table = change.table
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
        change.event(
            PlayerConnection(type="player_connection", seat=seat.number, connected=connected)
        )
        hand_row = change.running_hand()
        if not connected and hand_row is not None and hand_row.action_started_at:
            engine = peek(hand_row)
            if engine is not None and engine.to_act == seat.number:
                # The grace comes after the normal time, the time bank after the grace.
                bank_from, graced = turn_clock(
                    change, seat.number, start=hand_row.action_started_at
                )
                if hand_row.deadline is not None and graced > hand_row.deadline:
                    hand_row.time_bank_from, hand_row.deadline = bank_from, graced
                    hand_row.save(update_fields=["time_bank_from", "deadline"])
                    change.hand(hand_row, engine, len(engine.events), moved=False)
                    change.schedule_turn_timer(hand_row)


def seat_evict(*, table: Table | int, seat_id: int, reason: str = "sit_out_limit") -> bool:
    """Remove a player sitting out past the limit and cash them out (RULES.md 5). `table`: the
    row or its id."""
    with table_change(table) as change:
        table = change.table
        seat = Seat.objects.filter(pk=seat_id, table=table).first()
        now = timezone.now()
        if (
            table.is_tournament  # a tournament's player away is blinded, never evicted
            or seat is None
            or seat.status != Status.SITTING_OUT
            or seat.sat_out_at is None
            or seat.sat_out_at + timedelta(seconds=table.sit_out_limit_seconds) > now
        ):
            return False
        change.users.add(seat.player_id)
        hand_row = change.running_hand()
        if hand_row is not None and hand_row.is_dealt(seat.number):
            if seat.leave_pending:
                return False
            seat.leave_pending = True
            seat.save(update_fields=["leave_pending"])
            change.touch()
        else:
            remove_seat(change, seat, reason=reason)
        audit_record(
            action="table.eviction",
            subject=Subject("poker.table", table.pk, table.name),
            payload={
                "player_id": seat.player_id,
                "seat": seat.number,
                "reason": reason,
                "after_hand": seat.leave_pending,
            },
        )
        return True
