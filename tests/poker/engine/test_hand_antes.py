"""Antes (a Sit & Go's levels, docs/rules.md "Antes"): every player dealt in posts one before
the blinds; dead chips in the pot, not part of any bet; a player with less is all-in for it."""

import pytest

from poker.engine.hand import Hand, InvalidSetup
from poker.engine.phh import dumps, hand_from_phh, loads
from tests.poker.engine.conftest import awards, final_stacks, new_hand, play

BOARD = "2c 7d 9h Js 3c"
# Seat 1 (small blind) kings, seat 2 (big blind) queens, seat 3 (the button) aces.
HOLE = ["Ks Kh 4d 5d", "Qs Qh 4c 5h", "As Ah Ad Kc"]


def test_antes_come_first_and_are_dead_chips_in_the_pot_not_bets():
    hand = new_hand((1000, 1000, 1000), small_blind=10, big_blind=20, ante=5)
    kinds = [(e["type"], e.get("seat")) for e in hand.events[:6]]
    assert kinds == [
        ("hand_started", None),
        ("ante_posted", 1),
        ("ante_posted", 2),
        ("ante_posted", 3),
        ("blind_posted", 1),
        ("blind_posted", 2),
    ]
    assert hand.events[0]["ante"] == 5 and hand.setup["ante"] == 5
    assert hand.bets == [10, 20, 0] and hand.committed == [15, 25, 5] and hand.pot == 45
    legal = hand.legal_actions()
    # The call is the big blind; pot limit's raise counts the antes in the pot: 20 to call,
    # then the pot of 65 on top: to 85.
    assert (legal.seat, legal.call, legal.max_to) == (3, 20, 85)


def test_a_player_all_in_for_less_than_the_ante_wins_only_the_antes_matched():
    hand = new_hand((1000, 1000, 30), small_blind=10, big_blind=20, ante=50, hole=HOLE, board=BOARD)
    antes = [
        (e["seat"], e["amount"], e["all_in"]) for e in hand.events if e["type"] == "ante_posted"
    ]
    assert antes == [(1, 50, False), (2, 50, False), (3, 30, True)]
    assert hand.to_act == 1  # the button is all-in already: the small blind acts first
    play(hand, "1 call", "2 check", *["1 check", "2 check"] * 3)
    # The main pot is 30 from each (90), the side pot the rest of seats 1 and 2 (40 each).
    assert [(pot["amount"], pot["eligible"]) for pot in awards(hand)] == [
        (90, [1, 2, 3]),
        (80, [1, 2]),
    ]
    assert final_stacks(hand) == {1: 1010, 2: 930, 3: 90}
    assert sum(final_stacks(hand).values()) == 2030
    assert Hand.replay(hand.setup, hand.events) == hand


def test_a_big_blind_all_in_on_the_ante_posts_no_blind_and_the_others_still_call_the_blind():
    hand = new_hand((1000, 40, 1000), small_blind=10, big_blind=20, ante=50)
    posted = [e for e in hand.events if e["type"] in ("ante_posted", "blind_posted")]
    assert [(e["type"], e["seat"], e["amount"]) for e in posted] == [
        ("ante_posted", 1, 50),
        ("ante_posted", 2, 40),
        ("ante_posted", 3, 50),
        ("blind_posted", 1, 10),
    ]
    legal = hand.legal_actions()
    assert (legal.seat, legal.call) == (3, 20)
    play(hand, "3 fold")
    # The small blind's bet is uncalled (nobody left to call it): back to them; the antes stay.
    assert hand.is_over or hand.to_act is None
    assert sum(final_stacks(hand).values()) == 2040


def test_no_ante_leaves_the_hand_as_it_was():
    hand = new_hand((1000, 1000, 1000))
    assert "ante" not in hand.setup and "ante" not in hand.events[0]
    assert not [e for e in hand.events if e["type"] == "ante_posted"]


@pytest.mark.parametrize("ante", [-1, "5", True, 1.5])
def test_a_bad_ante_is_refused(ante):
    with pytest.raises(InvalidSetup) as error:
        new_hand((1000, 1000), ante=ante)
    assert error.value.code == "bad_stakes"


def test_phh_writes_and_reads_the_antes():
    hand = new_hand((1000, 1000, 30), small_blind=10, big_blind=20, ante=50, hole=HOLE, board=BOARD)
    play(hand, "1 call", "2 check", *["1 check", "2 check"] * 3)
    text = dumps(hand)
    assert "antes = [50, 50, 50]" in text
    setup, _moves = hand_from_phh(loads(text))
    assert setup["ante"] == 50
