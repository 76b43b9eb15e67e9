"""Rake schedules (RULES.md 8): every row of the tables, no flop no drop, and schedules as data."""

import json

import pytest

from poker.engine.rake import FIXED_LIMIT_RAKE, POT_LIMIT_RAKE, RakeSchedule, default_rake_schedule
from tests.poker.engine.conftest import awards, new_hand, play

LIMIT = default_rake_schedule("limit")
POT_LIMIT = default_rake_schedule("pot-limit")


def limit_rake(pot, players, small_bet):
    return LIMIT.rake(pot=pot, players_dealt_in=players, big_blind=small_bet)


@pytest.mark.parametrize("small_bet", [50, 100])  # $0.50/$1 and $1/$2
@pytest.mark.parametrize("players", [2, 6, 10])
@pytest.mark.parametrize(
    ("pot", "rake"),
    [(499, 0), (500, 50), (1199, 50), (1200, 75), (1999, 75), (2000, 100), (9999, 100)],
)
def test_fixed_limit_lowest_stakes_row(small_bet, players, pot, rake):
    assert limit_rake(pot, players, small_bet) == rake


@pytest.mark.parametrize("small_bet", [200, 500, 1000])  # $2/$4 to $10/$20
@pytest.mark.parametrize(
    ("players", "pot", "rake"),
    [
        (2, 1999, 0), (2, 2000, 100), (3, 9000, 100),
        (4, 2000, 100), (4, 3000, 150), (5, 4000, 200), (5, 9000, 200),
        (6, 2000, 100), (6, 3000, 150), (7, 4000, 200), (8, 5000, 250), (10, 6000, 300),
        (10, 50000, 300), (6, 2999, 100),
    ],
)  # fmt: skip
def test_fixed_limit_middle_stakes_rows(small_bet, players, pot, rake):
    assert limit_rake(pot, players, small_bet) == rake


@pytest.mark.parametrize("small_bet", [1500, 3000])  # $15/$30 to $30/$60
@pytest.mark.parametrize(
    ("players", "pot", "rake"),
    [
        (2, 3999, 0), (3, 4000, 100), (3, 20000, 100),
        (4, 4000, 100), (4, 5500, 150), (5, 7000, 200),
        (6, 4000, 100), (6, 5500, 150), (7, 7000, 200), (9, 8500, 250), (10, 10000, 300),
    ],
)  # fmt: skip
def test_fixed_limit_high_stakes_rows(small_bet, players, pot, rake):
    assert limit_rake(pot, players, small_bet) == rake


def test_stakes_outside_the_table_use_the_nearest_tier_below():
    """docs/rules.md: smaller stakes use the first row, stakes between rows the lower one."""
    assert limit_rake(500, 6, 25) == 50  # $0.25/$0.50
    assert limit_rake(2000, 6, 1200) == 100  # $12/$24: the $2/$4 to $10/$20 row
    assert limit_rake(10000, 6, 5000) == 300  # $50/$100: the $15/$30 to $30/$60 row


@pytest.mark.parametrize(
    ("players", "pot", "rake"),
    [
        (2, 199, 0),  # 5 cents: under 10 cents is zero
        (2, 200, 10),
        (2, 1099, 50),  # whole dollars only
        (3, 5000, 100),  # capped at $1 for 2-3 players
        (4, 5000, 200),
        (5, 3000, 150),
        (6, 10000, 300),
        (6, 4000, 200),
    ],
)
def test_pot_limit_five_cents_a_dollar_capped(players, pot, rake):
    assert POT_LIMIT.rake(pot=pot, players_dealt_in=players, big_blind=100) == rake


def test_schedules_are_json_data_staff_can_edit():
    for data in (FIXED_LIMIT_RAKE, POT_LIMIT_RAKE):
        copy = json.loads(json.dumps(data))
        assert RakeSchedule(copy).to_data() == data
    edited = json.loads(json.dumps(POT_LIMIT_RAKE))
    edited["tiers"][0]["bands"][0]["cap"] = 75
    assert RakeSchedule(edited).rake(pot=5000, players_dealt_in=2, big_blind=100) == 75


@pytest.mark.parametrize(
    "data",
    [
        None,
        {},
        {"tiers": []},
        {"tiers": [{"big_blind_from": 0, "bands": [{"players_from": 2, "players_to": 3}]}]},
        {"tiers": [{"big_blind_from": 0, "bands": [{"players_from": 2, "players_to": 3,
                                                     "steps": [[500, 50], [400, 75]]}]}]},
        {"tiers": [{"big_blind_from": 0, "bands": [{"players_from": 2, "players_to": 3,
                                                     "steps": [[500, -1]]}]}]},
        {"tiers": [{"big_blind_from": 0, "bands": [{"players_from": 2, "players_to": 3,
                                                     "per_dollar": 5}]}]},
        {"tiers": [{"big_blind_from": 100, "bands": []}, {"big_blind_from": 50, "bands": []}]},
    ],
)  # fmt: skip
def test_malformed_schedules_are_refused(data):
    with pytest.raises(ValueError):
        RakeSchedule(data)


def test_no_flop_no_drop():
    hand = new_hand((1000,) * 3, rake=POT_LIMIT)
    play(hand, "3 raise 35", "1 call", "2 fold")
    assert hand.street_name == "flop"
    play(hand, "1 check", "3 check")
    assert hand.result is None
    preflop = new_hand((1000,) * 3, rake=POT_LIMIT)
    play(preflop, "3 raise 35", "1 call", "2 call")
    assert preflop.street_name == "flop"
    folded_preflop = new_hand((100_000,) * 3, rake=POT_LIMIT, small_blind=500, big_blind=1000)
    play(folded_preflop, "3 raise 3500", "1 fold", "2 fold")
    assert folded_preflop.result["rake"] == 0 and not folded_preflop.result["flop_dealt"]


def test_rake_is_taken_when_a_flop_was_dealt_even_if_everyone_folds_after():
    hand = new_hand((100_000,) * 4, rake=POT_LIMIT, small_blind=500, big_blind=1000)
    play(hand, "3 call", "4 call", "1 call", "2 check", "1 bet 4000", "2 fold", "3 fold", "4 fold")
    assert hand.result["rake"] == 5 * 40  # pot of $40 (the bet came back): 5 cents a dollar
    assert hand.result["seats"][0]["net"] == 3000 - 200


def test_rake_from_the_main_pot_first_then_side_pots():
    hand = new_hand(
        (5, 5000, 5000),
        rake=POT_LIMIT,
        small_blind=50,
        big_blind=100,
        hole=["AhKd2c3c", "5h5d8c8d", "6h6d9c9d"],
        board="Qh Jc Ts 7d 2s",
    )
    play(hand, "3 raise 300", "2 call", "2 bet 605", "3 call", "2 bet 100", "3 call")
    play(hand, "2 check", "3 check")
    main, side = awards(hand)
    assert main["amount"] == 15 and side["amount"] == 2000
    assert hand.result["rake"] == 100  # 3 players dealt in: capped at $1
    assert main["rake"] == 15 and side["rake"] == 85
    assert main["high"] == {1: 0}  # seat 1 wins the main pot, all of it raked
