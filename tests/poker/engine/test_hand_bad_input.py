"""Bad input is refused with a machine code and a human reason, and changes nothing."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker.engine.cards import FULL_DECK
from poker.engine.hand import Hand, IllegalAction, InvalidSetup
from tests.poker.engine.conftest import new_hand, play, tables


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


def bad_actions(hand: Hand) -> list[tuple[object, object, object]]:
    """(seat, action, amount) the rules refuse right now, whatever the situation."""
    seat = hand.to_act
    if seat is None:  # the hand is over: everything is refused
        return [(number, "fold", None) for number in hand.seats] + [(hand.seats[0], "check", None)]
    legal = hand.legal_actions()
    others = [number for number in range(1, 11) if number != seat]
    bad: list[tuple[object, object, object]] = [
        (others[0], "fold", None),
        (others[-1], "call", None),
        (str(seat), "check", None),
        (seat, "shove", None),
        (seat, None, None),
        *([(seat, "check", None)] if legal.call else []),  # fold is always open
        (seat, "call", 1) if legal.call else (seat, "call", None),
        (seat, "check", 0),
        (seat, "bet" if legal.raise_kind != "bet" else "raise", legal.min_to or 10),
    ]
    kind = legal.raise_kind or "raise"
    if legal.raise_kind:
        bad += [
            (seat, kind, legal.min_to - 1),
            (seat, kind, legal.max_to + 1),
            (seat, kind, float(legal.min_to)),
            (seat, kind, None),
            (seat, kind, str(legal.min_to)),
        ]
    else:
        bad.append((seat, kind, legal.call + hand.bets[hand.actor] + 1))
    if not legal.all_in:
        bad.append((seat, "all_in", None))
    return bad


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(table=tables(), data=st.data())
def test_bad_input_anywhere_in_any_game_is_refused_and_changes_nothing(table, data):
    """At random points of random hands of all four games (and after they end), every kind of
    bad action is refused with a code and a reason, and the state stays byte-for-byte the same
    (`refused` compares `to_json()`)."""
    hand = Hand.start(**table)
    while True:
        for seat, action, amount in bad_actions(hand):
            refused(hand, seat, action, amount)
        if hand.is_over:
            break
        legal = hand.legal_actions()
        choices = [("check" if legal.can_check else "call", None)]
        if legal.can_fold:
            choices.append(("fold", None))
        if legal.raise_kind:
            choices.append((legal.raise_kind, legal.min_to))
        action, amount = data.draw(st.sampled_from(choices))
        hand.act(hand.to_act, action, amount)
    assert refused(hand, hand.seats[0], "check").code == "hand_over"


@pytest.mark.parametrize(
    "cards",
    [
        ["As", "Kd", "Qh", "Jc", "Ts", "9d", "8h", "7c", "6s"],  # fine: the control
        ["As", "Kd", "Qh", "Jc", "Ts", "9d", "8h", "7c", "1s"],
        ["As", "Kd", "Qh", "Jc", "Ts", "9d", "8h", "7c", "as"],
        ["As", "Kd", "Qh", "Jc", "Ts", "9d", "8h", "7c", "As"],
        ["As", "Kd", "Qh", "Jc", "Ts", "9d", "8h", "7c", None],
    ],
)
def test_a_deck_with_a_malformed_or_repeated_card_deals_no_hand(cards):
    """Malformed cards never reach a hand: the deck is refused before anything is dealt."""
    deck = [*cards, *(card for card in FULL_DECK if card not in cards)][:52]
    setup = {
        "game": "omaha8",
        "structure": "limit",
        "seats": {1: 1000, 2: 1000, 3: 1000},
        "button": 3,
        "small_blind_seat": 1,
        "big_blind_seat": 2,
        "deck": deck,
        "small_bet": 10,
        "big_bet": 20,
    }
    if cards[-1] == "6s":
        assert Hand.start(**setup).to_act == 3
        return
    with pytest.raises(InvalidSetup) as error:
        Hand.start(**setup)
    assert error.value.code == "bad_deck" and error.value.reason
