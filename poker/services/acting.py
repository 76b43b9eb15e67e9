"""Acting in a hand: a player's action, the turn that follows, the end of the hand (settled in
the cashier in the same transaction) and tidying the seats between hands."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import Subject, audit_record
from cashier import services as cashier
from cashier.selectors import buy_in_terms
from config.timeouts import Timeout
from fairness import services as fairness
from poker import broadcast
from poker.commands import MAX_SEQ
from poker.engine.hand import Hand as EngineHand
from poker.engine.hand import IllegalAction
from poker.engine.views import ended_hand_display_seconds, players_at_flop
from poker.models import Hand, Seat, Table
from poker.refusals import action_refusal_message
from poker.selectors import table_stacks_and_wallets
from poker.services.events import (
    HandRevealed,
    PlayerLeft,
    PlayerSatOut,
    PlayerToppedUp,
)
from poker.services.unit import (
    HandRefused,
    Status,
    TableChange,
    TableError,
    check_amount,
    is_int,
    table_apply,
    table_change,
)
from poker.services.waiting import seats_offer

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

# What a tournament does at its table once each hand's chips are settled (eliminations, the
# end and its prizes): registered by tournaments.apps, which sits above poker. Each hook runs
# in the hand's change, after the seats' chips moved and before the seats are tidied.
TournamentHook = Callable[["TableChange", Hand, EngineHand], None]
_tournament_hand_end: list[TournamentHook] = []


def tournament_hand_end_register(hook: TournamentHook) -> None:
    if hook not in _tournament_hand_end:
        _tournament_hand_end.append(hook)


def table_act(*, table, player, action: Any, amount: Any, turn: Any, seq: Any) -> None:
    """A player's action for `turn`, with their client `seq` (a duplicate or stale one is
    refused); the engine decides if it is legal."""
    if not isinstance(action, str):
        raise TableError("bad_field", _('action must be a string such as "call".'))
    if amount is not None:
        amount = check_amount(amount, "amount")
    if not is_int(turn) or turn < 1:
        raise TableError(
            "bad_field",
            _("turn must be a positive whole number, not %(turn)s.") % {"turn": repr(turn)},
        )
    if not is_int(seq) or seq < 1 or seq > MAX_SEQ:
        raise TableError(
            "bad_field", _("seq must be a positive whole number, not %(seq)s.") % {"seq": repr(seq)}
        )
    act = functools.partial(
        action_apply, player=player, action=action, amount=amount, turn=turn, seq=seq
    )
    try:
        # At the table's owner, from its memory: a mid-hand action is one fenced statement,
        # a hand's end one transaction (poker/services/unit.py `table_apply`).
        table_apply(table, act)
    except HandRefused as refused:
        raise TableError("hand_cancelled", refused.reason) from refused


def action_apply(change: TableChange, *, player, action: str, amount, turn: int, seq: int) -> None:
    """`table_act`'s checks and move at the table `change` holds; every refusal comes before
    anything moves (the engine refuses before it touches the hand)."""
    seat = change.seat_of(player)
    hand_row = change.running_hand()
    if hand_row is None:
        raise TableError("no_hand", _("No hand is running at this table."))
    last = hand_row.last_seq_of(player.pk)
    if seq <= last:
        raise TableError(
            "duplicate_seq",
            _("Action %(seq)s was already received (the last one was %(last)s).")
            % {"seq": seq, "last": last},
        )
    if turn != hand_row.turn:
        raise TableError(
            "stale_turn",
            _("That action was for turn %(turn)s; it is now turn %(current)s.")
            % {"turn": turn, "current": hand_row.turn},
        )
    if not hand_row.is_dealt(seat.number):
        raise TableError("not_your_turn", _("You are not in this hand."))
    engine = change.engine_of(hand_row)
    if engine.to_act != seat.number:
        raise TableError(
            "not_your_turn",
            _("It is seat %(to_act)s's turn, not yours.") % {"to_act": engine.to_act},
        )
    since = len(engine.events)
    try:
        engine.act(seat.number, action, amount)
    except IllegalAction as error:
        raise TableError(error.code, action_refusal_message(error)) from error
    change.seats_fresh = True  # an action alters seats only through change.seats()
    change.users.add(player.pk)
    advance(change, hand_row, engine, since=since, now=timezone.now())
    change.save_later(hand_row.last_seq_set(seat.number, seq), ["last_seq"])


def advance(
    change: TableChange,
    hand_row: Hand,
    engine: EngineHand,
    *,
    since: int,
    now: datetime,
    new_hand: bool = False,
) -> None:
    """After the engine moved: play for leavers, then end the hand or start the next turn."""
    # A tournament's player who is away is dealt in and their hand played for them at once:
    # check when they can, else fold (docs/rules.md "Sit & Go play").
    away = change.table.is_tournament
    leaving = {
        number
        for number, seat in change.seats().items()
        if seat.leave_pending or (away and seat.status == Status.SITTING_OUT)
    }
    while not engine.is_over and engine.to_act in leaving:
        engine.act(engine.to_act, engine.default_action())
    deciding = engine.deciding_runs
    change.hand(hand_row, engine, since)
    time_bank_charge(change, hand_row, engine, since=since, now=now)
    if deciding and not runs_can_be_asked(change, engine):
        engine.run_once()  # someone asked cannot answer: once (docs/rules.md)
    if engine.is_over:
        finish(change, hand_row, engine, now)
        return
    if not new_hand:
        hand_row.turn += 1
    hand_row.action_started_at = now
    if deciding:
        # The players still in are asked to run it twice: one clock for all, no time bank;
        # its timer is the turn's (`timers.hand_turn_timeout` then runs the board once).
        hand_row.time_bank_from = None
        hand_row.deadline = now + timedelta(seconds=RUNS_ANSWER_SECONDS)
        change.schedule_turn_timer(hand_row)
        return
    hand_row.time_bank_from, hand_row.deadline = turn_clock(change, engine.to_act, start=now)
    change.schedule_turn_timer(hand_row)


# How long the players still in have to agree to run the board twice (docs/rules.md).
RUNS_ANSWER_SECONDS = 10


def runs_can_be_asked(change: TableChange, engine: EngineHand) -> bool:
    """Everyone asked can answer: seated, connected, not sitting out or leaving. Else the
    board is run once without asking (docs/rules.md "Run it twice")."""
    seats = change.seats()
    for number in engine.run_it_twice_seats:
        seat = seats.get(number)
        if (
            seat is None
            or not seat.connected
            or seat.status == Status.SITTING_OUT
            or seat.leave_pending
            or seat.time_out_pending
        ):
            return False
    return True


def table_runs_answer(*, table, player, agree: Any) -> None:
    """An asked player's answer to running the board twice, which the engine records and
    applies (`answer_runs`: anyone's no runs it once at once, the last yes twice); else the
    hand waits for the others (or the clock)."""
    if not isinstance(agree, bool):
        raise TableError("bad_field", _("agree must be true or false."))
    table_apply(table, functools.partial(runs_answer_apply, player=player, agree=agree))


def runs_answer_apply(change: TableChange, *, player, agree: bool) -> None:
    seat = change.seat_of(player)
    hand_row = change.running_hand()
    if hand_row is None:
        raise TableError("no_hand", _("No hand is running at this table."))
    if not hand_row.is_dealt(seat.number):  # the seat's player came after the deal
        raise TableError("not_asked", _("You are not asked to run the board twice."))
    engine = change.engine_of(hand_row)
    since = len(engine.events)
    try:  # the engine refuses a seat not asked, a second answer, no asking going on
        engine.answer_runs(seat.number, agree)
    except IllegalAction as error:
        raise TableError(error.code, action_refusal_message(error)) from error
    change.users.add(player.pk)
    if engine.deciding_runs:
        change.hand(hand_row, engine, since)  # saves the answer; the hand waits
        return
    change.seats_fresh = True
    advance(change, hand_row, engine, since=since, now=timezone.now())


def turn_seconds(change: TableChange, seat_number: int | None) -> int:
    """How long the player in this seat has to act: the table's time, plus the grace for a
    player who is not connected (RULES.md 6)."""
    table = change.table
    actor = None if seat_number is None else change.seats().get(seat_number)
    if actor is not None and not actor.connected:
        return table.action_seconds + table.disconnect_grace_seconds
    return table.action_seconds


def turn_clock(
    change: TableChange, seat_number: int | None, *, start: datetime
) -> tuple[datetime | None, datetime]:
    """(when the time bank starts, the deadline) of a turn starting at `start`: the normal
    time (plus the grace of a disconnected player), then the player's time bank, if any."""
    normal = start + timedelta(seconds=turn_seconds(change, seat_number))
    actor = None if seat_number is None else change.seats().get(seat_number)
    bank = actor.time_bank if actor is not None else 0
    if bank <= 0:
        return None, normal
    return normal, normal + timedelta(seconds=bank)


def time_bank_charge(
    change: TableChange, hand_row: Hand, engine: EngineHand, *, since: int, now: datetime
) -> None:
    """The turn that just ended: the player who acted pays what they used of their time bank
    (whole seconds, rounded up); a turn ended within the normal time costs nothing."""
    started, hand_row.time_bank_from = hand_row.time_bank_from, None
    if started is None or now <= started:
        return
    actor = next(
        (event["seat"] for event in engine.events[since:] if event["type"] == "action"), None
    )
    seat = None if actor is None else change.seats().get(actor)
    if seat is None:
        return
    used = math.ceil((now - started).total_seconds())
    seat.time_bank = max(seat.time_bank - used, 0)
    change.save_later(seat, ["time_bank"])


def time_banks_refill(change: TableChange, hand_row: Hand) -> None:
    """Each player dealt into the hand just ended gets some of their time bank back."""
    table = change.table
    dealt = hand_row.player_ids()
    for number, seat in change.seats().items():
        if dealt.get(number) != seat.player_id or seat.time_bank >= table.time_bank_seconds:
            continue
        seat.time_bank = min(
            seat.time_bank + table.time_bank_refill_seconds, table.time_bank_seconds
        )
        change.save_later(seat, ["time_bank"])


def finish(change: TableChange, hand_row: Hand, engine: EngineHand, now: datetime) -> None:
    """Settle the hand in the cashier in this same transaction and tidy the seats."""
    table = change.table
    result = engine.result
    if result is None:
        raise ValueError("only a hand that is over is settled")
    dealt = hand_row.player_ids()
    net = {dealt[entry["seat"]]: entry["net"] for entry in result["seats"]}
    if table.is_tournament:
        chips_settle(change, net_by_seat={entry["seat"]: entry["net"] for entry in result["seats"]})
    else:
        cashier.hand_settle(
            table_id=table.pk, hand_id=hand_row.pk, net_by_player=net, rake=result["rake"]
        )
    for row in hand_row.nets_set({entry["seat"]: entry["net"] for entry in result["seats"]}):
        change.save_later(row, ["net"])
    hand_reveal(change, hand_row, now)
    hand_row.status = Hand.Status.FINISHED
    hand_row.result = result
    hand_row.ended_at = now
    hand_row.pot_total = sum(pot["amount"] for pot in result["pots"])
    hand_row.players_dealt = len(engine.seats)
    hand_row.players_at_flop = players_at_flop(engine.events, len(engine.seats))
    hand_row.deadline = None
    pause = ended_hand_display_seconds(engine.events) * settings.POKER_SHOWDOWN_PAUSE_SCALE
    delay = table.next_hand_delay_seconds + pause
    table.last_hand_players = len(engine.seats)
    table.last_hand_ended_at = now
    table.next_hand_at = now + timedelta(seconds=delay)
    change.save_later(table, ["last_hand_players", "last_hand_ended_at", "next_hand_at"])
    if table.is_tournament:
        for hook in _tournament_hand_end:
            hook(change, hand_row, engine)
    seats_auto_top_up(change, hand_row)
    tidy_seats(change, now)
    time_banks_refill(change, hand_row)
    change.schedule_hand_start(delay)


def chips_settle(change: TableChange, *, net_by_seat: dict[int, int]) -> None:
    """A tournament hand's result on its seats' chips (no rake, no ledger: they are not
    money). The hand's rows keep each net as a cash hand's do."""
    for number, net in net_by_seat.items():
        seat = change.seats().get(number)
        if seat is None or not net:
            continue
        chips = (seat.chips or 0) + net
        if chips < 0:
            raise ValueError(f"seat {number} would hold {chips} chips")
        seat.chips = chips
        # Written now: the seats and stacks are read again after an elimination.
        seat.save(update_fields=["chips"])
    change.money = None  # the stacks moved: read again when next needed


def seat_eliminate(change: TableChange, seat: Seat) -> None:
    """A tournament's player with no chips left leaves the table (no cash-out: chips are not
    money); the tournament records their place."""
    change.event(
        PlayerLeft(
            type="player_left",
            seat=seat.number,
            player=broadcast.player_json(seat.player),
            reason="eliminated",
        )
    )
    change.users.add(seat.player_id)
    change.rows_to_save = [(row, fields) for row, fields in change.rows_to_save if row is not seat]
    seat.delete()
    change.seats_reload()
    change.money = None


def table_money(change: TableChange) -> tuple[dict[int, int], dict[int, int]]:
    """(the table's stacks, the seated players' wallets), user id -> cents, read once per
    change after its last money movement (`change.money`, which the frames reuse: a hand's
    end reads them once for its seats and its frames)."""
    if change.money is None:
        owners = [seat.player_id for seat in change.seats().values()]
        change.money = table_stacks_and_wallets(table=change.table, wallet_owner_ids=owners)
    return change.money


def hand_reveal(change: TableChange, hand_row: Hand, now: datetime) -> None:
    """The hand is over (finished or cancelled): its deck, salt and seeds open to its players,
    who are told where to check it (docs/fairness.md)."""
    if fairness.hand_reveal(hand_id=hand_row.pk, now=now):
        url = reverse("fairness:hand", args=[hand_row.pk])
        change.event(HandRevealed(type="hand_revealed", hand_id=hand_row.pk, url=url))


def seats_auto_top_up(change: TableChange, hand_row: Hand) -> None:
    """After a hand, each player of it who chose auto top-up is brought back to the most
    they may have here (the ratholing rules' top, `buy_in_terms`), or, with no chips left,
    bought in again for that much; whatever the wallet allows, through the cashier as a
    manual top-up or re-buy would go. A wallet short of a re-buy's minimum, or a refusal
    (a time-out started), skips it: the bust player sits out as usual."""
    table, dealt = change.table, hand_row.player_ids()
    wanting = [
        seat
        for number, seat in sorted(change.seats().items())
        if seat.auto_top_up
        and dealt.get(number) == seat.player_id
        and not (seat.leave_pending or seat.leave_after_hand)
    ]
    if not wanting:
        return
    stacks, wallets = table_money(change)
    for seat in wanting:
        stack = stacks.get(seat.player_id, 0)
        terms = buy_in_terms(player=seat.player, table=table)
        amount = min(terms.high - stack, wallets[seat.player_id])
        if amount <= 0 or (stack == 0 and amount < terms.low):
            continue
        move = cashier.table_top_up if stack > 0 else cashier.table_buy_in
        try:
            with transaction.atomic():  # a refusal undoes only this one
                move(
                    player=seat.player,
                    table_id=table.pk,
                    min_buy_in=table.min_buy_in,
                    max_buy_in=table.max_buy_in,
                    amount=amount,
                    idempotency_key=f"auto-top-up-{hand_row.pk}-{seat.player_id}",
                )
        except cashier.CashierError:
            continue
        change.money = None  # the stacks and the wallet moved: read again when next needed
        change.event(
            PlayerToppedUp(type="player_topped_up", seat=seat.number, amount=amount, auto=True)
        )


def tidy_seats(change: TableChange, now: datetime) -> None:
    """Between hands: timed-out players sit out, leavers are cashed out, the bust sit out."""
    table = change.table
    stacks, _wallets = table_money(change)
    for seat in sorted(change.seats().values(), key=lambda seat: seat.number):
        if seat.leave_pending or seat.leave_after_hand:
            # Who made them leave (staff removing them, closing the table, suspending them)
            # is the cash-out's author, as for a removal between hands; a
            # player's own "leave after this hand" leaves both blank.
            remove_seat(change, seat, reason=seat.leave_reason or "left", by=seat.leave_by)
            continue
        if seat.time_out_pending:
            seat.time_out_pending = False
            seat.save(update_fields=["time_out_pending"])
            if seat.status != Status.SITTING_OUT:
                sit_out(change, seat, now)
                change.event(
                    PlayerSatOut(type="player_sat_out", seat=seat.number, reason="timeout")
                )
                audit_record(
                    action="table.timeout_sat_out",
                    subject=Subject("poker.table", table.pk, table.name),
                    payload={"player_id": seat.player_id, "seat": seat.number},
                )
        if stacks.get(seat.player_id, 0) <= 0 and seat.status != Status.SITTING_OUT:
            sit_out(change, seat, now)
            change.event(PlayerSatOut(type="player_sat_out", seat=seat.number, reason="no_chips"))


def sit_out(change: TableChange, seat: Seat, now: datetime) -> None:
    """The seat sits out from now; after commit a timeout at the table's limit evicts it if
    it is still sitting out since this very moment (RULES.md 5)."""
    seat.status = Status.SITTING_OUT
    seat.sat_out_at = now
    seat.posts_big_blind_next = False
    seat.save(update_fields=["status", "sat_out_at", "posts_big_blind_next"])
    change.schedules.append(
        Timeout.due_at(
            "poker.sit_out",
            table_id=change.table.pk,
            ref_id=seat.pk,
            step=sat_out_step(now),
            at=now + timedelta(seconds=change.table.sit_out_limit_seconds),
        )
    )


def sat_out_step(sat_out_at: datetime) -> int:
    """When a seat sat out, in whole microseconds since 1970: what its eviction timer carries
    to tell this sitting out from a later one."""
    return (sat_out_at - EPOCH) // timedelta(microseconds=1)


def remove_seat(change: TableChange, seat: Seat, *, reason: str, by=None) -> None:
    """Cash the player out and free the seat; a removal the player did not ask for keeps its
    reason on the cash-out (their cashier history says why), and `by`, the staff member who
    caused it, is the cash-out's author."""
    memo = "" if reason == "left" else reason
    cashier.table_cash_out(player=seat.player, table_id=change.table.pk, memo=memo, by=by)
    change.money = None  # read again when next needed
    change.event(
        PlayerLeft(
            type="player_left",
            seat=seat.number,
            player=broadcast.player_json(seat.player),
            reason=reason,
        )
    )
    change.users.add(seat.player_id)
    seat.delete()
    # Nothing of a freed seat is left to save: a leaver's fold at a turn into their time bank
    # charged it earlier in this change, then ended the hand that frees it.
    change.rows_to_save = [(row, fields) for row, fields in change.rows_to_save if row is not seat]
    change.seats_reload()
    seats_offer(change)  # the seat goes to the next on the waiting list, if anyone waits


def table_show_cards(*, table: Table | int, player) -> None:
    """Between hands, a player of the last hand shows the cards nobody saw (they folded or
    mucked), by choice, until the next hand is dealt (docs/rules.md)."""
    with table_change(table) as change:
        if change.running_hand() is not None:
            raise TableError("hand_running", _("Cards are shown by choice once the hand is over."))
        hand_row = Hand.objects.with_deck().filter(table=change.table).order_by("-id").first()
        if hand_row is None or hand_row.status != Hand.Status.FINISHED:
            raise TableError("no_hand", _("There is no finished hand to show cards from."))
        dealt = {user_id: seat for seat, user_id in hand_row.player_ids().items()}
        if player.pk not in dealt:
            raise TableError("not_in_hand", _("You were not dealt into that hand."))
        engine = EngineHand.from_snapshot(hand_row.state, hand_row.deck)
        since = len(engine.events)
        try:
            engine.show(dealt[player.pk])
        except IllegalAction as error:
            raise TableError(error.code, action_refusal_message(error)) from error
        hand_row.result = engine.result
        change.hand(hand_row, engine, since)
