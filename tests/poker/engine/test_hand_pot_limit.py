"""Pot-limit betting (RULES.md 3): minimum bet and raise, the pot-sized maximum, short all-ins."""

import pytest

from poker.engine.hand import LIMIT_BETS_PER_ROUND, IllegalAction
from tests.poker.engine.conftest import new_hand, play


def to_flop(hand, *calls):
    """Everyone calls preflop (given as moves) so the flop is dealt."""
    play(hand, *calls)
    assert hand.street_name == "flop"
    return hand


def test_minimum_bet_is_the_big_blind():
    hand = to_flop(new_hand(), "3 call", "1 call", "2 check")
    legal = hand.legal_actions()
    assert legal.raise_kind == "bet"
    assert legal.min_to == 10
    with pytest.raises(IllegalAction) as error:
        hand.act(1, "bet", 9)
    assert error.value.code == "amount_too_small"


def test_worked_example_raise_after_5_and_15_is_to_at_least_25():
    """RULES.md 3 (002): after a bet of 5 and a raise to 15, the next raise is to at least 25."""
    hand = new_hand(small_blind=2, big_blind=5)
    to_flop(hand, "3 call", "1 call", "2 check")
    play(hand, "1 bet 5", "2 raise 15")
    legal = hand.legal_actions()
    assert legal.seat == 3 and legal.raise_kind == "raise"
    assert legal.min_to == 25
    with pytest.raises(IllegalAction):
        hand.act(3, "raise", 24)
    play(hand, "3 raise 25")


def test_minimum_raise_never_below_the_big_blind():
    """A short all-in bet of 4 (big blind 10) leaves the minimum raise at 4 + 10."""
    hand = new_hand((14, 1000, 1000))
    to_flop(hand, "3 call", "1 call", "2 check")
    play(hand, "1 all_in")
    assert hand.current_bet == 4
    legal = hand.legal_actions()
    assert legal.seat == 2 and legal.raise_kind == "raise" and legal.min_to == 14


def test_short_all_in_bet_does_not_reopen_for_players_who_checked():
    """docs/rules.md: a check is an action; an all-in bet under the big blind is not a full bet."""
    hand = new_hand((1000, 1000, 14))
    to_flop(hand, "3 call", "1 call", "2 check")
    play(hand, "1 check", "2 check", "3 all_in")
    legal = hand.legal_actions()
    assert legal.seat == 1 and legal.call == 4 and legal.raise_kind is None


def test_worked_example_pot_200_bet_150_call_150_makes_at_most_800():
    """RULES.md 3 (001): pot $200, bet $150, call $150: the next player may make it $800."""
    hand = new_hand((100_000,) * 4, small_blind=2500, big_blind=5000)
    to_flop(hand, "3 call", "4 call", "1 call", "2 check")
    assert hand.pot == 20_000
    assert hand.legal_actions().max_to == 20_000  # a bet may be the pot
    play(hand, "1 bet 15000", "2 call")
    legal = hand.legal_actions()
    assert legal.seat == 3
    assert legal.call == 15_000
    assert legal.max_to == 80_000  # $150 to call and $650 more
    with pytest.raises(IllegalAction) as error:
        hand.act(3, "raise", 80_001)
    assert error.value.code == "amount_too_large"
    play(hand, "3 raise 80000")


def test_preflop_pot_raise_counts_the_blinds_and_the_call():
    hand = new_hand((1000,) * 4)
    legal = hand.legal_actions()
    assert legal.seat == 3
    assert (legal.min_to, legal.max_to) == (20, 35)  # 10 + (5 + 10 + 10)


def test_all_in_for_less_than_the_maximum_is_allowed():
    hand = new_hand((1000, 1000, 30))
    legal = hand.legal_actions()
    assert legal.seat == 3 and legal.max_to == 30 and legal.all_in == 30
    play(hand, "3 all_in")
    assert hand.events[-1]["action"] == "raise" and hand.events[-1]["all_in"]


def test_all_in_not_offered_above_the_pot_limit():
    hand = new_hand((1000, 1000, 1000))
    legal = hand.legal_actions()
    assert legal.max_to == 35 and not legal.all_in
    with pytest.raises(IllegalAction) as error:
        hand.act(3, "all_in")
    assert error.value.code == "cannot_all_in"


def short_all_in_table(stacks_behind_c, stacks_behind_d):
    """Four players see a flop for 10 each; C (seat 3) and D (seat 4) have the given stacks left."""
    hand = new_hand((1000, 1000, 10 + stacks_behind_c, 10 + stacks_behind_d))
    return to_flop(hand, "3 call", "4 call", "1 call", "2 check")


def test_short_all_in_does_not_reopen_for_players_who_acted():
    hand = short_all_in_table(18, 1000)
    play(hand, "1 bet 10", "2 call", "3 all_in")
    assert hand.current_bet == 18
    play(hand, "4 call")
    legal = hand.legal_actions()
    assert legal.seat == 1 and legal.call == 8
    assert legal.raise_kind is None  # A may only call or fold
    with pytest.raises(IllegalAction) as error:
        hand.act(1, "raise", 28)
    assert error.value.code == "cannot_raise"


def test_short_all_in_leaves_raising_open_to_players_yet_to_act():
    hand = short_all_in_table(18, 1000)
    play(hand, "1 bet 10", "2 call", "3 all_in")
    legal = hand.legal_actions()
    assert legal.seat == 4 and legal.raise_kind == "raise" and legal.min_to == 28


def test_worked_example_consecutive_short_all_ins_reopen_the_betting():
    """RULES.md 3 (002): A bets 10, B calls, C all-in to 18, D all-in to 25: A and B may raise."""
    hand = short_all_in_table(18, 25)
    play(hand, "1 bet 10", "2 call", "3 all_in", "4 all_in")
    assert hand.current_bet == 25
    legal = hand.legal_actions()
    assert legal.seat == 1 and legal.raise_kind == "raise"
    assert legal.min_to == 35  # 25 + the largest full bet, 10
    play(hand, "1 call")
    assert hand.legal_actions().seat == 2 and hand.legal_actions().raise_kind == "raise"


def test_consecutive_short_all_ins_short_of_a_full_raise_do_not_reopen():
    hand = short_all_in_table(14, 18)  # +4 then +4: 8 < 10
    play(hand, "1 bet 10", "2 call", "3 all_in", "4 all_in")
    assert hand.legal_actions().raise_kind is None


def test_a_call_between_short_all_ins_breaks_the_run():
    """ "With no call in between": C +8, E calls, D +7 does not reopen for A and B."""
    hand = new_hand((1000, 1000, 28, 35, 1000))
    play(hand, "3 call", "4 call", "5 call", "1 call", "2 check")
    play(hand, "1 bet 10", "2 call", "3 all_in", "4 call")
    # D called C's 18 (not all-in: 35 - 10 - 18 = 7 left); now the run is broken.
    play(hand, "5 call")
    legal = hand.legal_actions()
    assert legal.seat == 1 and legal.raise_kind is None


def test_raise_after_reopening_uses_the_largest_full_increment():
    hand = new_hand((1000,) * 3)
    to_flop(hand, "3 call", "1 call", "2 check")
    play(hand, "1 bet 10", "2 raise 50")  # increment 40
    assert hand.legal_actions().min_to == 90


def test_uncalled_part_of_a_bet_goes_back():
    hand = new_hand((1000, 1000, 60))
    to_flop(hand, "3 call", "1 call", "2 check")
    play(hand, "1 bet 30", "2 raise 100", "3 all_in", "1 fold")
    returned = [event for event in hand.events if event["type"] == "uncalled_bet_returned"]
    assert returned == [{"type": "uncalled_bet_returned", "seat": 2, "amount": 50}]
    assert hand.committed == [40, 60, 60]
    assert hand.board and len(hand.board) == 5  # seat 3 all-in: the board is run out


def test_short_all_in_raise_preflop_does_not_reopen_for_a_limper():
    """The big blind is the full bet preflop: an all-in to 19 over it is short of a raise."""
    hand = new_hand((1000, 1000, 1000, 19))
    play(hand, "3 call", "4 all_in", "1 call", "2 call")
    legal = hand.legal_actions()
    assert legal.seat == 3 and legal.call == 9 and legal.raise_kind is None


def test_a_call_between_two_short_all_ins_keeps_them_from_adding_up():
    """RULES.md 3: only short all-ins "with no call in between" add up to a reopening raise.
    C all-in +8, D calls, E all-in +7: 8 + 7 >= 10, but the call broke the run."""
    hand = new_hand((1000, 1000, 28, 1000, 35))
    to_flop(hand, "3 call", "4 call", "5 call", "1 call", "2 check")
    play(hand, "1 bet 10", "2 call", "3 all_in", "4 call", "5 all_in")
    assert hand.current_bet == 25
    legal = hand.legal_actions()
    assert legal.seat == 1 and legal.call == 15 and legal.raise_kind is None
    unbroken = new_hand((1000, 1000, 28, 35, 1000))
    to_flop(unbroken, "3 call", "4 call", "5 call", "1 call", "2 check")
    play(unbroken, "1 bet 10", "2 call", "3 all_in", "4 all_in", "5 call")
    assert unbroken.legal_actions().seat == 1
    assert unbroken.legal_actions().raise_kind == "raise"  # the same all-ins, no call between


def raise_around(hand, first: int, raises: int, seats: int = 3) -> list[int]:
    """`raises` raises in turn from seat `first`, the minimum and the pot by turns; returns
    the totals raised to."""
    totals, seat = [], first
    for k in range(raises):
        legal = hand.legal_actions()
        assert legal.seat == seat and legal.raise_kind == "raise", (k, legal)
        to = legal.min_to if k % 2 == 0 else legal.max_to
        hand.act(seat, "raise", to)
        totals.append(to)
        seat = seat % seats + 1
    return totals


@pytest.mark.parametrize("game", ["omaha", "omaha8"])
def test_no_cap_on_the_number_of_raises(game):
    """RULES.md 3 (001): the fixed-limit cap (one bet and three raises a round) is no
    pot-limit rule: preflop and on the flop, three times the cap's raises are each accepted."""
    hand = new_hand((10**12,) * 3, game=game)
    raises = 3 * LIMIT_BETS_PER_ROUND
    preflop = raise_around(hand, first=3, raises=raises)
    assert hand.street_name == "preflop" and hand.current_bet == preflop[-1]
    play(hand, "3 call", "1 call")  # the last raise was seat 2's
    assert hand.street_name == "flop"
    play(hand, "1 bet 10")
    flop = raise_around(hand, first=2, raises=raises)
    assert flop == sorted(flop) and len(set(flop)) == raises  # each a raise on the one before
    assert hand.street_name == "flop" and hand.current_bet == flop[-1]
    play(hand, "2 call", "3 call")  # the last raise was seat 1's
    assert hand.street_name == "turn"
