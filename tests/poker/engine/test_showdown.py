"""Omaha Showdown rounds (RULES.md 9, seed 004): every paytable line settled by hand-made
deals, refusals that change nothing, seven seats against one board, the payout cap, stored
state, and hypothesis properties (money conserved, every decision legal exactly once)."""

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from poker.engine.cards import FULL_DECK
from poker.engine.showdown import (
    FOUR_CARD_STRAIGHTS,
    ShowdownError,
    ShowdownLimits,
    ShowdownRound,
    hole_card_category,
)
from poker.engine.showdown_paytables import (
    BET,
    Paytable,
    ShowdownPaytables,
    default_paytables,
    paytable,
)

TABLES = default_paytables()  # Bet, Hole Card Bonus A, Final Hand Bonus A


def cards(text):
    text = text.replace(" ", "")
    return [text[k : k + 2] for k in range(0, len(text), 2)]


def deck_for(holes, board):
    """A deck dealing holes[i] to the i-th seat (one card at a time) and then `board`."""
    hole_lists = [cards(hole) for hole in holes]
    named = [card for hole in hole_lists for card in hole] + cards(board)
    assert len(set(named)) == len(named), "a card is named twice"
    deck = [hole_lists[i][k] for k in range(4) for i in range(len(hole_lists))]
    deck += cards(board)
    deck += [card for card in FULL_DECK if card not in named]
    return deck


def play(
    holes,
    board,
    decisions,
    *,
    wagers=None,
    limits=None,
    paytables=TABLES,
):
    """A dealt and decided round: seat i + 1 gets holes[i] and decisions[i]."""
    limits = limits or ShowdownLimits(seats=max(len(holes), 1))
    game = ShowdownRound.open(limits=limits, paytables=paytables)
    for seat in range(1, len(holes) + 1):
        placed = (wagers or {}).get(seat, {"ante": 500})
        game.place(seat, **placed)
    game.deal(deck_for(holes, board))
    for seat, decision in enumerate(decisions, start=1):
        game.decide(seat, decision)
    return game


def wagers_of(game, seat=1):
    return game.result["seats"][seat - 1]["wagers"]


def nets(game, seat=1):
    return {name: wager["net"] for name, wager in wagers_of(game, seat).items()}


# -- the Ante and the Bet (RULES.md 9.5) --------------------------------------------------------


@pytest.mark.parametrize(
    ("hole", "board", "category"),
    [
        ("AsKs2d3d", "QsJsTs4c9h", "royal flush"),
        ("9s8s2d3d", "7s6s5s4cKh", "straight flush"),
        ("AhAd2d3c", "AsAc7s4c9h", "four of a kind"),
        ("KhKd2d3c", "Ks7c7s4c9h", "full house"),
        ("Ah9h2d3c", "Kh7h4h5c9s", "flush"),
        ("9c8d2d3c", "7s6h5hJcKd", "straight"),
        ("Ac2dKhQh", "3s4d5c9c8h", "straight"),  # A-2 from the hole, 3-4-5 from the board
        ("QcQd2d3c", "Qs6h9h4cKd", "three of a kind"),
    ],
)
@pytest.mark.parametrize("decision", ["call", "raise"])
def test_every_bet_paytable_line_pays_the_bet_and_the_ante_even_money(
    hole, board, category, decision
):
    game = play([hole], board, [decision])
    multiple = {"call": 1, "raise": 2}[decision]
    wagers = wagers_of(game)
    assert game.result["seats"][0]["final_hand"]["category"] == category
    assert wagers["ante"] == {
        "stake": 500,
        "result": "win",
        "category": category,
        "pays": 1,
        "owed": 500,
        "won": 500,
        "net": 500,
    }
    pays = BET.pays[category]
    assert wagers["bet"]["stake"] == 500 * multiple
    assert wagers["bet"]["category"] == category
    assert wagers["bet"]["net"] == 500 * multiple * pays
    assert game.result["seats"][0]["net"] == 500 + 500 * multiple * pays


@pytest.mark.parametrize(
    ("hole", "board", "category"),
    [
        ("AhAd2d3c", "KsKc7s4c9h", "two pair"),
        ("AhKd2d3c", "As7c8s4c9h", "one pair"),
        ("AhKd2d3c", "Qs7c8s4c9h", "high card"),
        # Four suited board cards and one suited hole card: no flush (two hole cards needed).
        ("Ah9c2d3c", "KhQh7h4h5s", "high card"),
        # Trips on the board with no hole card of it: still three of a kind (three board
        # cards and any two hole cards), so it qualifies; this one has a pair only.
        ("AhKd2d3c", "As9c8s4c7h", "one pair"),
    ],
)
def test_two_pair_or_less_loses_ante_and_bet(hole, board, category):
    game = play([hole], board, ["raise"])
    assert game.result["seats"][0]["final_hand"]["category"] == category
    assert nets(game) == {"ante": -500, "bet": -1000}
    assert wagers_of(game)["ante"]["category"] is None


def test_board_trips_qualify_with_any_two_hole_cards():
    game = play(["AhKd2d3c"], "9s9c9h4c7h", ["call"])
    assert game.result["seats"][0]["final_hand"]["category"] == "three of a kind"
    assert nets(game) == {"ante": 500, "bet": 500}


def test_rules_worked_examples_hold_for_the_final_hand():
    """RULES.md 2: no flush from one suited hole card; no full house from one hole card."""
    game = play(["AcKdTd8h"], "Kc9c6c6hQc", ["call"])
    assert game.result["seats"][0]["final_hand"]["category"] == "two pair"
    assert nets(game) == {"ante": -500, "bet": -500}
    game = play(["Th9h7c6c"], "KsKcTcTd5d", ["call"])
    assert game.result["seats"][0]["final_hand"]["category"] == "three of a kind"
    assert nets(game) == {"ante": 500, "bet": 500}


def test_fold_loses_the_ante_only_and_places_no_bet():
    game = play(["AsKs2d3d"], "QsJsTs4c9h", ["fold"], wagers={1: {"ante": 500}})
    assert nets(game) == {"ante": -500}
    assert wagers_of(game)["ante"]["result"] == "fold"
    assert game.result["seats"][0]["staked"] == 500


# -- the Hole Card Bonus (RULES.md 9.4) ---------------------------------------------------------


@pytest.mark.parametrize(
    ("hole", "category"),
    [
        ("AsAhAdAc", "four of a kind"),
        ("JsQsKsAs", "straight flush"),  # ace high
        ("As2s3s4s", "straight flush"),  # ace low
        ("6h7h8h9h", "straight flush"),
        ("KsKhKd2c", "three of a kind"),
        ("2s7s9sKs", "flush"),
        ("QsKs2sAs", "flush"),  # Q-K-A-2 suited: no wraparound, so a flush only
        ("JsQhKdAc", "straight"),  # ace high
        ("Ac2d3h4s", "straight"),  # ace low
        ("5c6d7h8s", "straight"),
        ("KsKh3d3c", "two pair"),
        ("7s7hKd2c", "one pair"),
        ("QsKhAd2c", None),  # Q-K-A-2: no wraparound
        ("KsAh2d3c", None),  # K-A-2-3: no wraparound
        ("2s4h6d8c", None),
    ],
)
def test_hole_card_categories(hole, category):
    assert hole_card_category(cards(hole)) == category


def test_there_are_eleven_four_card_straights():
    assert len(FOUR_CARD_STRAIGHTS) == 11  # A-2-3-4 up to J-Q-K-A


@pytest.mark.parametrize(
    ("hole", "category"),
    [
        ("AsAhAdAc", "four of a kind"),
        ("JsQsKsAs", "straight flush"),
        ("KsKhKd2c", "three of a kind"),
        ("2s7s9sKs", "flush"),
        ("Ac2d3h4s", "straight"),
        ("KsKh3d3c", "two pair"),
        ("7s7hKd2c", "one pair"),
    ],
)
def test_every_hole_card_bonus_line_pays_its_paytable(hole, category):
    game = play([hole], "5d9d8cTcJh", ["fold"], wagers={1: {"ante": 500, "hole_card_bonus": 100}})
    bonus = wagers_of(game)["hole_card_bonus"]
    pays = paytable("hcb-a").pays[category]
    assert bonus["category"] == category
    assert bonus["pays"] == pays
    assert bonus["net"] == 100 * pays


def test_hole_card_bonus_loses_without_a_category():
    game = play(
        ["2s4h6d8c"], "5d9dKcTcJh", ["call"], wagers={1: {"ante": 500, "hole_card_bonus": 100}}
    )
    assert wagers_of(game)["hole_card_bonus"]["net"] == -100
    assert wagers_of(game)["hole_card_bonus"]["category"] is None


def test_a_ten_to_one_hole_card_bonus_of_one_dollar_wins_ten_dollars():
    game = play(
        ["2s7s9sKs"], "5d9d8cTcJh", ["fold"], wagers={1: {"ante": 500, "hole_card_bonus": 100}}
    )
    assert nets(game) == {"ante": -500, "hole_card_bonus": 1000}
    assert game.result["seats"][0]["net"] == 500


# -- the Final Hand Bonus (RULES.md 9.6) --------------------------------------------------------


@pytest.mark.parametrize(
    ("hole", "board", "category"),
    [
        ("AsKs2d3d", "QsJsTs4c9h", "royal flush"),
        ("9s8s2d3d", "7s6s5s4cKh", "straight flush"),
        ("AhAd2d3c", "AsAc7s4c9h", "four of a kind"),
        ("KhKd2d3c", "Ks7c7s4c9h", "full house"),
        ("Ah9h2d3c", "Kh7h4h5c9s", "flush"),
    ],
)
@pytest.mark.parametrize("table_name", ["fhb-a", "fhb-c", "fhb-e"])
@pytest.mark.parametrize("decision", ["fold", "raise"])
def test_every_final_hand_bonus_line_pays_even_after_a_fold(
    hole, board, category, table_name, decision
):
    tables = ShowdownPaytables(
        bet=BET, hole_card_bonus=paytable("hcb-a"), final_hand_bonus=paytable(table_name)
    )
    game = play(
        [hole],
        board,
        [decision],
        wagers={1: {"ante": 500, "final_hand_bonus": 200}},
        paytables=tables,
    )
    bonus = wagers_of(game)["final_hand_bonus"]
    assert bonus["category"] == category
    assert bonus["net"] == 200 * paytable(table_name).pays[category]


@pytest.mark.parametrize(
    ("hole", "board"),
    [("9c8d2d3c", "7s6h5hJcKd"), ("QcQd2d3c", "Qs6h9h4cKd"), ("AhKd2d3c", "Qs7c8s4c9h")],
)
def test_final_hand_bonus_loses_on_a_straight_or_less(hole, board):
    game = play([hole], board, ["call"], wagers={1: {"ante": 500, "final_hand_bonus": 100}})
    assert wagers_of(game)["final_hand_bonus"]["net"] == -100


def test_a_paytable_line_of_zero_returns_the_stake():
    pays = dict(paytable("hcb-a").pays, **{"one pair": 0})
    tables = ShowdownPaytables(
        bet=BET,
        hole_card_bonus=Paytable("hole_card_bonus", "no-pair-pay", pays),
        final_hand_bonus=paytable("fhb-a"),
    )
    game = play(
        ["7s7hKd2c"],
        "5d9d8cTcJh",
        ["fold"],
        wagers={1: {"ante": 500, "hole_card_bonus": 100}},
        paytables=tables,
    )
    assert wagers_of(game)["hole_card_bonus"]["result"] == "win"
    assert wagers_of(game)["hole_card_bonus"]["net"] == 0


def test_top_prize_with_maximum_bets_matches_the_seed():
    """Seed 004: $10,200 on the Ante (25 x $400 + $200), $10,000 on each side bet."""
    game = play(
        ["AsKsJhJd"],
        "QsJsTs4c9h",
        ["raise"],
        wagers={1: {"ante": 20_000, "final_hand_bonus": 5_000}},
    )
    assert nets(game) == {"ante": 20_000, "bet": 1_000_000, "final_hand_bonus": 1_000_000}
    game = play(
        ["AsAhAdAc"], "5d9d8cTcJh", ["fold"], wagers={1: {"ante": 500, "hole_card_bonus": 10_000}}
    )
    assert nets(game)["hole_card_bonus"] == 1_000_000


# -- the maximum aggregate payout ---------------------------------------------------------------


def test_payout_cap_holds_the_round_to_the_limit_pro_rata():
    limits = ShowdownLimits(seats=2, max_aggregate_payout=100_000)
    game = play(
        ["AsKs2d3d", "QcQd2c3c"],
        "QsJsTs4c9h",
        ["raise", "call"],
        wagers={
            1: {"ante": 1_000, "final_hand_bonus": 1_000},  # royal: 1,000 + 50,000 + 200,000
            2: {"ante": 1_000, "hole_card_bonus": 1_000},  # trips (QQ+Q): 1,000 + 1,000; pair HCB
        },
        limits=limits,
    )
    cap = game.result["payout_cap"]
    assert cap == {"limit": 100_000, "owed": 254_000, "paid": 100_000, "applied": True}
    first, second = (seat["wagers"] for seat in game.result["seats"])
    # Shares of 100,000 in proportion to 1,000 / 50,000 / 200,000 / 1,000 / 1,000 / 1,000.
    paid = [first["ante"]["won"], first["bet"]["won"], first["final_hand_bonus"]["won"]]
    paid += [second["ante"]["won"], second["bet"]["won"], second["hole_card_bonus"]["won"]]
    assert sum(paid) == 100_000
    assert paid == [394, 19_685, 78_740, 394, 394, 393]
    assert first["bet"]["owed"] == 50_000
    assert game.result["house_net"] == -100_000


def test_payout_cap_never_touches_losing_wagers_or_returned_stakes():
    limits = ShowdownLimits(seats=2, max_aggregate_payout=1_000)
    game = play(
        ["AsKs2d3d", "2h3h5c6d"],
        "QsJsTs4c9h",
        ["raise", "raise"],
        wagers={1: {"ante": 1_000}, 2: {"ante": 1_000, "hole_card_bonus": 100}},
        limits=limits,
    )
    assert game.result["payout_cap"]["applied"]
    assert game.result["seats"][0]["net"] == 1_000
    assert game.result["seats"][1]["net"] == -3_100  # all lost: collected in full
    assert game.result["house_net"] == 2_100


def test_payout_exactly_at_the_cap_is_paid_in_full():
    limits = ShowdownLimits(seats=1, max_aggregate_payout=1_500)
    game = play(["QcQd2d3c"], "Qs6h9h4cKd", ["call"], wagers={1: {"ante": 500}}, limits=limits)
    assert game.result["payout_cap"] == {
        "limit": 1_500,
        "owed": 1_000,
        "paid": 1_000,
        "applied": False,
    }
    limits = ShowdownLimits(seats=1, max_aggregate_payout=1_000)
    game = play(["QcQd2d3c"], "Qs6h9h4cKd", ["call"], wagers={1: {"ante": 500}}, limits=limits)
    assert not game.result["payout_cap"]["applied"]
    assert game.result["seats"][0]["net"] == 1_000


# -- several seats, one board -------------------------------------------------------------------


def test_seven_seats_are_dealt_one_card_at_a_time_and_settled_by_one_board():
    holes = ["AsKs2d3d", "QcQd2c3c", "9h8h7d6d", "AhAd4c5c", "KhKd4d5d", "Jc9c4h5h", "Tc8c6h7h"]
    game = ShowdownRound.open(limits=ShowdownLimits(seats=7), paytables=TABLES)
    for seat in range(1, 8):
        game.place(seat, ante=500 * seat)
    deck = deck_for(holes, "QsJsTs4s9d")
    game.deal(deck)
    assert deck[:7] == ["As", "Qc", "9h", "Ah", "Kh", "Jc", "Tc"]  # first card of each seat
    for seat, hole in enumerate(holes, start=1):
        assert list(game.seats[seat].hole) == cards(hole)
    decisions = ["raise", "call", "fold", "raise", "call", "fold", "raise"]
    for seat in (7, 3, 5, 1, 2, 6):  # any order
        game.decide(seat, decisions[seat - 1])
        assert game.phase == "deciding" and game.result is None
    assert game.undecided == [4]
    game.decide(4, "raise")
    assert game.phase == "settled"
    assert game.result["board"] == cards("QsJsTs4s9d")
    by_seat = {seat["seat"]: seat for seat in game.result["seats"]}
    assert by_seat[1]["final_hand"]["category"] == "royal flush"
    assert by_seat[3]["wagers"]["ante"]["net"] == -1_500  # folded
    assert by_seat[7]["final_hand"]["category"] == "straight"  # T-8 + Q-J-9
    assert game.result["house_net"] == -sum(seat["net"] for seat in game.result["seats"])


def test_only_seats_that_placed_are_dealt_in_seat_order():
    game = ShowdownRound.open(limits=ShowdownLimits(seats=7), paytables=TABLES)
    game.place(6, ante=500)
    game.place(2, ante=500)
    game.deal(deck_for(["AsKs2d3d", "QcQd2c3c"], "QsJsTs4s9d"))
    assert game.seats[2].hole == ("As", "Ks", "2d", "3d")
    assert game.seats[6].hole == ("Qc", "Qd", "2c", "3c")


# -- refusals change nothing --------------------------------------------------------------------


def refused(game, code, action):
    before = json.dumps(game.to_dict(), sort_keys=True)
    with pytest.raises(ShowdownError) as caught:
        action()
    assert caught.value.code == code, caught.value.reason
    assert json.dumps(game.to_dict(), sort_keys=True) == before
    return caught.value


def betting_round(seats=2, **limits):
    game = ShowdownRound.open(limits=ShowdownLimits(seats=seats, **limits), paytables=TABLES)
    game.place(1, ante=500, hole_card_bonus=100)
    return game


def dealt_round():
    game = betting_round()
    game.place(2, ante=1_000)
    game.deal(deck_for(["AsKs2d3d", "QcQd2c3c"], "QsJsTs4s9d"))
    return game


@pytest.mark.parametrize(
    ("seat", "wagers", "code"),
    [
        (2, {"ante": 499}, "outside_limits"),
        (2, {"ante": 20_001}, "outside_limits"),
        (2, {"ante": 0}, "outside_limits"),
        (2, {"ante": -500}, "outside_limits"),
        (2, {"ante": 500.0}, "bad_amount"),
        (2, {"ante": "500"}, "bad_amount"),
        (2, {"ante": True}, "bad_amount"),
        (2, {"ante": 500, "hole_card_bonus": 99}, "outside_limits"),
        (2, {"ante": 500, "hole_card_bonus": 10_001}, "outside_limits"),
        (2, {"ante": 500, "final_hand_bonus": 5_001}, "outside_limits"),
        (2, {"ante": 500, "final_hand_bonus": -100}, "outside_limits"),
        (3, {"ante": 500}, "no_such_seat"),
        (0, {"ante": 500}, "no_such_seat"),
        ("2", {"ante": 500}, "no_such_seat"),
        (1, {"ante": 500}, "already_placed"),
    ],
)
def test_bad_wagers_are_refused_and_change_nothing(seat, wagers, code):
    game = betting_round()
    refused(game, code, lambda: game.place(seat, **wagers))


def test_deciding_before_the_deal_is_refused():
    game = betting_round()
    refused(game, "not_dealt", lambda: game.decide(1, "call"))


@pytest.mark.parametrize(
    ("deck", "code"),
    [
        (FULL_DECK[:51], "bad_deck"),
        ([*FULL_DECK[:51], "2c"], "bad_deck"),  # a duplicate
        ([*FULL_DECK[:51], "1x"], "bad_deck"),
        ([*FULL_DECK, "2c"], "bad_deck"),
    ],
)
def test_bad_decks_are_refused_and_change_nothing(deck, code):
    game = betting_round()
    error = refused(game, code, lambda: game.deal(deck))
    assert "card" in error.reason


def test_dealing_without_wagers_or_twice_is_refused():
    game = ShowdownRound.open(limits=ShowdownLimits(), paytables=TABLES)
    refused(game, "no_wagers", lambda: game.deal(FULL_DECK))
    game = dealt_round()
    refused(game, "wrong_phase", lambda: game.deal(FULL_DECK))
    refused(game, "wrong_phase", lambda: game.place(2, ante=500))


@pytest.mark.parametrize(
    ("seat", "decision", "code"),
    [
        (3, "call", "no_such_seat"),
        ([1], "call", "no_such_seat"),
        (1, "check", "bad_decision"),
        (1, "Raise", "bad_decision"),
        (1, None, "bad_decision"),
    ],
)
def test_bad_decisions_are_refused_and_change_nothing(seat, decision, code):
    game = dealt_round()
    refused(game, code, lambda: game.decide(seat, decision))


def test_a_decision_twice_is_refused():
    game = dealt_round()
    game.decide(1, "call")
    refused(game, "already_decided", lambda: game.decide(1, "raise"))
    assert game.seats[1].decision == "call"


def test_nothing_is_accepted_after_settlement():
    game = dealt_round()
    game.decide(1, "call")
    game.decide(2, "fold")
    refused(game, "settled", lambda: game.decide(2, "raise"))
    refused(game, "settled", lambda: game.deal(FULL_DECK))
    refused(game, "settled", lambda: game.place(2, ante=500))


@pytest.mark.parametrize(
    "limits",
    [
        {"seats": 0},
        {"seats": 8},
        {"ante_min": 0},
        {"ante_min": 600, "ante_max": 500},
        {"hole_card_bonus_max": 50.5},
        {"max_aggregate_payout": 0},
        {"max_aggregate_payout": -1},
    ],
)
def test_bad_table_limits_are_refused(limits):
    with pytest.raises(ShowdownError) as caught:
        ShowdownLimits(**limits)
    assert caught.value.code == "bad_limits"


# -- stored state -------------------------------------------------------------------------------


def test_state_round_trips_through_json_at_every_phase():
    game = betting_round(seats=2, max_aggregate_payout=50_000)
    stages = [json.loads(json.dumps(game.to_dict()))]
    game.place(2, ante=1_000, final_hand_bonus=100)
    game.deal(deck_for(["AsKs2d3d", "QcQd2c3c"], "QsJsTs4s9d"))
    stages.append(json.loads(json.dumps(game.to_dict())))
    game.decide(2, "call")
    stages.append(json.loads(json.dumps(game.to_dict())))
    game.decide(1, "raise")
    stages.append(json.loads(json.dumps(game.to_dict())))
    for stored in stages:
        assert ShowdownRound.from_dict(stored).to_dict() == stored
    resumed = ShowdownRound.from_dict(stages[2])
    resumed.decide(1, "raise")
    assert resumed == game


@pytest.mark.parametrize(
    "tamper",
    [
        lambda state: state["result"]["seats"][0].update(net=1_000_000),
        lambda state: state["holes"].update({"1": ["As", "Ks", "Qs", "Js"]}),
        lambda state: state.update(phase="betting"),
        lambda state: state.update(version=99),
        lambda state: state["limits"].update(ante_max=100),
        lambda state: state["paytables"]["bet"]["pays"].update({"royal flush": 1_000}),
        lambda state: state["decisions"].append({"seat": 1, "decision": "call"}),
        lambda state: state.pop("deck"),
    ],
)
def test_corrupted_state_is_refused(tamper):
    game = dealt_round()
    game.decide(1, "raise")
    game.decide(2, "call")
    state = json.loads(json.dumps(game.to_dict()))
    tamper(state)
    with pytest.raises(ShowdownError) as caught:
        ShowdownRound.from_dict(state)
    assert caught.value.code == "bad_state"


# -- properties ---------------------------------------------------------------------------------


@st.composite
def rounds(draw):
    """A table, its wagers, a deck order and each seat's decision in a random order."""
    seats = draw(st.integers(1, 7))
    cap = draw(st.one_of(st.none(), st.integers(1, 2_000_000)))
    limits = ShowdownLimits(seats=seats, max_aggregate_payout=cap)
    placed = sorted(draw(st.sets(st.integers(1, seats), min_size=1)))
    wagers = {
        seat: {
            "ante": draw(st.integers(500, 20_000)),
            "hole_card_bonus": draw(st.sampled_from([0, 100, 2_500, 10_000])),
            "final_hand_bonus": draw(st.sampled_from([0, 100, 1_000, 5_000])),
        }
        for seat in placed
    }
    decisions = {seat: draw(st.sampled_from(["fold", "call", "raise"])) for seat in placed}
    order = draw(st.permutations(placed))
    deck = draw(st.permutations(FULL_DECK))
    return limits, wagers, deck, order, decisions


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds())
def test_money_is_conserved_between_players_and_house(case):
    limits, wagers, deck, order, decisions = case
    game = ShowdownRound.open(limits=limits, paytables=TABLES)
    for seat, placed in wagers.items():
        game.place(seat, **placed)
    game.deal(deck)
    for seat in order:
        game.decide(seat, decisions[seat])
    result = game.result
    assert result["house_net"] == -sum(seat["net"] for seat in result["seats"])
    paid = 0
    for seat in result["seats"]:
        placed = wagers[seat["seat"]]
        bet = placed["ante"] * {"fold": 0, "call": 1, "raise": 2}[seat["decision"]]
        stakes = placed["ante"] + bet + placed["hole_card_bonus"] + placed["final_hand_bonus"]
        assert seat["staked"] == stakes
        assert seat["net"] == sum(wager["net"] for wager in seat["wagers"].values())
        for wager in seat["wagers"].values():
            assert wager["net"] in (-wager["stake"], wager["won"])
            assert 0 <= wager["won"] <= wager["owed"] == wager["stake"] * wager["pays"]
            paid += wager["won"]
        # What comes back to the player: stakes of winning wagers plus their winnings.
        back = sum(w["stake"] + w["won"] for w in seat["wagers"].values() if w["result"] == "win")
        assert back - stakes == seat["net"]
    assert paid == result["payout_cap"]["paid"]
    if limits.max_aggregate_payout is not None:
        assert paid <= limits.max_aggregate_payout
        assert result["payout_cap"]["applied"] == (result["payout_cap"]["owed"] > paid)
    else:
        assert paid == result["payout_cap"]["owed"]


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rounds(), st.data())
def test_every_decision_is_legal_exactly_once(case, data):
    limits, wagers, deck, order, decisions = case
    game = ShowdownRound.open(limits=limits, paytables=TABLES)
    for seat, placed in wagers.items():
        game.place(seat, **placed)
    game.deal(deck)
    decided = []
    for seat in order:
        assert game.undecided == sorted(set(wagers) - set(decided))
        if decided:  # a seat that decided is refused, and nothing changes
            again = data.draw(st.sampled_from(decided))
            before = game.to_dict()
            with pytest.raises(ShowdownError):
                game.decide(again, data.draw(st.sampled_from(["fold", "call", "raise"])))
            assert game.to_dict() == before
        game.decide(seat, decisions[seat])
        decided.append(seat)
    assert game.phase == "settled" and game.undecided == []
    assert ShowdownRound.from_dict(json.loads(json.dumps(game.to_dict()))) == game
