"""Fixed-limit betting (RULES.md 3): bet sizes by street, blinds from the stakes, the cap, and
the half-bet Decision for short all-ins."""

import pytest

from poker.engine.hand import IllegalAction, limit_small_blind
from tests.poker.engine.conftest import final_stacks, new_hand, play


def limit_hand(stacks=(100_000,) * 4, **options):
    options.setdefault("small_bet", 1000)
    return new_hand(stacks, structure="limit", **options)


def test_worked_example_limit_5_10_small_blind_is_2_dollars():
    """RULES.md 3 (000): $5/$10 gives a $2 small blind (half the small bet, whole dollars)."""
    assert limit_small_blind(500) == 200
    hand = limit_hand((10_000,) * 3, small_bet=500, big_bet=1000)
    posted = [(e["blind"], e["amount"]) for e in hand.events if e["type"] == "blind_posted"]
    assert posted == [("small", 200), ("big", 500)]


def test_small_blind_default_rounds_down_to_whole_dollars():
    assert limit_small_blind(1000) == 500  # $10/$20
    assert limit_small_blind(1500) == 700  # $15/$30: $7.50 -> $7
    assert limit_small_blind(300) == 100  # $3/$6: $1.50 -> $1


def test_small_blind_default_below_two_dollars_is_half_the_small_bet():
    """docs/rules.md: rounding down would leave no small blind under $2/$4."""
    assert limit_small_blind(100) == 50
    assert limit_small_blind(50) == 25


def test_table_may_set_its_own_small_blind():
    hand = limit_hand((10_000,) * 3, small_bet=500, big_bet=1000, small_blind=250)
    assert hand.events[1]["amount"] == 250


def test_big_blind_is_the_small_bet():
    hand = limit_hand()
    assert hand.big_blind == 1000
    legal = hand.legal_actions()
    assert (legal.call, legal.min_to, legal.max_to) == (1000, 2000, 2000)


def test_small_bet_preflop_and_flop_big_bet_turn_and_river():
    hand = limit_hand((100_000,) * 3, small_bet=1000, big_bet=2000)
    play(hand, "3 call", "1 call", "2 check")
    assert hand.street_name == "flop"
    assert (hand.legal_actions().min_to, hand.legal_actions().max_to) == (1000, 1000)
    play(hand, "1 check", "2 check", "3 check")
    assert hand.street_name == "turn"
    assert (hand.legal_actions().min_to, hand.legal_actions().max_to) == (2000, 2000)
    play(hand, "1 bet 2000", "2 call", "3 call")
    assert hand.street_name == "river"
    play(hand, "1 check", "2 bet 2000", "3 raise 4000")
    assert hand.legal_actions().min_to == 6000


def test_only_the_exact_limit_amount_is_accepted():
    hand = limit_hand()
    for amount in (1999, 2001, 3000):
        with pytest.raises(IllegalAction):
            hand.act(3, "raise", amount)
    play(hand, "3 raise 2000")


def test_cap_preflop_big_blind_counts_as_the_bet():
    """RULES.md 3: one bet and three raises; preflop the big blind is the bet."""
    hand = limit_hand((100_000,) * 4)
    play(hand, "3 raise 2000", "4 raise 3000", "1 raise 4000")
    legal = hand.legal_actions()
    assert legal.seat == 2 and legal.raise_kind is None and legal.call == 3000
    with pytest.raises(IllegalAction) as error:
        hand.act(2, "raise", 5000)
    assert error.value.code == "cannot_raise"


def test_cap_after_the_flop_is_a_bet_and_three_raises():
    hand = limit_hand((100_000,) * 4)
    play(hand, "3 call", "4 call", "1 call", "2 check")
    play(hand, "1 bet 1000", "2 raise 2000", "3 raise 3000", "4 raise 4000")
    assert hand.legal_actions().raise_kind is None


def half_bet_table(behind):
    """Four players see a flop for one small bet; seat 2 has `behind` left ($10/$20 stakes)."""
    hand = limit_hand((100_000, 1000 + behind, 100_000, 100_000))
    return play(hand, "3 call", "4 call", "1 call", "2 check")


def test_all_in_raise_of_half_a_bet_counts_as_a_full_raise():
    """RULES.md 3 Decision: at least half a bet reopens the betting and counts to the cap."""
    hand = half_bet_table(1500)
    play(hand, "1 bet 1000", "2 all_in")  # raise of 500: half a bet
    assert hand.current_bet == 1500
    play(hand, "3 call", "4 call")
    legal = hand.legal_actions()
    assert legal.seat == 1 and legal.raise_kind == "raise" and legal.min_to == 2500
    play(hand, "1 raise 2500", "3 raise 3500")  # bet, all-in, 2500, 3500: the cap
    assert hand.legal_actions().raise_kind is None


def test_all_in_raise_under_half_a_bet_does_not_reopen_or_count():
    hand = half_bet_table(1400)
    play(hand, "1 bet 1000", "2 all_in")  # raise of 400: under half a bet
    legal = hand.legal_actions()
    assert legal.seat == 3 and legal.raise_kind == "raise" and legal.min_to == 2400
    play(hand, "3 call", "4 call")
    legal = hand.legal_actions()
    assert legal.seat == 1 and legal.call == 400 and legal.raise_kind is None
    hand = half_bet_table(1400)
    play(hand, "1 bet 1000", "2 all_in", "3 raise 2400", "4 raise 3400", "1 raise 4400")
    assert hand.legal_actions().raise_kind is None  # 1000, 2400, 3400, 4400: the all-in is free


def test_short_all_in_bet_of_half_a_bet_is_the_bet():
    hand = half_bet_table(500)
    play(hand, "1 check", "2 all_in")
    assert hand.current_bet == 500
    play(hand, "3 raise 1500", "4 raise 2500")
    legal = hand.legal_actions()
    assert legal.seat == 1 and legal.min_to == 3500
    play(hand, "1 raise 3500")
    assert hand.legal_actions().raise_kind is None  # 500 counted as the bet


def test_all_in_call_for_less_is_allowed():
    hand = limit_hand((1000, 1000, 600))
    legal = hand.legal_actions()
    assert legal.seat == 3 and legal.call == 600 and legal.all_in == 600
    assert legal.raise_kind is None  # covered: no chips beyond the call
    play(hand, "3 call")
    assert hand.stacks[2] == 0


def test_consecutive_short_all_ins_adding_up_to_half_a_bet_reopen_and_count_to_the_cap():
    """docs/rules.md: in fixed limit a run of short all-ins completes at half a bet."""
    hand = limit_hand((100_000, 1000 + 1200, 1000 + 1500, 100_000, 100_000))
    play(hand, "3 call", "4 call", "5 call", "1 call", "2 check")
    play(hand, "1 bet 1000", "2 all_in")  # +200: nothing yet
    assert hand.legal_actions().seat == 3
    play(hand, "3 all_in")  # +300: 200 + 300 is half a bet
    play(hand, "4 call", "5 call")
    legal = hand.legal_actions()
    assert legal.seat == 1 and legal.call == 500
    assert legal.raise_kind == "raise" and legal.min_to == legal.max_to == 2500
    play(hand, "1 raise 2500", "4 raise 3500")  # bet, the run, 2500, 3500: the cap
    assert hand.legal_actions().seat == 5 and hand.legal_actions().raise_kind is None


def test_heads_up_limit_button_posts_small_blind_acts_first_preflop_last_after():
    hand = limit_hand((10_000, 10_000), small_bet=500, big_bet=1000)
    posted = {
        e["seat"]: (e["blind"], e["amount"]) for e in hand.events if e["type"] == "blind_posted"
    }
    assert posted == {2: ("small", 200), 1: ("big", 500)}
    assert hand.to_act == 2
    play(hand, "2 call", "1 check")
    assert hand.street_name == "flop" and hand.to_act == 1
    play(hand, "1 bet 500")
    assert hand.to_act == 2


def test_uncalled_limit_bet_on_the_river_goes_back():
    hand = limit_hand((100_000,) * 3)
    play(hand, "3 call", "1 call", "2 check")
    for _ in range(2):  # flop and turn
        play(hand, "1 check", "2 check", "3 check")
    assert hand.street_name == "river"
    play(hand, "1 bet 2000", "2 fold", "3 fold")
    returned = [e for e in hand.events if e["type"] == "uncalled_bet_returned"]
    assert returned == [{"type": "uncalled_bet_returned", "seat": 1, "amount": 2000}]
    assert hand.result["pots"][0]["amount"] == 3000
    assert final_stacks(hand) == {1: 102_000, 2: 99_000, 3: 99_000}
