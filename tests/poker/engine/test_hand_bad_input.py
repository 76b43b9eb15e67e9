"""Bad input is refused with a machine code and a human reason, and changes nothing."""

import pytest

from poker.engine.hand import IllegalAction
from tests.poker.engine.conftest import new_hand, play


def refused(hand, seat, action, amount=None):
    """Assert the action is refused, the state byte-for-byte unchanged; return the error."""
    before = hand.to_json()
    with pytest.raises(IllegalAction) as error:
        hand.act(seat, action, amount)
    assert hand.to_json() == before
    assert error.value.code and error.value.reason
    assert str(error.value) == error.value.reason
    return error.value


@pytest.mark.parametrize(
    ("amount", "code"),
    [
        (-20, "amount_too_small"),
        (0, "amount_too_small"),
        (19, "amount_too_small"),
        (36, "amount_too_large"),
        (10**30, "amount_too_large"),
        (25.0, "bad_amount"),
        (25.5, "bad_amount"),
        (True, "bad_amount"),
        ("25", "bad_amount"),
        (None, "bad_amount"),
        ([25], "bad_amount"),
    ],
)
def test_illegal_raise_amounts(amount, code):
    hand = new_hand((1000,) * 3)
    assert refused(hand, 3, "raise", amount).code == code


def test_acting_out_of_turn():
    hand = new_hand((1000,) * 3)
    error = refused(hand, 1, "call")
    assert error.code == "not_your_turn" and "seat 3" in error.reason
    assert refused(hand, 7, "fold").code == "not_your_turn"  # not even in the hand
    assert refused(hand, "3", "fold").code == "not_your_turn"
    assert refused(hand, True, "fold").code == "not_your_turn"


@pytest.mark.parametrize("action", ["shove", "", "FOLD", None, 3, "bet-to", ["fold"]])
def test_unknown_actions(action):
    hand = new_hand((1000,) * 3)
    assert refused(hand, 3, action).code == "unknown_action"


def test_acting_after_the_hand_ended():
    hand = new_hand((1000,) * 3)
    play(hand, "3 fold", "1 fold")
    assert hand.is_over
    for seat, action in [(2, "check"), (2, "fold"), (3, "call"), (2, "nonsense")]:
        assert refused(hand, seat, action).code == "hand_over"
    with pytest.raises(IllegalAction):
        hand.default_action()


def test_wrong_kind_of_action_for_the_situation():
    hand = new_hand((1000,) * 3)
    assert refused(hand, 3, "check").code == "cannot_check"
    assert refused(hand, 3, "bet", 20).code == "wrong_action"  # there is a bet: raise
    play(hand, "3 call", "1 call")
    assert refused(hand, 2, "call").code == "cannot_call"
    assert refused(hand, 2, "fold").code == "cannot_fold"
    play(hand, "2 check")
    assert refused(hand, 1, "raise", 20).code == "wrong_action"  # nothing to raise: bet


def test_amounts_are_refused_where_none_belongs():
    hand = new_hand((1000,) * 3)
    assert refused(hand, 3, "call", 10).code == "unexpected_amount"
    assert refused(hand, 3, "fold", 0).code == "unexpected_amount"
    assert refused(hand, 3, "all_in", 1000).code == "unexpected_amount"


def test_raise_when_the_betting_is_closed_to_the_player():
    hand = new_hand((1000, 1000, 14))
    play(hand, "3 call", "1 call", "2 check", "1 check", "2 check", "3 all_in")
    assert refused(hand, 1, "raise", 14).code == "cannot_raise"


def test_timeout_default_is_check_when_possible_else_fold():
    hand = new_hand((1000,) * 3)
    assert hand.default_action() == "fold"
    play(hand, "3 call", "1 call")
    assert hand.default_action() == "check"
    hand.act(hand.to_act, hand.default_action())
    assert hand.street_name == "flop"
