"""A player's seat options (docs/rules.md "Seat options"): sit out at the next big blind,
leave after this hand, and auto top-up / auto re-buy through the cashier."""

import pytest
from django.utils import timezone

from cashier.selectors import table_stack_balance, wallet_balance
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, HandEvent, Seat
from poker.selectors import table_state_for
from poker.services import TableError
from tests.factories import act_for_the_player_to_act as act
from tests.factories import (
    bust_seat_one,
    deal_hand,
    make_funded_player,
    make_seated_player,
    make_table,
)

pytestmark = pytest.mark.django_db


def _options(player, table) -> dict:
    return table_state_for(table=table, player=player)["you"]["options"]


def _play_out(hand: Hand, players: dict) -> Hand:
    """Everyone calls or checks until the end."""
    for _ in range(200):
        hand.refresh_from_db()
        if hand.status != Hand.Status.RUNNING:
            return hand
        legal = EngineHand.from_dict(hand.state).legal_actions()
        act(hand, players, "call" if legal.call else "check")
    raise AssertionError("the hand did not end")


def test_options_are_off_until_set_and_bad_ones_change_nothing():
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    assert _options(ann, table) == {
        "sit_out_next_big_blind": False,
        "leave_after_hand": False,
        "auto_top_up": False,
    }
    services.table_seat_options_set(table=table, player=ann, auto_top_up=True)
    assert _options(ann, table)["auto_top_up"] is True
    for bad in ({"auto_top_up": "yes"}, {"sit_out_next_big_blind": 1}, {}):
        with pytest.raises(TableError) as refused:
            services.table_seat_options_set(table=table, player=ann, **bad)
        assert refused.value.code == "bad_field"
    assert _options(ann, table)["auto_top_up"] is True
    with pytest.raises(TableError) as refused:
        services.table_seat_options_set(
            table=table, player=make_funded_player("zed"), auto_top_up=True
        )
    assert refused.value.code == "not_seated"


def test_sit_out_next_big_blind_sits_the_player_out_when_it_reaches_them():
    table = make_table()
    names = {1: "ann", 2: "ben", 3: "cy"}
    players = {n: make_seated_player(table, name, n) for n, name in names.items()}
    hand = _play_out(deal_hand(table), players)
    table.refresh_from_db()
    # The next big blind is the seat after this hand's (three players, all playing).
    next_big_blind = table.big_blind_seat % 3 + 1
    # Heads-up after it, the last big blind takes the button (RULES.md 4, "Going heads-up").
    other = table.big_blind_seat
    for number in (next_big_blind, other):
        services.table_seat_options_set(
            table=table, player=players[number], sit_out_next_big_blind=True
        )
    hand = deal_hand(table)
    assert hand is not None and not hand.is_dealt(next_big_blind)
    assert hand.is_dealt(other)  # the big blind has not reached them yet: they play on
    seat = Seat.objects.get(table=table, number=next_big_blind)
    assert seat.status == Seat.Status.SITTING_OUT and not seat.sit_out_next_big_blind
    assert Seat.objects.get(table=table, number=other).sit_out_next_big_blind
    engine = EngineHand.from_dict(hand.state)
    assert next_big_blind not in engine.seats and len(engine.seats) == 2


def test_leave_after_this_hand_plays_the_hand_then_stands_up_with_the_chips():
    table = make_table()
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = deal_hand(table)
    leaver = EngineHand.from_dict(hand.state).to_act
    services.table_seat_options_set(table=table, player=players[leaver], leave_after_hand=True)
    hand.refresh_from_db()
    # Still in the hand and still to act: nothing is played for them (unlike "Leave table").
    assert EngineHand.from_dict(hand.state).to_act == leaver
    assert not HandEvent.objects.filter(hand=hand, kind="action").exists()
    act(hand, players, "call")
    hand = _play_out(hand, players)
    assert not Seat.objects.filter(table=table, player=players[leaver]).exists()
    final = next(s for s in hand.result["seats"] if s["seat"] == leaver)["final_stack"]
    assert wallet_balance(player=players[leaver]) == 100_000 - table.max_buy_in + final
    assert table_stack_balance(player=players[leaver], table=table) == 0


def test_leave_after_this_hand_between_hands_stands_up_at_once():
    table = make_table()
    ann = make_seated_player(table, "ann", 1)
    assert services.table_seat_options_set(table=table, player=ann, leave_after_hand=True) is None
    assert not Seat.objects.filter(player=ann).exists()
    assert wallet_balance(player=ann) == 100_000


def test_auto_top_up_brings_the_stack_back_to_the_most_allowed_after_a_hand():
    table = make_table()
    players = {
        1: make_seated_player(table, "ann", 1, buy_in=6000),
        2: make_seated_player(table, "ben", 2, buy_in=6000),
    }
    services.table_seat_options_set(table=table, player=players[1], auto_top_up=True)
    hand = deal_hand(table)
    act(hand, players, "fold")
    hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED
    net = {s["seat"]: s["net"] for s in hand.result["seats"]}
    assert table_stack_balance(player=players[1], table=table) == table.max_buy_in
    # Bought in for 6,000, the hand's net, then topped up to 10,000 from the wallet.
    assert wallet_balance(player=players[1]) == 100_000 - table.max_buy_in + net[1]
    assert table_stack_balance(player=players[2], table=table) == 6000 + net[2]


def _auto_top_up_against_ben(table, *, wallet: int, buy_in: int) -> dict:
    """Ann (seat 1) with `wallet` cents, `buy_in` of them at the table and auto top-up on;
    Ben (seat 2) with the maximum."""
    ann = make_funded_player("ann", cents=wallet)
    services.table_sit(
        table=table, player=ann, seat_number=1, buy_in=buy_in, post_big_blind=False,
        idempotency_key="sit-ann",
    )  # fmt: skip
    services.table_seat_options_set(table=table, player=ann, auto_top_up=True)
    return {1: ann, 2: make_seated_player(table, "ben", 2)}


def test_auto_top_up_uses_what_the_wallet_has():
    table = make_table()
    players = _auto_top_up_against_ben(table, wallet=6_100, buy_in=6000)
    ann = players[1]
    hand = deal_hand(table)
    act(hand, players, "fold")
    assert wallet_balance(player=ann) == 0
    assert table_stack_balance(player=ann, table=table) > 6000 - 100


def test_auto_re_buy_buys_a_bust_player_in_again_and_keeps_them_in():
    table = make_table()
    players = {
        1: make_seated_player(table, "ann", 1, buy_in=5000),
        2: make_seated_player(table, "ben", 2),
    }
    services.table_seat_options_set(table=table, player=players[1], auto_top_up=True)
    bust_seat_one(table, players)
    assert table_stack_balance(player=players[1], table=table) == table.max_buy_in
    assert wallet_balance(player=players[1]) == 100_000 - 5000 - table.max_buy_in
    assert Seat.objects.get(player=players[1]).status != Seat.Status.SITTING_OUT


def test_no_re_buy_when_the_wallet_is_short_of_the_minimum():
    table = make_table()
    players = _auto_top_up_against_ben(table, wallet=9_000, buy_in=5000)
    ann = players[1]
    bust_seat_one(table, players)
    assert wallet_balance(player=ann) == 4000  # under the 5,000 minimum: nothing moved
    assert table_stack_balance(player=ann, table=table) == 0
    assert Seat.objects.get(player=ann).status == Seat.Status.SITTING_OUT


def test_auto_top_up_follows_the_ratholing_rules():
    """Auto top-up "within the ratholing rules" (RULES.md 5): Ann left this table with
    $150 minutes ago, so she may bring back from the $100 maximum up to $150 (`buy_in_terms`,
    "up_to_left_with"). She sits with $100 and auto top-up brings her to $150 after a hand, the
    most the rules let her have here, not the table's $100; a manual top-up past it is refused."""
    from datetime import timedelta

    from cashier.selectors import buy_in_terms
    from cashier.services import CashierError, table_top_up
    from tests.cashier.ratholing import play_and_leave
    from tests.factories import table_stakes

    table = make_table()
    assert table.max_buy_in == 10_000
    ann, feeder = make_funded_player("ann"), make_funded_player("feeder", cents=1_000_000)
    play_and_leave(ann, table, left_with=15_000, at=timezone.now() - timedelta(minutes=5),
                   feeder=feeder)  # fmt: skip
    terms = buy_in_terms(player=ann, table=table)
    assert (terms.rule, terms.low, terms.high) == ("up_to_left_with", 10_000, 15_000)
    services.table_sit(table=table, player=ann, seat_number=1, buy_in=10_000,
                       post_big_blind=False, idempotency_key="sit-ann-again")  # fmt: skip
    players = {1: ann, 2: make_seated_player(table, "ben", 2)}
    services.table_seat_options_set(table=table, player=ann, auto_top_up=True)
    before = wallet_balance(player=ann)
    hand = deal_hand(table)
    act(hand, players, "fold")
    hand.refresh_from_db()
    net = {s["seat"]: s["net"] for s in hand.result["seats"]}[1]
    assert table_stack_balance(player=ann, table=table) == 15_000
    assert wallet_balance(player=ann) == before - (15_000 - (10_000 + net))
    with pytest.raises(CashierError):
        table_top_up(player=ann, **table_stakes(table), amount=1, idempotency_key="one-more")
