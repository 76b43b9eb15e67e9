"""Showdown, side pots, splits and odd chips, hi/lo, run-outs (RULES.md 7)."""

import pytest

from poker.engine.hand import Hand, IllegalAction
from tests.poker.engine.conftest import awards, build_deck, final_stacks, new_hand, play

SIDE_POT_BOARD = "2c 7d 9s Jh 3c"
BROADWAY_BOARD = "Qh Jc Ts 7d 6s"  # A-K in the hole makes the nut straight, nothing else does
LOW_BOARD = "2c 5d 7h Kc Qs"  # three low cards: lows are possible
NO_LOW_BOARD = "Kc Qs Jh 9d 2c"  # one low card: no low for anyone

# On SIDE_POT_BOARD, best first: trip jacks, trip nines, kings, queens.
TRIP_JACKS, TRIP_NINES, KINGS, QUEENS = "JcJd2h2d", "9h9d4c5c", "KcKd8h6s", "QcQd8d6c"
# On LOW_BOARD: trip kings with 7-5-3-2-A; jacks with 7-5-3-2-A; nines with 7-6-5-4-2.
KINGS_AND_WHEELISH, JACKS_AND_WHEELISH, NINES_AND_SEVEN_SIX = "Ah3dKdKs", "As3cJdJs", "4h6h9d9h"


def showdown_by_seat(hand: Hand) -> dict[int, dict]:
    return {entry["seat"]: entry for entry in hand.result["showdown"]}


def check_down(hand: Hand) -> Hand:
    """Everyone still able to bet checks until the hand ends."""
    while not hand.is_over:
        play(hand, f"{hand.to_act} check")
    return hand


def test_worked_example_side_pot_a_and_b_1000_c_all_in_100():
    """RULES.md 7 (000-002): main pot 300 for A, B, C; side pot 1800 for A and B."""
    hand = new_hand((1000, 1000, 100), hole=[TRIP_NINES, KINGS, TRIP_JACKS], board=SIDE_POT_BOARD)
    play(hand, "3 call", "1 call", "2 check")
    play(hand, "1 bet 30", "2 call", "3 all_in", "1 raise 330", "2 call")
    play(hand, "1 bet 660", "2 call")
    assert hand.committed == [1000, 1000, 100]
    pots = awards(hand)
    assert [(pot["amount"], pot["eligible"]) for pot in pots] == [(300, [1, 2, 3]), (1800, [1, 2])]
    assert pots[0]["high"] == {3: 300}
    assert pots[1]["high"] == {1: 1800}
    assert final_stacks(hand) == {1: 1800, 2: 0, 3: 300}


def test_one_side_pot_per_all_in_level_each_won_by_its_best_eligible_hand():
    hand = new_hand(
        (1000, 40, 150, 1000), hole=[KINGS, TRIP_JACKS, TRIP_NINES, QUEENS], board=SIDE_POT_BOARD
    )
    play(hand, "3 call", "4 call", "1 call", "2 check")
    play(hand, "1 bet 40", "2 all_in", "3 all_in", "4 call", "1 call")
    play(hand, "1 bet 200", "4 call", "1 check", "4 check")
    pots = awards(hand)
    assert [(pot["amount"], pot["eligible"]) for pot in pots] == [
        (160, [1, 2, 3, 4]),
        (330, [1, 3, 4]),
        (400, [1, 4]),
    ]
    assert [pot["high"] for pot in pots] == [{2: 160}, {3: 330}, {1: 400}]
    assert final_stacks(hand) == {1: 1050, 2: 160, 3: 330, 4: 650}
    shown = showdown_by_seat(hand)
    assert [entry["seat"] for entry in hand.result["showdown"]] == [1, 2, 3, 4]
    assert shown[2]["must_show"] and shown[3]["must_show"]  # all-in before the river
    assert not shown[4]["shown"] and "cards" not in shown[4]  # cannot win: mucked


def test_tie_splits_and_the_odd_chip_goes_first_left_of_the_button():
    hand = new_hand(
        (1000, 1000, 1000), hole=["5h5d8c8d", "AhKd2c3c", "AsKc2d3d"], board=BROADWAY_BOARD
    )
    play(hand, "3 call", "1 fold", "2 check")
    check_down(hand)
    assert awards(hand)[0]["amount"] == 25
    assert awards(hand)[0]["high"] == {2: 13, 3: 12}


def test_odd_chips_go_one_at_a_time_clockwise():
    hand = new_hand(
        (1000,) * 4, hole=["5h5d8c8d", "AhKd2c3c", "AsKc2d3d", "AcKh4c4d"], board=BROADWAY_BOARD
    )
    play(hand, "3 call", "4 call", "1 fold", "2 check")
    check_down(hand)
    assert awards(hand)[0]["amount"] == 35
    assert awards(hand)[0]["high"] == {2: 12, 3: 12, 4: 11}


def test_odd_chip_order_starts_left_of_the_button_not_at_seat_one():
    hand = Hand.start(
        game="omaha",
        structure="pot-limit",
        seats={1: 1000, 2: 1000, 3: 1000},
        button=1,
        small_blind_seat=2,
        big_blind_seat=3,
        deck=build_deck(["5h5d8c8d", "AhKd2c3c", "AsKc2d3d"], BROADWAY_BOARD),
        small_blind=5,
        big_blind=10,
    )
    # Order: seat 2 (small blind), seat 3 (big blind), seat 1 (button).
    play(hand, "1 call", "2 fold", "3 check")
    check_down(hand)
    assert awards(hand)[0]["high"] == {3: 13, 1: 12}


def hi_lo_heads_up(hole, board, stacks=(1000, 1000)):
    """Heads-up fixed-limit Omaha hi/lo where both raise whenever they can, then call."""
    hand = new_hand(stacks, game="omaha8", structure="limit", hole=hole, board=board, small_bet=10)
    while not hand.is_over:
        legal = hand.legal_actions()
        if legal.raise_kind:
            play(hand, f"{legal.seat} {legal.raise_kind} {legal.max_to}")
        elif legal.call:
            play(hand, f"{legal.seat} call")
        else:
            play(hand, f"{legal.seat} check")
    return hand


def test_hi_lo_quartering():
    """Same low for both, the high to one: the high hand takes three quarters."""
    hand = hi_lo_heads_up([KINGS_AND_WHEELISH, JACKS_AND_WHEELISH], LOW_BOARD)
    pot = awards(hand)[0]
    assert pot["high"] == {1: pot["amount"] // 2}
    assert pot["low"] == {1: pot["amount"] // 4, 2: pot["amount"] // 4}
    assert pot["amount"] % 4 == 0


def test_hi_lo_scoop():
    hand = hi_lo_heads_up([KINGS_AND_WHEELISH, NINES_AND_SEVEN_SIX], LOW_BOARD)
    pot = awards(hand)[0]
    assert pot["high"] == {1: pot["amount"] // 2} and pot["low"] == {1: pot["amount"] // 2}
    assert final_stacks(hand)[2] == 1000 - pot["amount"] // 2


def test_hi_lo_no_qualifying_low_high_takes_all():
    hand = hi_lo_heads_up([KINGS_AND_WHEELISH, JACKS_AND_WHEELISH], NO_LOW_BOARD)
    pot = awards(hand)[0]
    assert pot["high"] == {1: pot["amount"]} and pot["low"] == {}
    assert showdown_by_seat(hand)[1]["low"] is None


def test_hi_lo_odd_chip_of_the_halving_goes_high():
    hand = new_hand(
        (1000,) * 3,
        game="omaha8",
        structure="pot-limit",
        hole=["8d8s6dTc", NINES_AND_SEVEN_SIX, KINGS_AND_WHEELISH],
        board=LOW_BOARD,
    )
    # Seat 3 (the button) has trip kings and 7-5-3-2-A; seat 2 only 7-6-5-4-2: a scoop of 25.
    play(hand, "3 call", "1 fold", "2 check")
    check_down(hand)
    pot = awards(hand)[0]
    assert pot["amount"] == 25
    assert pot["high"] == {3: 13} and pot["low"] == {3: 12}


def test_hi_lo_high_and_low_to_different_players_with_odd_chip_high():
    hand = new_hand(
        (1000,) * 3,
        game="omaha8",
        structure="pot-limit",
        hole=["8d8s6dTc", NINES_AND_SEVEN_SIX, "KdKhQdQh"],
        board=LOW_BOARD,
    )
    play(hand, "3 call", "1 fold", "2 check")
    check_down(hand)
    pot = awards(hand)[0]
    assert pot["high"] == {3: 13} and pot["low"] == {2: 12}


def test_hi_lo_side_pot_without_an_eligible_low_goes_all_high():
    """The low half of each pot goes to the best low among that pot's eligible players."""
    hand = new_hand(
        (100, 1000, 1000),
        game="omaha8",
        structure="pot-limit",
        hole=[NINES_AND_SEVEN_SIX, "KdKhQdQh", "JhJcTdTh"],
        board=LOW_BOARD,
    )
    play(hand, "3 call", "1 call", "2 check")
    play(hand, "1 bet 30", "2 call", "3 call")  # seat 1: 60 left
    play(hand, "1 all_in", "2 call", "3 call")
    play(hand, "2 bet 300", "3 call")
    check_down(hand)
    main, side = awards(hand)
    assert main["eligible"] == [1, 2, 3] and main["low"] == {1: main["amount"] // 2}
    assert side["eligible"] == [2, 3] and side["low"] == {} and side["high"] == {2: side["amount"]}


def test_showdown_order_last_river_aggressor_first_then_clockwise():
    hand = new_hand((1000,) * 3, hole=[QUEENS, TRIP_JACKS, KINGS], board=SIDE_POT_BOARD)
    play(hand, "3 call", "1 call", "2 check")
    play(hand, "1 check", "2 check", "3 check", "1 check", "2 check", "3 check")
    play(hand, "1 check", "2 bet 30", "3 call", "1 call")
    assert [entry["seat"] for entry in hand.result["showdown"]] == [2, 3, 1]
    shown = showdown_by_seat(hand)
    assert shown[2]["shown"] and shown[2]["must_show"]
    assert not shown[3]["shown"] and not shown[1]["shown"]  # beaten by what was shown: mucked
    assert [e["type"] for e in hand.events if e["type"].startswith("cards_")] == [
        "cards_shown",
        "cards_mucked",
        "cards_mucked",
    ]


def test_showdown_order_checked_through_river_starts_left_of_the_button():
    hand = new_hand((1000,) * 3, hole=[QUEENS, KINGS, TRIP_JACKS], board=SIDE_POT_BOARD)
    play(hand, "3 call", "1 call", "2 check")
    check_down(hand)
    assert [entry["seat"] for entry in hand.result["showdown"]] == [1, 2, 3]
    shown = showdown_by_seat(hand)
    assert shown[1]["shown"] and shown[2]["shown"] and shown[3]["shown"]
    assert not shown[2]["must_show"] and not shown[3]["must_show"]


def test_a_tying_hand_is_shown_not_mucked():
    hand = new_hand((1000,) * 3, hole=["AhKd2c3c", "AsKc2d3d", "5h5d8c8d"], board=BROADWAY_BOARD)
    play(hand, "3 call", "1 call", "2 check")
    check_down(hand)
    shown = showdown_by_seat(hand)
    assert shown[1]["shown"] and shown[2]["shown"] and not shown[3]["shown"]
    assert awards(hand)[0]["high"] == {1: 15, 2: 15}


def test_shown_hands_carry_their_names_and_cards():
    hand = new_hand((1000, 1000), hole=[TRIP_JACKS, QUEENS], board=SIDE_POT_BOARD)
    play(hand, "2 call", "1 check")
    check_down(hand)
    first = hand.result["showdown"][0]
    assert first["seat"] == 1 and first["cards"] == ["Jc", "Jd", "2h", "2d"]
    assert first["high"]["name"] == "three of a kind, jacks"
    assert first["high"]["category"] == "three of a kind"
    assert sorted(first["high"]["cards"]) == sorted(["Jc", "Jd", "Jh", "9s", "7d"])


def test_all_in_preflop_runs_the_board_out_and_everyone_shows():
    hand = new_hand((30, 1000), hole=[QUEENS, KINGS], board=SIDE_POT_BOARD)
    play(hand, "2 raise 30", "1 call")
    assert hand.is_over
    streets = [e["street"] for e in hand.events if e["type"] == "street_dealt"]
    assert streets == ["flop", "turn", "river"]
    assert hand.board == ["2c", "7d", "9s", "Jh", "3c"]
    shown = showdown_by_seat(hand)
    assert shown[1]["shown"] and shown[2]["shown"]  # all-in before the river: cards face up
    assert shown[1]["must_show"] and shown[2]["must_show"]
    assert final_stacks(hand) == {1: 0, 2: 1030}


def test_everyone_folds_no_showdown():
    hand = new_hand((1000,) * 3)
    play(hand, "3 raise 30", "1 fold", "2 fold")
    assert hand.is_over and hand.result["showdown"] == []
    assert not hand.result["flop_dealt"]
    assert final_stacks(hand) == {1: 995, 2: 990, 3: 1015}
    assert [e["type"] for e in hand.events[-3:]] == [
        "uncalled_bet_returned",
        "pot_awarded",
        "hand_ended",
    ]


def test_net_results_and_rake_balance():
    hand = new_hand((1000, 40, 150, 1000), hole=[KINGS, TRIP_JACKS, TRIP_NINES, QUEENS])
    play(hand, "3 call", "4 call", "1 call", "2 check")
    check_down(hand)
    nets = [seat["net"] for seat in hand.result["seats"]]
    assert sum(nets) + hand.result["rake"] == 0


def test_a_player_all_in_before_the_river_shows_even_when_beaten():
    """RULES.md 7: all-in players show; the river bettor shows first; a beaten caller mucks."""
    hand = new_hand((1000, 1000, 40), hole=[TRIP_JACKS, TRIP_NINES, QUEENS], board=SIDE_POT_BOARD)
    play(hand, "3 call", "1 call", "2 check")
    play(hand, "1 bet 30", "2 call", "3 all_in")  # seat 3 calls all-in on the flop
    play(hand, "1 check", "2 check", "1 bet 100", "2 call")
    shown = showdown_by_seat(hand)
    assert [entry["seat"] for entry in hand.result["showdown"]] == [1, 2, 3]
    assert shown[1]["shown"] and shown[1]["must_show"]
    assert not shown[2]["shown"]  # beaten in every pot it is in: mucked
    assert (
        shown[3]["shown"]
        and shown[3]["must_show"]
        and shown[3]["cards"] == ["Qc", "Qd", "8d", "6c"]
    )
    main, side = awards(hand)
    assert main["high"] == {1: main["amount"]} and side["high"] == {1: side["amount"]}


def test_after_the_hand_a_player_whose_cards_nobody_saw_may_show_them():
    """A player who folded (or mucked) may choose to show, once the hand is
    over; the log and the showdown say it was by choice, and the hand rebuilds from its log."""
    hand = new_hand((1000,) * 3)
    with pytest.raises(IllegalAction) as refused:
        hand.show(1)
    assert refused.value.code == "hand_running"
    play(hand, "3 fold", "1 fold")  # the big blind wins; nobody showed anything
    before = [dict(pot) for pot in hand.result["pots"]]
    events = hand.show(3)
    assert events == [
        {"type": "cards_shown", "seat": 3, "cards": hand.hole_cards[2], "voluntary": True}
    ]
    entry = next(e for e in hand.result["showdown"] if e["seat"] == 3)
    assert entry["shown"] and entry["voluntary"] and entry["folded"]
    assert hand.result["pots"] == before  # nothing changes hands
    for seat, code in ((3, "already_shown"), (7, "not_in_hand")):
        with pytest.raises(IllegalAction) as refused:
            hand.show(seat)
        assert refused.value.code == code
    rebuilt = Hand.replay(hand.setup, hand.events)
    assert rebuilt.to_dict() == hand.to_dict()
