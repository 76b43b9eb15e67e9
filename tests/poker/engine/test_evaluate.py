"""Omaha hand values: the worked examples of RULES.md section 2, lows, and bad input."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from poker.engine.cards import FULL_DECK, SUITS
from poker.engine.evaluate import (
    HighHand,
    LowHand,
    omaha_high,
    omaha_high_low8,
    omaha_low8,
)


def cards(text):
    return text.split()


def high(hole, board):
    return omaha_high(cards(hole), cards(board))


def low(hole, board):
    return omaha_low8(cards(hole), cards(board))


# --- RULES.md section 2, worked examples -------------------------------------------------


def test_worked_example_four_suited_board_cards_and_one_suited_hole_card_make_no_flush():
    hand = high("Ac Kd Td 8h", "Kc 9c 6c 6h Qc")
    assert hand.category == "two pair"
    assert hand.cards == ("Kd", "Kc", "6c", "6h", "Ac")
    assert hand.name == "two pair, kings and sixes"


def test_worked_example_one_ten_in_hole_with_two_pair_board_makes_trips_not_full_house():
    hand = high("Th 9h 7c 6c", "Ks Kc Tc Td 5d")
    assert hand.category == "three of a kind"
    assert hand.cards == ("Th", "Tc", "Td", "Ks", "9h")
    assert hand.name == "three of a kind, tens"


def test_worked_example_seven_six_low_beats_eight_six_four_two_ace_low():
    """RULES.md 2 (001): lows compare from the top card down; 7-6-5-4-2 beats 8-6-4-2-A."""
    board = "4c 6d 2h Kd Qs"
    seven_low = low("7c 5s Jh Jd", board)
    eight_low = low("8s Ah Tc Td", board)
    assert seven_low.name == "7-6-5-4-2 low"
    assert eight_low.name == "8-6-4-2-A low"
    assert seven_low > eight_low
    assert max(eight_low, seven_low) is seven_low


def test_no_wrap_around_straight():
    hand = high("Qh Kd 8c 7s", "As 2d 3c Jh 9h")
    assert hand.category == "high card"
    assert hand.name == "high card, ace"


def test_wheel_is_a_straight_and_the_lowest_straight():
    board = "3c 4d 5h Kd Qs"
    wheel = high("Ah 2s 9c 9d", board)
    six_high = high("2c 6s 9h 9s", board)
    kings = high("Kh Ks 8c 8d", board)
    assert wheel.category == "straight"
    assert wheel.name == "straight, five high"
    assert wheel.cards == ("5h", "4d", "3c", "2s", "Ah")
    assert six_high.category == "straight"
    assert kings.category == "three of a kind"
    assert kings < wheel < six_high


def test_low_and_high_may_use_different_hole_cards():
    hole, board = "Ac 2d Kh Ks", "Kd 7c 8h 3s Qd"
    best_high, best_low = omaha_high_low8(cards(hole), cards(board))
    assert best_high.category == "three of a kind"
    assert set(best_high.cards) & set(cards(hole)) == {"Kh", "Ks"}
    assert best_low.name == "8-7-3-2-A low"
    assert set(best_low.cards) & set(cards(hole)) == {"Ac", "2d"}


def test_board_with_fewer_than_three_distinct_low_ranks_gives_no_low():
    assert low("Ac 4d 5h 6s", "2c 3d 9h Td Js") is None
    # Five low-looking cards but only two distinct low ranks: no low for anybody.
    assert low("3c 4d 5h 6s", "Ac 2d 2h Kd Ks") is None


def test_paired_low_board_with_three_distinct_low_ranks_still_makes_a_low():
    assert low("4c 5d Kh Ks", "Ac 2d 2h 3s Kd").name == "5-4-3-2-A low"


def test_one_low_hole_card_gives_no_low():
    assert low("Ac Kd Qh Js", "2c 3d 4h 5s 6d") is None


def test_paired_low_hole_cards_count_once():
    assert low("Ac Ad Kh Ks", "2c 3d 4h 9s Td") is None
    assert low("Ac Ad 2h Ks", "3c 4d 5h 9s Td").name == "5-4-3-2-A low"


def test_board_cards_matching_the_hole_low_cards_counterfeit_the_low():
    # The hole's A-2 cannot combine with a board whose low ranks are only A, 2, 5.
    assert low("Ah 2s Kc Qd", "Ac 2d 5h Kd Js") is None


def test_straights_and_flushes_do_not_spoil_a_low():
    best_high, best_low = omaha_high_low8(cards("Ah 2h Kc Qd"), cards("3h 4h 5h Kd Js"))
    assert best_high.category == "straight flush"
    assert best_low.name == "5-4-3-2-A low"
    assert best_low.cards == ("5h", "4h", "3h", "2h", "Ah")


def test_suits_never_break_ties():
    board = "Kc 9c 6d 2h 3s"
    first = high("Ah Qh 8c 7c", board)
    second = high("As Qs 8d 7d", board)
    assert first == second
    assert hash(first) == hash(second)
    assert not first < second and not first > second


def test_low_ties_are_equal():
    board = "3c 4d 5h Kd Ks"
    assert low("Ah 2s Qc Qd", board) == low("Ac 2d Jh Js", board)


def test_no_flush_with_three_suited_hole_cards_and_two_suited_board_cards():
    hand = high("Ah Kh Qh 2c", "Jh Th 3c 4d 8s")
    assert hand.category == "high card"


def test_flush_needs_two_suited_hole_and_three_suited_board_cards():
    hand = high("Ah Kh 2c 2d", "Jh 9h 3h 4d 8s")
    assert hand.category == "flush"
    assert hand.name == "flush, ace high"
    assert hand.cards == ("Ah", "Kh", "Jh", "9h", "3h")


def test_every_category_and_its_name():
    examples = [
        ("Ah Kh 2c 3d", "Qh Jh Th 4d 5s", "straight flush", "royal flush"),
        ("9h 8h 2c 3d", "7h 6h 5h Kd Ks", "straight flush", "straight flush, nine high"),
        ("Kh Kd 2c 3d", "Kc Ks 5h 9d 8s", "four of a kind", "four of a kind, kings"),
        ("Kh Kd 2c 3d", "Kc 6s 6h 9d 8s", "full house", "full house, kings full of sixes"),
        ("Ah 7h 2c 3d", "Qh 9h 4h Kd Ks", "flush", "flush, ace high"),
        ("Th 9c 2c 2d", "8h 7s 6d Kd Ks", "straight", "straight, ten high"),
        ("Qh Qd 2c 3d", "Qc 9s 4h Jd 8s", "three of a kind", "three of a kind, queens"),
        ("Qh 9d 2c 3d", "Qc 9s 4h Jd 8s", "two pair", "two pair, queens and nines"),
        ("Ah Ad 2c 3d", "Qc 9s 4h Jd 7s", "one pair", "one pair, aces"),
        ("Ah Kd 2c 3d", "Qc 9s 6h Jd 7s", "high card", "high card, ace"),
    ]
    values = []
    for hole, board, category, name in examples:
        hand = high(hole, board)
        assert (hand.category, hand.name) == (category, name), (hole, board)
        values.append(hand)
    assert values == sorted(values, reverse=True)


def test_three_and_four_card_boards():
    assert high("Ah Ad 2c 3d", "Ac Ks Kh").name == "full house, aces full of kings"
    assert high("Ah 2h 9c 9d", "3h 4h 5h Kd").category == "straight flush"
    assert low("Ah 2h 9c 9d", "3c 4d 5h").name == "5-4-3-2-A low"
    assert low("Ah 2h 9c 9d", "3c 4d Kh") is None


def test_high_and_low_values_do_not_compare():
    best_high, best_low = omaha_high_low8(cards("Ah 2h Kc Qd"), cards("3h 4h 5h Kd Js"))
    assert best_high != best_low
    with pytest.raises(TypeError):
        _ = best_high < best_low


def test_hi_lo_call_matches_the_separate_calls():
    hole, board = cards("Ah 2s Kc Qd"), cards("3h 4d 8h Kd Js")
    assert omaha_high_low8(hole, board) == (omaha_high(hole, board), omaha_low8(hole, board))


def test_values_are_hashable_and_usable_as_dict_keys():
    board = "Kc 9c 6d 2h 3s"
    hands = {high("Ah Qh 8c 7c", board): "a", high("As Qs 8d 7d", board): "b"}
    assert len(hands) == 1
    assert isinstance(next(iter(hands)), HighHand)
    assert isinstance(low("Ah 2s Qc Qd", "3c 4d 5h Kd Ks"), LowHand)


# --- bad input ---------------------------------------------------------------------------

BOARD = ["Kc", "9c", "6c", "6h", "Qc"]
HOLE = ["Ac", "Kd", "Td", "8h"]


@pytest.mark.parametrize("evaluate", [omaha_high, omaha_low8, omaha_high_low8])
@pytest.mark.parametrize("bad", ["1s", "Ax", "10h", "", None, "as", "AS", ["A", "s"]])
def test_malformed_cards_are_rejected_naming_the_card(evaluate, bad):
    with pytest.raises(ValueError, match="invalid card") as error:
        evaluate([*HOLE[:3], bad], BOARD)
    assert repr(bad) in str(error.value)
    with pytest.raises(ValueError, match="invalid card"):
        evaluate(HOLE, [*BOARD[:4], bad])


@pytest.mark.parametrize("evaluate", [omaha_high, omaha_low8, omaha_high_low8])
def test_duplicate_cards_are_rejected(evaluate):
    with pytest.raises(ValueError, match="duplicate card 'Ac'"):
        evaluate(["Ac", "Ac", "Td", "8h"], BOARD)
    with pytest.raises(ValueError, match="duplicate card 'Kc'"):
        evaluate(["Ac", "Kc", "Td", "8h"], BOARD)
    with pytest.raises(ValueError, match="duplicate card 'Qc'"):
        evaluate(HOLE, ["Kc", "Qc", "Qc"])


@pytest.mark.parametrize("evaluate", [omaha_high, omaha_low8, omaha_high_low8])
def test_wrong_card_counts_are_rejected(evaluate):
    with pytest.raises(ValueError, match="4 hole cards, got 3"):
        evaluate(HOLE[:3], BOARD)
    with pytest.raises(ValueError, match="4 hole cards, got 5"):
        evaluate([*HOLE, "2s"], BOARD)
    with pytest.raises(ValueError, match="3 to 5 cards, got 2"):
        evaluate(HOLE, BOARD[:2])
    with pytest.raises(ValueError, match="3 to 5 cards, got 6"):
        evaluate(HOLE, [*BOARD, "2s"])


def test_a_string_of_cards_is_not_mistaken_for_four_cards():
    with pytest.raises(ValueError):
        omaha_high("AcKd", BOARD)


# --- properties --------------------------------------------------------------------------

deals = st.integers(3, 5).flatmap(
    lambda board_size: st.permutations(FULL_DECK).map(
        lambda deck: (list(deck[:4]), list(deck[4 : 4 + board_size]))
    )
)


@settings(max_examples=300, deadline=None)
@given(deal=deals, data=st.data())
def test_values_do_not_depend_on_the_order_of_the_cards(deal, data):
    hole, board = deal
    reordered_hole = data.draw(st.permutations(hole))
    reordered_board = data.draw(st.permutations(board))
    assert omaha_high(hole, board) == omaha_high(reordered_hole, reordered_board)
    assert omaha_low8(hole, board) == omaha_low8(reordered_hole, reordered_board)


@settings(max_examples=300, deadline=None)
@given(deal=deals, suits=st.permutations(SUITS))
def test_values_do_not_depend_on_which_suit_is_which(deal, suits):
    hole, board = deal
    recolour = dict(zip(SUITS, suits, strict=True))

    def renamed(cards):
        return [card[0] + recolour[card[1]] for card in cards]

    assert omaha_high(hole, board) == omaha_high(renamed(hole), renamed(board))
    assert omaha_low8(hole, board) == omaha_low8(renamed(hole), renamed(board))


@settings(max_examples=300, deadline=None)
@given(deal=deals)
def test_cards_used_are_two_hole_plus_three_board_and_reproduce_the_value(deal):
    hole, board = deal
    best_high, best_low = omaha_high_low8(hole, board)
    for hand in (best_high, best_low):
        if hand is None:
            continue
        used = hand.cards
        assert len(used) == len(set(used)) == 5
        used_hole = [card for card in used if card in hole]
        used_board = [card for card in used if card in board]
        assert len(used_hole) == 2 and len(used_board) == 3
        # The three board cards used, with the same hole, reach the same value again: never
        # less (the five cards are among the choices), never more (fewer board cards).
        evaluate = omaha_high if hand is best_high else omaha_low8
        assert evaluate(hole, used_board) == hand


# --- the tables behind the values --------------------------------------------------------


def test_the_7462_five_card_classes_split_into_the_usual_categories():
    from poker.engine._tables import CLASS_KEYS

    counts = {}
    for category, _ in CLASS_KEYS[1:]:
        counts[category] = counts.get(category, 0) + 1
    assert [counts[category] for category in range(9)] == [
        1277,  # high card
        2860,  # one pair
        858,  # two pair
        858,  # three of a kind
        10,  # straight
        1277,  # flush
        156,  # full house
        156,  # four of a kind
        10,  # straight flush
    ]


@given(st.lists(st.tuples(st.integers(0, 7462), st.integers(0, 7462)), min_size=169, max_size=169))
def test_packed_row_max_is_the_cell_wise_max(cells):
    from poker.engine._tables import _pack, _packed_max

    first, second = zip(*cells, strict=True)
    assert _packed_max(_pack(list(first)), _pack(list(second))) == _pack(
        [max(pair) for pair in cells]
    )
