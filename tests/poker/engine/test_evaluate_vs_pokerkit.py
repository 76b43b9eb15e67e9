"""Our Omaha values against pokerkit's, on random deals with a fixed seed.

pokerkit scores every two-plus-three choice by itself, independently of our tables, so
agreeing with it on thousands of deals is strong evidence for the tables. We compare what the
game depends on: the order of hands (who wins, who ties) on the same board, whether a low
exists, and the category. pokerkit is slow (two milliseconds a hand), hence `slow`.

The deals are stratified: 40,000 random deals are scored by us (fast), grouped by board size,
the two hands' kinds (categories; for lows, the low's top card or none) and whether they tie,
and pokerkit scores at most a quota of deals of each group. So every kind of hand and every pairing
of kinds met in 40,000 deals (straight flushes, quads, ties on the flop...) reaches pokerkit,
while the thousands of two-pair-against-one-pair deals that only repeat each other do not.
"""

import random
from collections import Counter
from itertools import pairwise

import pytest
from pokerkit import (
    Card,
    EightOrBetterLowHand,
    OmahaEightOrBetterLowHand,
    OmahaHoldemHand,
    StandardHighHand,
)

from poker.engine.cards import FULL_DECK
from poker.engine.evaluate import omaha_high, omaha_low8
from tests.poker.engine.conftest import POKERKIT_LABELS

DEALS = 40_000  # scored by us, to find the strata
# Deals per stratum scored by pokerkit too: about 1,500 deals of 120 high strata, 1,400 of 54
# low ones (where ties and rare tops are few, all of them).
HIGH_QUOTA, LOW_QUOTA = 16, 40
PLAYERS = 2  # two hands on each board: one ordering comparison per deal


def random_deals(seed, deals=DEALS):
    """Mostly river boards, with some flops and turns: (board, [hole, hole]) per deal."""
    rng = random.Random(seed)
    for _ in range(deals):
        board_size = rng.choices((3, 4, 5), weights=(1, 1, 8))[0]
        cards = rng.sample(FULL_DECK, board_size + 4 * PLAYERS)
        holes = [cards[4 * seat : 4 * seat + 4] for seat in range(PLAYERS)]
        yield cards[4 * PLAYERS :], holes


def stratified_deals(seed, stratum, quota):
    """`random_deals`, keeping at most `quota` deals of each `stratum(board, holes)`."""
    kept: Counter = Counter()
    for board, holes in random_deals(seed):
        key = stratum(board, holes)
        if kept[key] < quota:
            kept[key] += 1
            yield board, holes


def high_stratum(board, holes):
    ours = [omaha_high(hole, board) for hole in holes]
    return len(board), tuple(sorted(our.category for our in ours)), ours[0] == ours[1]


def low_stratum(board, holes):
    ours = [omaha_low8(hole, board) for hole in holes]
    tops = tuple(sorted(our.ranks[0] if our else "none" for our in ours))
    return len(board), tops, None not in ours and ours[0] == ours[1]


def pokerkit_cards(cards):
    return list(Card.parse("".join(cards)))


def pokerkit_low(hole, board):
    try:
        return OmahaEightOrBetterLowHand.from_game(hole, board)
    except ValueError:  # pokerkit's way of saying: no qualifying low
        return None


def sign(first, second):
    return (first > second) - (first < second)


@pytest.mark.slow
def test_high_ordering_and_category_agree_with_pokerkit():
    compared, strata, ties = [], set(), 0
    for board, holes in stratified_deals(20260101, high_stratum, HIGH_QUOTA):
        theirs_board = pokerkit_cards(board)
        ours = [omaha_high(hole, board) for hole in holes]
        theirs = [OmahaHoldemHand.from_game(pokerkit_cards(hole), theirs_board) for hole in holes]
        for hole, our, their in zip(holes, ours, theirs, strict=True):
            assert POKERKIT_LABELS[our.category] == their.entry.label.value, (hole, board)
            assert_uses_two_plus_three(our.cards, hole, board)
            # The five cards we report score, on their own, what pokerkit found best.
            assert StandardHighHand("".join(our.cards)).entry == their.entry, (hole, board)
            compared.append((our, their))
        assert sign(ours[0], ours[1]) == sign(theirs[0], theirs[1]), (holes, board)
        ties += ours[0] == ours[1]
        strata.add(high_stratum(board, holes))
    # The sample reaches every category on every board size (but a straight flush on the
    # flop, which 4,000 random flops do not deal), and ties.
    reached = {(size, category) for size, kinds, _ in strata for category in kinds}
    assert reached >= {(size, category) for size in (3, 4, 5) for category in POKERKIT_LABELS} - {
        (3, "straight flush")
    }
    assert ties > 100 and len(compared) > 2000
    _assert_same_total_order(compared)


@pytest.mark.slow
def test_low_existence_and_ordering_agree_with_pokerkit():
    compared, lows, pairs, strata = [], 0, 0, set()
    for board, holes in stratified_deals(20260102, low_stratum, LOW_QUOTA):
        theirs_board = pokerkit_cards(board)
        ours = [omaha_low8(hole, board) for hole in holes]
        theirs = [pokerkit_low(pokerkit_cards(hole), theirs_board) for hole in holes]
        for hole, our, their in zip(holes, ours, theirs, strict=True):
            assert (our is None) == (their is None), (hole, board, our)
            if our is not None:
                assert_uses_two_plus_three(our.cards, hole, board)
                assert EightOrBetterLowHand("".join(our.cards)).entry == their.entry
                lows += 1
                compared.append((our, their))
        if None not in ours:
            # pokerkit also ranks the better low as the greater hand.
            assert sign(ours[0], ours[1]) == sign(theirs[0], theirs[1]), (holes, board)
            pairs += 1
        strata.add(low_stratum(board, holes))
    # The sample really exercises lows: every top card (8 down to 5) on every board size,
    # beside a hand without one and against another low, ties included.
    for size in (3, 4, 5):
        for top in "5678":
            assert {(size, (top, "none"), False), (size, (top, top), True)} <= strata, (size, top)
    assert lows > 500 and pairs > 200
    _assert_same_total_order(compared)


def assert_uses_two_plus_three(used, hole, board):
    assert len(set(used)) == 5
    assert sum(card in hole for card in used) == 2, (used, hole, board)
    assert sum(card in board for card in used) == 3, (used, hole, board)


def _assert_same_total_order(compared):
    """Across all deals, our values and pokerkit's sort the hands the same way (ties too)."""
    compared.sort(key=lambda pair: pair[0])
    for (our_before, their_before), (our_after, their_after) in pairwise(compared):
        expected = sign(our_after, our_before)
        actual = sign(their_after, their_before)
        assert expected == actual, (our_before, our_after, their_before, their_after)
