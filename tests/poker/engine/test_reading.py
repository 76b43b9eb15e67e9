"""The live hand reader: a player's best hand on the board so far, two hole cards and three board
cards, as the showdown would name it; in their own view only."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pokerkit import StandardHighHand

from poker.engine.cards import FULL_DECK
from poker.engine.evaluate import omaha_high, omaha_high_low8
from poker.engine.hand import Hand
from poker.engine.reading import read_hand
from poker.engine.views import public_view, reading_for, view_for
from tests.poker.engine.conftest import POKERKIT_LABELS, new_hand, play, tables


def cards(text):
    return text.split()


def high_of(hole, board):
    return read_hand(cards(hole), cards(board), hi_lo=False)["high"]


def low_of(hole, board):
    return read_hand(cards(hole), cards(board), hi_lo=True)["low"]


# -- worked examples: the misreadings the seeds describe


def test_four_hearts_on_the_board_and_one_in_hand_is_no_flush():
    high = high_of("Ah Kc Qd 2s", "9h 7h 5h 3h Jc")
    assert high["category"] != "flush"
    assert high["name"] == "high card, ace"
    assert high["cards"] == ["Ah", "Kc", "Jc", "9h", "7h"]


def test_two_suited_hole_cards_with_three_on_the_board_make_the_flush():
    high = high_of("Ah 2h Kc Qd", "9h 7h 5h 3c Jc")
    assert high["name"] == "flush, ace high"
    assert high["cards"] == ["Ah", "9h", "7h", "5h", "2h"]


def test_four_to_a_straight_on_the_board_needs_two_hole_cards_that_fit():
    # 9-T-J-Q on the board: a king and an eight in hand each fit it alone, together they do
    # not (K-8 with three of 9-T-J-Q is no straight), and the fours pair without one.
    assert high_of("Kc 8d 4h 2s", "9s Td Jh Qc 3d")["name"] == "high card, king"
    assert high_of("Kc 4d 4h 2s", "9s Td Jh Qc 3d")["name"] == "one pair, fours"
    high = high_of("Kc Ad 4h 2s", "9s Td Jh Qc 3d")
    assert high["name"] == "straight, ace high"
    assert high["cards"] == ["Ad", "Kc", "Qc", "Jh", "Td"]


def test_three_of_a_kind_on_the_board_is_not_a_full_house_with_one_pair_in_hand():
    # Board trips and a hole pair: only three board cards count, so the pair makes a full
    # house with two of the board's kings; four aces in hand make no four of a kind.
    assert high_of("Qc Qd 5h 2s", "Ks Kd Kh 7c 3d")["name"] == "full house, kings full of queens"
    assert high_of("Ac Ad Ah As", "Ks 9d 7h")["name"] == "one pair, aces"


def test_hi_lo_with_a_qualifying_low_from_two_hole_cards():
    reading = read_hand(cards("Ac 2d Kh Ks"), cards("4s 6h 8d Kc 9c"), hi_lo=True)
    assert reading["high"]["name"] == "three of a kind, kings"  # one king on the board
    assert reading["low"] == {
        "name": "8-6-4-2-A low",
        "category": "low",
        "cards": ["8d", "6h", "4s", "2d", "Ac"],
    }


def test_no_low_with_fewer_than_three_low_board_cards():
    # Four low cards in hand, two on the board (5 and 7): no eight-or-better low.
    reading = read_hand(cards("Ac 2d 3h 4s"), cards("5s 9h Td Kc 7c"), hi_lo=True)
    assert reading["low"] is None
    assert reading["high"]["name"] == "high card, ace"


def test_a_counterfeited_hole_card_leaves_the_low_of_the_other_two():
    # A-2 in hand, an ace and a deuce on board: the low uses the hand's 3 and 4 instead.
    reading = read_hand(cards("Ac 2d 3h 4s"), cards("As 2h 7d Kc Qc"), hi_lo=True)
    assert reading["low"]["name"] == "7-4-3-2-A low"
    assert reading["low"]["cards"] == ["7d", "4s", "3h", "2h", "As"]


def test_high_only_omaha_has_no_low_and_preflop_no_reading():
    assert read_hand(cards("Ac 2d 3h 4s"), cards("5s 6h 7d"), hi_lo=False)["low"] is None
    assert read_hand(cards("Ac 2d 3h 4s"), [], hi_lo=True) is None


@pytest.mark.parametrize(
    ("hole", "board"),
    [
        (["Ac", "2d", "3h"], ["5s", "6h", "7d"]),  # three hole cards
        (["Ac", "2d", "3h", "4s"], ["5s", "6h"]),  # two board cards
        (["Ac", "2d", "3h", "4s"], ["5s", "6h", "Ac"]),  # a card twice
        (["Ac", "2d", "3h", "Xx"], ["5s", "6h", "7d"]),  # not a card
        ([["Ac"], "2d", "3h", "4s"], ["5s", "6h", "7d"]),  # not even hashable
    ],
)
def test_bad_cards_are_refused_with_the_evaluators_error(hole, board):
    with pytest.raises(ValueError):
        read_hand(hole, board, hi_lo=True)


def test_a_reading_is_a_fresh_value_each_time():
    first = read_hand(cards("Ac 2d 3h 4s"), cards("5s 6h 7d"), hi_lo=True)
    first["high"]["cards"].clear()
    again = read_hand(cards("Ac 2d 3h 4s"), cards("5s 6h 7d"), hi_lo=True)
    assert len(again["high"]["cards"]) == 5


# -- the hand's views: the player's own reading only


def test_the_reading_is_in_the_players_own_view_only_from_the_flop_on():
    hand = new_hand((1000,) * 3, hole=["AhKh2c3d", "QsQdJcTc", "9s8s7d6d"], board="Qh 5h 4c 9d 9h")
    assert all(view_for(hand, seat)["reading"] is None for seat in (1, 2, 3))  # preflop
    play(hand, "3 call", "1 call", "2 check")
    assert hand.board == ["Qh", "5h", "4c"]
    # Four hearts and 2-3-4-5 in sight, but two hole cards only: ace high, no flush, no straight.
    assert view_for(hand, 1)["reading"] == {
        "high": {
            "name": "high card, ace",
            "category": "high card",
            "cards": ["Ah", "Kh", "Qh", "5h", "4c"],
        },
        "low": None,
    }
    assert view_for(hand, 2)["reading"]["high"]["name"] == "three of a kind, queens"
    assert public_view(hand)["reading"] is None
    assert view_for(hand, 7)["reading"] is None  # not dealt in
    # What seat 1 receives names nothing of seat 2's hand.
    text = json.dumps(view_for(hand, 1))
    for card in hand.hole_cards[1] + hand.hole_cards[2]:
        assert f'"{card}"' not in text


def test_a_player_who_folded_has_no_reading():
    hand = new_hand((1000,) * 3, board="Qh 5h 4c 9d 9h")
    play(hand, "3 call", "1 call", "2 check", "1 check", "2 bet 30", "3 fold")
    assert reading_for(hand, 3) is None
    assert reading_for(hand, 1) is not None


def test_the_reading_follows_the_board_street_by_street_in_hi_lo():
    hand = new_hand(
        (1000,) * 2, game="omaha8", hole=["Ac2dKhKs", "QsQdJcTc"], board="4s 6h Kc 8d 9c"
    )
    play(hand, "2 call", "1 check")
    flop = reading_for(hand, 1)  # 4-6-K: two low cards on the board, no low yet
    assert flop["high"]["name"] == "three of a kind, kings" and flop["low"] is None
    play(hand, "1 check", "2 check")
    turn = reading_for(hand, 1)  # the 8 makes A-2 a low
    assert turn["high"]["name"] == "three of a kind, kings"
    assert turn["low"]["cards"] == ["8d", "6h", "4s", "2d", "Ac"]
    play(hand, "1 check", "2 check")
    river = reading_for(hand, 1)
    assert river["high"]["name"] == "three of a kind, kings"
    assert river["low"]["name"] == "8-6-4-2-A low"
    assert reading_for(hand, 2)["high"]["name"] == "one pair, queens"  # J-T with 9-8-K: no straight


# -- properties


@settings(max_examples=400, deadline=None)
@given(
    deal=st.permutations(FULL_DECK).map(lambda deck: deck[:9]),
    board_size=st.integers(3, 5),
    hi_lo=st.booleans(),
)
def test_a_reading_is_two_hole_cards_and_three_board_cards_valued_as_at_showdown(
    deal, board_size, hi_lo
):
    hole, board = deal[:4], deal[4 : 4 + board_size]
    reading = read_hand(hole, board, hi_lo=hi_lo)
    high, low = omaha_high_low8(hole, board) if hi_lo else (omaha_high(hole, board), None)
    for value, shown in ((high, reading["high"]), (low, reading["low"])):
        if value is None:
            assert shown is None
            continue
        assert len(shown["cards"]) == len(set(shown["cards"])) == 5
        assert len(set(shown["cards"]) & set(hole)) == 2
        assert len(set(shown["cards"]) & set(board)) == 3
        assert shown == {"name": value.name, "category": value.category, "cards": [*value.cards]}
    # The five cards named make that category by themselves (pokerkit scores them alone).
    five = StandardHighHand("".join(reading["high"]["cards"]))
    assert five.entry.label.value == POKERKIT_LABELS[reading["high"]["category"]]
    if reading["low"] is not None:
        ranks = [card[0] for card in reading["low"]["cards"]]
        assert len(set(ranks)) == 5 and set(ranks) <= set("A2345678")
        assert reading["low"]["name"] == "-".join(ranks) + " low"


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(table=tables(), data=st.data())
def test_the_reading_on_the_river_is_the_hand_each_player_shows(table, data):
    hand = Hand.start(**table)
    while not hand.is_over:
        for seat in [None, *hand.seats]:
            reading = view_for(hand, seat)["reading"]
            if reading is None:
                continue
            own = set(hand.hole_cards[hand.seats.index(seat)])
            assert len(set(reading["high"]["cards"]) & own) == 2
            assert set(reading["high"]["cards"]) <= own | set(hand.board)
        legal = hand.legal_actions()  # mostly checked and called down, to reach showdowns
        if legal.can_check:
            hand.act(legal.seat, "check")
        elif legal.call and data.draw(st.integers(0, 5)):
            hand.act(legal.seat, "call")
        else:
            hand.act(legal.seat, "fold")
    for entry in hand.result["showdown"]:
        if entry["shown"]:
            reading = reading_for(hand, entry["seat"])
            assert reading == {"high": entry["high"], "low": entry["low"]}
