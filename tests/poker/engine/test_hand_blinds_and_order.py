"""Blinds, dealing and the order of action (RULES.md 1, 3 and 4)."""

import pytest

from poker.engine.hand import Hand, InvalidSetup
from tests.poker.engine.conftest import build_deck, final_stacks, new_hand, play


def test_hole_cards_one_at_a_time_from_left_of_the_button_button_last():
    deck = build_deck(players=3)
    hand = Hand.start(
        game="omaha",
        structure="pot-limit",
        seats={2: 500, 5: 500, 9: 500},
        button=5,
        small_blind_seat=9,
        big_blind_seat=2,
        deck=deck,
        small_blind=5,
        big_blind=10,
    )
    assert hand.seats == [9, 2, 5]
    dealt = next(e for e in hand.events if e["type"] == "hole_cards_dealt")["hole_cards"]
    assert dealt == [
        [9, [deck[0], deck[3], deck[6], deck[9]]],
        [2, [deck[1], deck[4], deck[7], deck[10]]],
        [5, [deck[2], deck[5], deck[8], deck[11]]],
    ]


def test_a_card_is_burned_before_flop_turn_and_river():
    deck = build_deck(players=2)
    hand = new_hand((1000, 1000))
    play(hand, "2 call", "1 check", "1 check", "2 check", "1 check", "2 check")
    streets = [e for e in hand.events if e["type"] == "street_dealt"]
    assert [(e["street"], e["burn"], e["cards"]) for e in streets] == [
        ("flop", deck[8], deck[9:12]),
        ("turn", deck[12], [deck[13]]),
        ("river", deck[14], [deck[15]]),
    ]
    assert hand.burns == [deck[8], deck[12], deck[14]]


def test_preflop_starts_left_of_the_big_blind_and_later_streets_left_of_the_button():
    hand = new_hand((1000,) * 5)
    assert hand.to_act == 3
    play(hand, "3 call", "4 call", "5 call", "1 call")
    assert hand.to_act == 2  # the big blind's option
    play(hand, "2 check")
    assert hand.street_name == "flop" and hand.to_act == 1
    play(hand, "1 check", "2 check", "3 check", "4 check", "5 check")
    assert hand.street_name == "turn"


def test_later_streets_skip_folded_and_all_in_players():
    hand = new_hand((10, 1000, 1000, 1000))  # seat 1 posts 5, calls all-in for 10
    play(hand, "3 call", "4 call", "1 call", "2 check")
    assert hand.street_name == "flop" and hand.to_act == 2


def test_heads_up_button_posts_small_blind_acts_first_preflop_last_after():
    hand = new_hand((1000, 1000))
    posted = {e["seat"]: e["blind"] for e in hand.events if e["type"] == "blind_posted"}
    assert posted == {2: "small", 1: "big"}
    assert hand.to_act == 2  # the button
    play(hand, "2 call")
    assert hand.to_act == 1
    play(hand, "1 check")
    assert hand.street_name == "flop" and hand.to_act == 1  # the button acts last
    play(hand, "1 check")
    assert hand.to_act == 2


def test_heads_up_blinds_must_follow_the_rule():
    with pytest.raises(InvalidSetup) as error:
        new_hand((1000, 1000), small_blind_seat=1, big_blind_seat=2)
    assert error.value.code == "bad_blinds"


def test_big_blind_may_check_when_nobody_raised():
    hand = new_hand((1000,) * 3)
    play(hand, "3 call", "1 call")
    legal = hand.legal_actions()
    assert legal.seat == 2 and legal.can_check and legal.can_fold  # folding is always open
    assert legal.raise_kind == "raise"


def test_a_player_may_fold_when_checking_is_free():
    """000-002: a player may fold at any point of a hand, a free check included."""
    hand = new_hand((1000,) * 3)
    play(hand, "3 call", "1 call", "2 fold")  # the big blind throws away a free look
    assert hand.folded == [False, True, False]
    play(hand, "1 check", "3 check")
    assert hand.street_name == "turn"
    play(hand, "1 fold")  # a free check again: folding ends the hand for seat 3
    assert hand.is_over
    assert final_stacks(hand) == {1: 990, 2: 990, 3: 1020}


def test_blinds_are_live():
    hand = new_hand((1000,) * 3)
    play(hand, "3 raise 30")
    assert hand.legal_actions().call == 25  # the small blind's 5 counts
    play(hand, "1 call")
    assert hand.legal_actions().call == 20
    play(hand, "2 call")
    assert hand.committed == [30, 30, 30]


def test_extra_big_blinds_are_live_and_get_their_option():
    """RULES.md 4: a new player may post a big blind to be dealt in now; several may."""
    hand = new_hand((1000,) * 6, extra_big_blind_seats=[4, 5])
    posted = [
        (e["seat"], e["blind"], e["amount"]) for e in hand.events if e["type"] == "blind_posted"
    ]
    assert posted == [(1, "small", 5), (2, "big", 10), (4, "extra big", 10), (5, "extra big", 10)]
    assert hand.to_act == 3  # left of the (first) big blind
    play(hand, "3 call")
    legal = hand.legal_actions()
    assert legal.seat == 4 and legal.can_check and legal.raise_kind == "raise"
    play(hand, "4 check", "5 check", "6 call", "1 call")
    assert hand.legal_actions().seat == 2 and hand.legal_actions().can_check
    play(hand, "2 check")
    assert hand.street_name == "flop" and hand.pot == 60


def test_extra_big_blind_facing_a_raise_calls_the_difference():
    hand = new_hand((1000,) * 4, extra_big_blind_seats=[4])
    play(hand, "3 raise 30")
    assert hand.legal_actions().seat == 4 and hand.legal_actions().call == 20


def test_no_small_blind():
    hand = new_hand((1000,) * 3, small_blind_seat=None)
    assert [e["blind"] for e in hand.events if e["type"] == "blind_posted"] == ["big"]
    assert hand.to_act == 3
    play(hand, "3 call", "1 call", "2 check")
    assert hand.pot == 30


def test_big_blind_short_goes_all_in_and_others_still_call_the_full_blind():
    """docs/rules.md: a short big blind is all-in; the bet to call stays the full blind."""
    hand = new_hand((1000, 3, 1000))
    assert hand.events[2] == {
        "type": "blind_posted",
        "seat": 2,
        "blind": "big",
        "amount": 3,
        "all_in": True,
    }
    assert hand.legal_actions().call == 10
    play(hand, "3 call", "1 call")
    assert hand.street_name == "flop"
    assert hand.committed == [10, 3, 10]


def test_small_blind_short_goes_all_in():
    hand = new_hand((2, 1000, 1000))
    assert hand.events[1]["amount"] == 2 and hand.events[1]["all_in"]
    play(hand, "3 call", "2 check")
    assert hand.street_name == "flop" and hand.to_act == 2


def test_blinds_covering_everyone_run_the_board_out():
    hand = new_hand((4, 8), small_blind_seat=2, big_blind_seat=1)
    assert hand.is_over and len(hand.board) == 5
    assert sum(final_stacks(hand).values()) == 12


def test_small_blind_against_a_short_all_in_big_blind_need_not_act():
    """Heads-up: big blind all-in for 3, the small blind's 5 already covers it."""
    hand = new_hand((3, 1000))
    assert hand.is_over
    returned = [e for e in hand.events if e["type"] == "uncalled_bet_returned"]
    assert returned == [{"type": "uncalled_bet_returned", "seat": 2, "amount": 2}]
    assert sum(final_stacks(hand).values()) == 1003


def test_dead_button_seat_not_dealt_in():
    hand = Hand.start(
        game="omaha",
        structure="pot-limit",
        seats={1: 500, 3: 500, 4: 500},
        button=2,
        small_blind_seat=3,
        big_blind_seat=4,
        deck=build_deck(players=3),
        small_blind=5,
        big_blind=10,
    )
    assert hand.seats == [3, 4, 1] and hand.to_act == 1


@pytest.mark.parametrize(
    ("change", "code"),
    [
        ({"game": "holdem"}, "bad_game"),
        ({"structure": "no-limit"}, "bad_structure"),
        ({"seats": {1: 500}}, "bad_seats"),
        ({"seats": {1: 500, 2: 0, 3: 500}}, "bad_seats"),
        ({"seats": {1: 500, 2: 500, 11: 500}}, "bad_seats"),
        ({"seats": {1: 500, 2: 500.0, 3: 500}}, "bad_seats"),
        ({"seats": {seat: 500 for seat in range(1, 8)}}, "bad_seats"),  # pot limit seats 6
        ({"button": 0}, "bad_button"),
        ({"big_blind_seat": 7}, "bad_blinds"),
        ({"small_blind_seat": 2}, "bad_blinds"),
        ({"extra_big_blind_seats": [2]}, "bad_blinds"),
        ({"small_blind": 20}, "bad_stakes"),
        ({"big_blind": 0}, "bad_stakes"),
        ({"big_blind": True}, "bad_stakes"),
        ({"small_bet": 10}, "bad_stakes"),
        ({"deck": ["As"] * 52}, "bad_deck"),
        ({"deck": build_deck(players=3)[:51]}, "bad_deck"),
        ({"deck": [*build_deck(players=3)[:51], "1x"]}, "bad_deck"),
        ({"deck": [*build_deck(players=3)[:51], "as"]}, "bad_deck"),
        ({"rake": {"tiers": []}}, "bad_rake"),
    ],
)
def test_a_hand_that_cannot_be_dealt_is_refused_with_a_reason(change, code):
    setup = {
        "game": "omaha",
        "structure": "pot-limit",
        "seats": {1: 500, 2: 500, 3: 500},
        "button": 3,
        "small_blind_seat": 1,
        "big_blind_seat": 2,
        "deck": build_deck(players=3),
        "small_blind": 5,
        "big_blind": 10,
    }
    with pytest.raises(InvalidSetup) as error:
        Hand.start(**{**setup, **change})
    assert error.value.code == code and error.value.reason


def test_limit_seats_ten_and_needs_its_bets():
    hand = new_hand((500,) * 10, structure="limit")
    assert len(hand.seats) == 10
    with pytest.raises(InvalidSetup):
        Hand.start(
            game="omaha",
            structure="limit",
            seats={1: 500, 2: 500},
            button=2,
            small_blind_seat=2,
            big_blind_seat=1,
            deck=build_deck(players=2),
            small_bet=10,
        )
