"""Dealing the next hand: who is dealt in, the button and the blinds (RULES.md 4), the shuffle
(RULES.md 1), the stacks committed in the cashier, and the first turn."""

from __future__ import annotations

import secrets
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from cashier import services as cashier
from fairness import services as fairness
from poker import broadcast
from poker.engine import dealer
from poker.engine.hand import Hand as EngineHand
from poker.engine.positions import position_names
from poker.models import Hand, Seat, Table
from poker.selectors import table_stacks_and_wallets
from poker.services.acting import advance, sit_out
from poker.services.events import ButtonDrawn, HandCommitment, PlayerSatOut
from poker.services.unit import Status, TableChange, table_apply
from poker.services.write import table_version_write
from responsible import rules as responsible

# Tolerance for a start-next-hand task arriving a little before its countdown.
START_SLACK_SECONDS = 0.25


def _plan_deal(
    table: Table, seats: list[Seat], stacks: dict[int, int], last_small_blind: int | None
) -> dealer.DealPlan | None:
    """The seats as the dealer sees them (plain data), and its plan for the next hand. At a
    tournament table everyone with chips is dealt in, sitting out or not (docs/rules.md
    "Sit & Go play": a player away is dealt in and blinded)."""
    dealt_anyway = table.is_tournament
    return dealer.plan_deal(
        [
            dealer.DealSeat(
                number=seat.number,
                stack=stacks.get(seat.player_id, 0),
                sitting_out=seat.status == Status.SITTING_OUT and not dealt_anyway,
                waiting_big_blind=seat.status == Status.WAITING_BIG_BLIND and not dealt_anyway,
                posts_big_blind_next=seat.posts_big_blind_next,
                leaving=(seat.leave_pending or seat.time_out_pending) and not dealt_anyway,
            )
            for seat in seats
        ],
        button=table.button_seat,
        big_blind=table.big_blind_seat,
        randbelow=secrets.randbelow,
        min_players=table.min_players_to_start,
        three_to_start=table.three_to_start,
        last_hand_players=table.last_hand_players,
        small_blind=last_small_blind,
    )


def _last_small_blind(table: Table) -> int | None:
    """The last hand's small blind, which going heads-up needs (RULES.md 4); read only then."""
    if table.last_hand_players < 3:
        return None
    setup = (
        Hand.objects.filter(table=table, number=table.hands_dealt)
        .values_list("setup", flat=True)
        .first()
    )
    return setup.get("small_blind_seat") if setup else None


def _commitment_announce(
    change,
    *,
    number: int,
    commitment: str,
    seats,
    server_seed_hash: str,
    next_server_seed_hash: str,
    money: tuple[dict[int, int], dict[int, int]],
) -> None:
    """Every socket at the table gets the hand's commitment in a frame of its own, sent before
    the frame that deals it: built now, before the hand's row exists, so it holds no card.
    Its version is written with the deal's button, big blind and hand number (one UPDATE);
    its frames are built from what the deal read (the seats, stacks and wallets, no hand
    running, the next seed's hash), and their other reads serve the deal's frames too."""
    table = change.table
    table_version_write(change, ["button_seat", "big_blind_seat", "hands_dealt"])
    event: HandCommitment = {
        "type": "hand_commitment",
        "hand_number": number,
        "commitment": commitment,
        "seats": sorted(seats),
        "server_seed_hash": server_seed_hash,
        "next_server_seed_hash": next_server_seed_hash,
    }
    frames, change.frames_reuse = broadcast.frames_and_view(
        table=table,
        events=[event],
        hand_row=None,
        engine=None,
        since=0,
        seats=change.seats(),
        seats_fresh=True,
        hand_known=True,
        money=money,
        next_seed_hash=next_server_seed_hash,
    )
    transaction.on_commit(lambda: broadcast.send(table_id=table.pk, frames=frames))


def _dealt_seats_save(*, seat_ids: list[int], player_ids: list[int], now) -> None:
    """The dealt seats playing, and their players' play sessions going on (dealt in is play:
    a session limit's clock, responsible.rules.play_session_touch_sql), in one statement."""
    with connection.cursor() as cursor:
        cursor.execute(
            f"WITH touched AS ({responsible.play_session_touch_sql()}), "
            f"dealt AS (UPDATE {Seat._meta.db_table} SET status = %(playing)s, "
            "posts_big_blind_next = false, missed_big_blind = false "
            "WHERE id = ANY(%(seats)s) RETURNING 1) "
            "SELECT * FROM touched",
            {
                "players": sorted(set(player_ids)),
                "now": connection.ops.adapt_datetimefield_value(now),
                "seats": seat_ids,
                "playing": Status.PLAYING,
            },
        )
        responsible.play_session_timers(cursor.fetchall())


def _dealt_seats_mark(table: Table, seats: list[Seat], plan, players: dict[int, int], now) -> None:
    """Dealt in: playing, any big blind owed is posted. Sitting out where the big blind went
    by: a missed big blind (RULES.md 4). One UPDATE for the dealt seats (one more when a big
    blind was missed). At a tournament table a player sitting out is dealt in and stays
    sitting out (their hands are played for them: acting.advance)."""
    missed = []
    away = {s.number for s in seats if table.is_tournament and s.status == Status.SITTING_OUT}
    for seat in seats:
        if seat.number in away:
            continue
        if seat.number in plan.dealt:
            seat.status = Status.PLAYING
            seat.posts_big_blind_next = False
            seat.missed_big_blind = False
        elif seat.number in plan.missed_big_blind:
            seat.missed_big_blind = True
            missed.append(seat)
    _dealt_seats_save(
        seat_ids=[s.pk for s in seats if s.number in plan.dealt and s.number not in away],
        player_ids=[players[n] for n in plan.dealt],
        now=now,
    )
    if missed:
        Seat.objects.filter(pk__in=[seat.pk for seat in missed]).update(missed_big_blind=True)


def table_hand_start(*, table: Table | int) -> Hand | None:
    """Deal the next hand if the table is ready for one; else nothing (safe to call anytime).

    The seats are read once (`change.seats()`) and every seat the deal alters is one of them,
    so both frames show those objects; the stacks and wallets are read once for the plan and
    both frames (a deal moves no money: it only marks the stacks in the hand)."""
    # The table's owner, which ended the last hand, deals from its memory of the seats and
    # of no hand running (poker/services/unit.py `table_apply`): the deal alters seats only
    # through `change.seats()` and shows its hand through `change.hand()`.
    return table_apply(table, _deal)


def _deal(change: TableChange) -> Hand | None:
    table = change.table
    now = timezone.now()
    if not table.is_open or change.running_hand() is not None:
        return None
    if table.break_until is not None and now < table.break_until:
        return None  # a Sit & Go's break: its end deals the next hand (tournaments)
    slack = timedelta(seconds=START_SLACK_SECONDS)
    if table.next_hand_at is not None and now < table.next_hand_at - slack:
        return None
    by_number = change.seats()
    change.seats_fresh = True  # the deal alters only these seat objects
    seats = [by_number[number] for number in sorted(by_number)]
    money = table_stacks_and_wallets(
        table=table, wallet_owner_ids=[seat.player_id for seat in seats]
    )
    stacks = money[0]
    last_small_blind = _last_small_blind(table)
    plan = _plan_deal(table, seats, stacks, last_small_blind)
    # Who asked to sit out at their next big blind sits out now that it reaches them,
    # and the hand is planned again without them (docs/rules.md "Seat options").
    while plan is not None:
        blinds = {plan.big_blind, *plan.extra_big_blinds}
        leaving = [s for s in seats if s.sit_out_next_big_blind and s.number in blinds]
        if not leaving:
            break
        for seat in leaving:
            sit_out(change, seat, now)
            seat.sit_out_next_big_blind = False
            seat.save(update_fields=["sit_out_next_big_blind"])
            change.event(PlayerSatOut(type="player_sat_out", seat=seat.number, reason="big_blind"))
            change.users.add(seat.player_id)
        plan = _plan_deal(table, seats, stacks, last_small_blind)
    if plan is None:
        return None
    players = {seat.number: seat.player_id for seat in seats}
    # The server's CSPRNG seed mixed with the dealt players' client seeds (docs/fairness.md).
    seated = {seat.number: seat.player for seat in seats}
    # The room's seed was published before this hand (its hash in the table's STATE since
    # the last hand ended); the next hand's is published now (docs/fairness.md).
    published, upcoming = fairness.table_seed_take(table_id=table.pk, now=now)
    deal = fairness.deal_draw(players={n: seated[n] for n in plan.dealt}, published=published)
    deck = deal.deck
    engine = EngineHand.start(
        game=table.game,
        structure=table.structure,
        seats={n: stacks[players[n]] for n in plan.dealt},
        button=plan.button,
        small_blind_seat=plan.small_blind,
        big_blind_seat=plan.big_blind,
        extra_big_blind_seats=list(plan.extra_big_blinds),
        deck=deck,
        rake=table.engine_rake(),
        run_it_twice=table.run_it_twice and table.structure == Table.Structure.POT_LIMIT,
        **table.engine_stakes(),
    )
    number = table.hands_dealt + 1
    table.button_seat, table.big_blind_seat = plan.button, plan.big_blind
    table.hands_dealt = number
    _commitment_announce(
        change,
        number=number,
        commitment=deal.commitment,
        seats=plan.dealt,
        server_seed_hash=deal.server_seed_hash,
        next_server_seed_hash=upcoming.seed_hash,
        money=money,
    )
    hand_row = Hand.objects.create(
        table=table,
        number=number,
        deck=deck,
        setup=engine.setup_without_deck,
        state=engine.snapshot(),
    )
    hand_row.record(engine, since=0)
    positions = position_names(
        seats=engine.seats, button=engine.button,
        small_blind_seat=engine.small_blind_seat, big_blind_seat=engine.big_blind_seat,
    )  # fmt: skip
    hand_row.seat_players_set({n: players[n] for n in plan.dealt}, positions)
    fairness.hand_commit(hand_id=hand_row.pk, deal=deal, now=now)
    if not table.is_tournament:  # a tournament's chips are the seats', not the ledger's
        cashier.hand_stacks_commit(
            table_id=table.pk, hand_id=hand_row.pk, players=[players[n] for n in plan.dealt]
        )
    if plan.button_draw is not None:
        change.event(
            ButtonDrawn(
                type="button_drawn",
                cards={str(seat): card for seat, card in plan.button_draw.items()},
                button=plan.button,
            )
        )
    _dealt_seats_mark(table, seats, plan, players, now)
    change.hand(hand_row, engine, 0)
    advance(change, hand_row, engine, since=0, now=now, new_hand=True)
    return hand_row
