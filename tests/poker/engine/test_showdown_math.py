"""The house-edge calculator (python -m poker.engine.showdown_math): its counts against hand
counts and against evaluating every board, and its figures against RULES.md 9's, exactly.

The full calculation runs once per test session (`starting_hands` is cached): a few seconds.
"""

import json
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from itertools import combinations, combinations_with_replacement
from math import comb, prod

import pytest

from poker.engine.cards import FULL_DECK
from poker.engine.evaluate import omaha_high
from poker.engine.showdown import final_hand_category, hole_card_category
from poker.engine.showdown_math import (
    BOARDS,
    FINAL_CATEGORIES,
    HANDS,
    final_hand_counts,
    main,
    optimal_decision,
    report,
    starting_hands,
)
from poker.engine.showdown_paytables import BET, PAYTABLES

RULES_HOLE_CARD_BONUS = {
    "four of a kind": 13,
    "straight flush": 44,
    "three of a kind": 2_496,
    "flush": 2_816,
    "straight": 2_772,
    "two pair": 2_808,
    "one pair": 82_368,
    None: 177_408,
}


@pytest.fixture(scope="module")
def every_hand():
    """All 270,725 four-card hands: their Hole Card Bonus category and suit pattern."""
    categories, patterns = Counter(), Counter()
    for hole in combinations(FULL_DECK, 4):
        categories[hole_card_category(hole)] += 1
        masks = [0, 0, 0, 0]
        for card in hole:
            masks["cdhs".index(card[1])] |= 1 << "23456789TJQKA".index(card[0])
        patterns[tuple(sorted(masks))] += 1
    return categories, patterns


@pytest.fixture(scope="module")
def figures():
    return report(PAYTABLES)


def by_name(figures):
    return {table["name"]: table for table in figures["paytables"]}


# -- counts -------------------------------------------------------------------------------------


def test_hole_card_bonus_counts_by_looking_at_every_hand(every_hand):
    categories, _ = every_hand
    assert dict(categories) == RULES_HOLE_CARD_BONUS


def test_starting_hand_classes_cover_every_hand_once(every_hand):
    _, patterns = every_hand
    hands = starting_hands()
    assert len(hands) == len(patterns) == 16_432
    assert sum(hand.combos for hand in hands) == HANDS == 270_725
    by_pattern = Counter()
    for hand in hands:
        masks = [0, 0, 0, 0]
        for card in hand.cards:
            masks["cdhs".index(card[1])] |= 1 << "23456789TJQKA".index(card[0])
        by_pattern[tuple(sorted(masks))] += hand.combos
        assert sum(hand.final_counts) == BOARDS
        assert min(hand.final_counts) >= 0
        assert hand.hole_category == hole_card_category(hand.cards)
    assert by_pattern == patterns


def test_four_aces_hand_counted():
    """Four aces: two of them and three board cards. No ace is left, no two hole ranks make a
    straight and no two hole cards share a suit, so the only hand above two pair is a full
    house on a board holding three (or four) of one rank: 12 ranks x (4 x C(44,2) + C(44,1))."""
    counts = final_hand_counts(["As", "Ah", "Ad", "Ac"])
    full_houses = 12 * (4 * comb(44, 2) + comb(44, 1))
    assert counts == {
        **dict.fromkeys(FINAL_CATEGORIES, 0),
        "full house": full_houses,
        "two pair or less": BOARDS - full_houses,
    }


def test_ace_king_queen_jack_suited_hand_counted():
    """A K Q J of spades: no royal flush (the window T-A holds four of them, and a hand uses
    exactly two); the one straight flush is 8-9-T of spades on the board with the J-Q
    (C(45,2) boards); flushes are the boards with 3+ of the other nine spades, less those; the
    quads are three of a hole rank on the board (4 x C(45,2))."""
    counts = final_hand_counts("AsKsQsJs")
    three_spades = comb(9, 3) * comb(39, 2) + comb(9, 4) * 39 + comb(9, 5)
    assert counts["royal flush"] == 0
    assert counts["straight flush"] == comb(45, 2) == 990
    assert counts["flush"] == three_spades - 990 == 66_294
    assert counts["four of a kind"] == 4 * comb(45, 2) == 3_960


def every_board_counts(hole):
    """Evaluate every one of the 1,712,304 boards with the engine's evaluator, a board standing
    for all those that differ from it only in the suits of cards no flush can use.

    An Omaha flush is two hole cards and three board cards of one suit, so a board card whose
    suit is in fewer than two hole cards is in no flush or straight flush: changing it for
    another card of its rank in such a suit changes no hand the board makes. Such a board is
    evaluated once, counted as often as it can be dealt: for each rank, C(cards of that rank
    left in those suits, cards of that rank on the board)."""
    held = Counter(card[1] for card in hole)
    rest = [card for card in FULL_DECK if card not in hole]
    exact = [card for card in rest if held[card[1]] >= 2]
    spare = {}  # rank: the cards left of that rank in suits no flush can use
    for card in rest:
        if held[card[1]] < 2:
            spare.setdefault(card[0], []).append(card)
    counts = Counter()
    for loose in range(6):
        for ranks in combinations_with_replacement(sorted(spare), loose):
            taken = Counter(ranks)
            if any(n > len(spare[rank]) for rank, n in taken.items()):
                continue
            weight = prod(comb(len(spare[rank]), n) for rank, n in taken.items())
            cards = [card for rank, n in taken.items() for card in spare[rank][:n]]
            for fixed in combinations(exact, 5 - loose):
                category = final_hand_category(omaha_high(hole, [*fixed, *cards]))
                counts[category if category in FINAL_CATEGORIES else "two pair or less"] += weight
    assert counts.total() == BOARDS, "each board stood for once"
    return {name: counts[name] for name in FINAL_CATEGORIES}


@pytest.mark.parametrize(
    "hole",
    [
        "KsQsJdTd",  # two suits of two: royal flushes in both, straights
        "9s8s7d7c",  # a pair, a suited connector, the other pair card in a third suit
        "Ah2h3h9c",  # three suited with the wheel window
        "AsKsQsJs",  # four suited: no royal flush, one straight flush window
    ],
)
def test_counts_equal_evaluating_every_board(hole):
    cards = [hole[k : k + 2] for k in range(0, 8, 2)]
    assert final_hand_counts(cards) == every_board_counts(cards)


def test_bad_starting_hands_are_refused():
    with pytest.raises(ValueError, match="4 cards"):
        final_hand_counts("AsKsQs")
    with pytest.raises(ValueError, match="duplicate"):
        final_hand_counts("AsAsQsJs")


# -- RULES.md's figures -------------------------------------------------------------------------


def test_ante_game_edge_and_strategy_are_rules_figures_exactly(figures):
    bet = by_name(figures)["bet"]
    assert Fraction(bet["edge"]) == Fraction(1_024_889_419, 38_630_291_700)
    assert round(bet["edge_pct"], 4) == 2.6531
    shares = bet["strategy"]
    assert (
        round(shares["fold_pct"], 3),
        round(shares["call_pct"], 3),
        round(shares["raise_pct"], 3),
    ) == (0.469, 28.890, 70.641)
    assert bet["kind"] == "bet" and bet["pays"] == dict(BET.pays)


def test_hole_card_bonus_edges_are_rules_figures(figures):
    tables = by_name(figures)
    edges = {name: round(tables[f"hcb-{name}"]["edge_pct"], 4) for name in "abcde"}
    assert edges == {"a": 1.0313, "b": 2.8782, "c": 4.9423, "d": 7.8264, "e": 9.7723}
    for name in "abcde":
        table = tables[f"hcb-{name}"]
        assert round(table["hit_rate_pct"], 3) == 34.469
        assert table["counts"] == {
            ("high card" if key is None else key): n for key, n in RULES_HOLE_CARD_BONUS.items()
        }


def test_final_hand_bonus_probabilities_and_edges_are_rules_figures(figures):
    tables = by_name(figures)
    probabilities = {
        "royal flush": 0.0000923446,
        "straight flush": 0.0007948990,
        "four of a kind": 0.0048003574,
        "full house": 0.0634752273,
        "flush": 0.0673408980,
    }
    edges = {name: round(tables[f"fhb-{name}"]["edge_pct"], 4) for name in "abcde"}
    assert edges == {"a": 2.5458, "b": 4.9460, "c": 7.3462, "d": 9.7463, "e": 12.1465}
    for name in "abcde":
        table = tables[f"fhb-{name}"]
        for category, probability in probabilities.items():
            assert round(table["probabilities"][category], 10) == probability
        assert round(table["hit_rate_pct"], 3) == 13.650
        assert sum(table["counts"].values()) == HANDS * BOARDS == 463_563_500_400


def test_edges_are_exact_fractions_of_the_counts(figures):
    """Recompute the Final Hand Bonus A edge from the class counts by hand."""
    totals = Counter()
    for hand in starting_hands():
        for name, boards in hand.counts().items():
            totals[name] += hand.combos * boards
    pays = {"royal flush": 200, "straight flush": 100, "four of a kind": 60, "full house": 5}
    pays["flush"] = 2
    won = sum(totals[name] * pay for name, pay in pays.items())
    lost = sum(boards for name, boards in totals.items() if name not in pays)
    assert Fraction(by_name(figures)["fhb-a"]["edge"]) == Fraction(lost - won, HANDS * BOARDS)


# -- the decision rule --------------------------------------------------------------------------


def counts_with(trips):
    return [BOARDS - trips, trips, 0, 0, 0, 0, 0, 0]


def test_decision_rule_and_its_ties():
    """RULES.md 9: raise if p + Y > 1, else call if 3p + Y > 1, else fold. With only three of
    a kind (Bet pays 1), p = Y: raise above 1/2, call above 1/4, ties go the cautious way."""
    assert optimal_decision(counts_with(BOARDS // 2 + 1), BET)[0] == "raise"
    assert optimal_decision(counts_with(BOARDS // 2), BET) == ("call", 4 * BOARDS // 2 - 2 * BOARDS)
    assert optimal_decision(counts_with(BOARDS // 4 + 1), BET)[0] == "call"
    assert optimal_decision(counts_with(BOARDS // 4), BET) == ("fold", -BOARDS)
    raised = optimal_decision(counts_with(BOARDS), BET)
    assert raised == ("raise", 4 * BOARDS + 2 * BOARDS - 3 * BOARDS)  # Ante 1 + Bet 2 x 1


# -- the command --------------------------------------------------------------------------------


def test_json_report_shape(capsys, figures):
    assert main(["--json", "--paytables", "bet", "hcb-a", "fhb-a"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(t["kind"], t["name"]) for t in data["paytables"]] == [
        ("bet", "bet"),
        ("hole_card_bonus", "hcb-a"),
        ("final_hand_bonus", "fhb-a"),
    ]
    for table in data["paytables"]:
        assert set(table) >= {"kind", "name", "pays", "edge_pct", "hit_rate_pct", "probabilities"}
        assert table["edge_pct"] == by_name(figures)[table["name"]]["edge_pct"]
    assert data["deals"] == 463_563_500_400
    assert data["starting_hand_classes"] == 16_432


def test_text_report_prints_the_rules_figures(capsys):
    assert main(["--paytables", "bet", "hcb-e"]) == 0
    out = capsys.readouterr().out
    assert "Ante game house edge 2.6531% (1024889419/38630291700)" in out
    assert "fold 0.469%, call 28.890%, raise 70.641%" in out
    assert "house edge 9.7723%" in out and "hit rate 34.469%" in out


def test_classes_give_each_starting_hand_its_decision(capsys, figures):
    assert main(["--json", "--paytables", "bet", "--classes"]) == 0
    classes = json.loads(capsys.readouterr().out)["classes"]
    assert len(classes) == 16_432
    shares = Counter()
    for line in classes:
        shares[line["decision"]] += line["combos"]
    strategy = by_name(figures)["bet"]["strategy"]
    for decision in ("fold", "call", "raise"):
        assert shares[decision] / HANDS * 100 == pytest.approx(strategy[f"{decision}_pct"])
    best = classes[0]
    assert best["decision"] == "raise" and best["ev_antes"] >= classes[-1]["ev_antes"]


def settle(capsys, *args):
    code = main(["settle", *args])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if code == 0 else captured.err)


def test_settle_prints_each_wager_and_the_net(capsys):
    code, out = settle(
        capsys,
        *("--hole", "AsKsQsJs", "--board", "2c3c4c5c6c", "--ante", "500"),
        *("--decision", "raise", "--hole-card-bonus", "100", "--final-hand-bonus", "100"),
    )
    assert code == 0
    # No two hole cards make anything with the board: the hand is ace-king high.
    assert out["final_hand"]["category"] == "high card"
    assert out["ante"] == {
        "stake_cents": 500,
        "result": "lose",
        "category": None,
        "pays": 0,
        "net_cents": -500,
    }
    assert out["bet"]["net_cents"] == -1_000
    assert out["hole_card_bonus"]["category"] == "straight flush"  # J-Q-K-A suited, 50:1
    assert out["hole_card_bonus"]["net_cents"] == 5_000
    assert out["final_hand_bonus"]["net_cents"] == -100
    assert out["net_cents"] == -500 - 1_000 + 5_000 - 100


def test_settle_with_other_tables_and_a_fold(capsys):
    code, out = settle(
        capsys,
        *("--hole", "2s7s9sKs", "--board", "5d9d8cTcJh", "--ante", "500"),
        *("--decision", "fold", "--hole-card-bonus", "100", "--paytables", "hcb-c", "fhb-e"),
    )
    assert code == 0
    assert out["paytables"] == {
        "bet": "bet",
        "hole_card_bonus": "hcb-c",
        "final_hand_bonus": "fhb-e",
    }
    assert out["ante"]["net_cents"] == -500
    assert out["hole_card_bonus"] == {
        "stake_cents": 100,
        "result": "win",
        "category": "flush",
        "pays": 8,
        "net_cents": 800,
    }
    assert "bet" not in out and "final_hand_bonus" not in out
    assert out["net_cents"] == 300


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--hole", "AsKsQs", "--board", "2c3c4c5c6c"), "4 hole and 5 board"),
        (("--hole", "AsKsQsJs", "--board", "Xs3c4c5c6c"), "invalid card"),
        (("--hole", "AsKsQsJs", "--board", "As3c4c5c6c"), "duplicate card"),
        (("--hole", "AsKsQsJs", "--board", "2c3c4c5c6c", "--ante", "100"), "outside"),
        (("--hole", "AsKsQsJs", "--board", "2c3c4c5c6c", "--paytables", "hcb-a", "hcb-b"), "two"),
        (("--hole", "AsKsQsJs", "--board", "2c3c4c5c6c", "--paytables", "hcb-z"), "no paytable"),
    ],
)
def test_settle_refuses_bad_input(capsys, args, message):
    defaults = {"--ante": "500", "--decision": "call"}
    extra = [item for key, value in defaults.items() if key not in args for item in (key, value)]
    code, err = settle(capsys, *args, *extra)
    assert code == 2
    assert message in err


def test_the_module_runs_as_a_command():
    done = subprocess.run(
        [
            *(sys.executable, "-m", "poker.engine.showdown_math", "settle"),
            *("--hole", "QcQd2d3c", "--board", "Qs6h9h4cKd", "--ante", "500", "--decision", "call"),
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    out = json.loads(done.stdout)
    assert out["net_cents"] == 1_000 and out["ante"]["category"] == "three of a kind"
