"""Our Omaha values against pokerkit's, on random deals with a fixed seed.

pokerkit scores every two-plus-three choice by itself, independently of our tables, so
agreeing with it on tens of thousands of deals is strong evidence for the tables. We compare
what the game depends on: the order of hands (who wins, who ties) on the same board, whether a
low exists, and the category. pokerkit is slow (about a millisecond per hand), hence `slow`.
"""

import random
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

DEALS = 20_000
PLAYERS = 2  # two hands on each board: one ordering comparison per deal
# The high comparison runs in two halves of 10,000 deals (different seeds), so that each test
# stays well under a minute on a busy 2-core CI machine; together they cover DEALS deals.
HIGH_SEEDS = (20260101, 20260103)

# pokerkit's labels, in its own words, for our categories.
POKERKIT_LABELS = {
    "high card": "High card",
    "one pair": "One pair",
    "two pair": "Two pair",
    "three of a kind": "Three of a kind",
    "straight": "Straight",
    "flush": "Flush",
    "full house": "Full house",
    "four of a kind": "Four of a kind",
    "straight flush": "Straight flush",
}


def random_deals(seed, deals=DEALS):
    """Mostly river boards, with some flops and turns: (board, [hole, hole]) per deal."""
    rng = random.Random(seed)
    for _ in range(deals):
        board_size = rng.choices((3, 4, 5), weights=(1, 1, 8))[0]
        cards = rng.sample(FULL_DECK, board_size + 4 * PLAYERS)
        holes = [cards[4 * seat : 4 * seat + 4] for seat in range(PLAYERS)]
        yield cards[4 * PLAYERS :], holes


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
@pytest.mark.parametrize("seed", HIGH_SEEDS)
def test_high_ordering_and_category_agree_with_pokerkit(seed):
    compared, pairs = [], 0
    deals = DEALS // len(HIGH_SEEDS)
    for board, holes in random_deals(seed, deals):
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
        pairs += 1
    assert pairs == deals and deals * len(set(HIGH_SEEDS)) >= DEALS
    _assert_same_total_order(compared)


@pytest.mark.slow
def test_low_existence_and_ordering_agree_with_pokerkit():
    compared, lows, pairs = [], 0, 0
    for board, holes in random_deals(seed=20260102):
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
    assert lows > DEALS // 4 and pairs > DEALS // 20  # the sample really exercises lows
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
