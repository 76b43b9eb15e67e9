"""Exact odds and house edges of Omaha Showdown's paytables (RULES.md 9), by counting every
deal: no sampling, every figure is a fraction over all 270,725 four-card hands and, for the
final hand, all 463,563,500,400 hole-and-board deals.

    python -m poker.engine.showdown_math                   # every paytable of RULES.md 9
    python -m poker.engine.showdown_math --json            # the same for machines
    python -m poker.engine.showdown_math --paytables bet fhb-c --classes  # + each class's play
    python -m poker.engine.showdown_math settle --hole AsKsQsJs --board 2c3c4c5c6c \\
        --ante 500 --decision raise --hole-card-bonus 100 --final-hand-bonus 100

From Python: `report(paytables)` (what the command prints), `starting_hands()` (the 16,432
suit classes of four hole cards with their final-hand counts), `final_hand_counts(hole)`,
`optimal_decision(counts, bet_paytable)`.

How it is fast enough for CPython (a few seconds; 16,432 classes x 1,712,304 boards would be
28 billion evaluations). A final hand is the better of two things that can be counted apart:

* Ranks only (pairs, trips, straights, full houses, quads) depend on the hole ranks (1,820
  multisets) and the board ranks (6,175 multisets); the number of boards with given ranks is a
  product of binomials over the cards left of each rank. For each hole multiset the category of
  all 6,175 boards is the cell-wise max of six precomputed rows (one per pair of hole ranks,
  from the evaluator's own table `_tables.HIGH`), computed on rows packed into big ints, and a
  weight code per cell is a sum of packed rows too; `collections.Counter` then tallies the
  (category, weight) pairs in C.
* A flush needs three or more board cards of a suit in which the hole holds two or more. Only
  one suit can have three board cards, so for each such suit s the flush boards are k = 3, 4
  or 5 cards of s (k ranks not among the hole's s ranks) plus 5 - k cards of other suits.
  These are 36,608 cells (k, other ranks, s ranks), one bit each in "planes" (big ints): the
  cells whose rank category is at least trips, straight, ...; the cells a straight flush
  holds (the s ranks contain a five-rank window less exactly two of the hole's s ranks); the
  cells possible at all. A cell's weight (the ways to draw its other ranks from the other
  suits, 0-9) depends only on the hole's cards of other suits, so it is four bit planes, and a
  weighted count is four ANDs and `int.bit_count()` calls. On those boards a flush replaces
  every rank category below a full house, and a straight flush replaces everything.

The figures reproduce RULES.md 9 exactly; tests/poker/engine/test_showdown_math.py checks the
counts for single hands against evaluating every board with `omaha_high`.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from array import array
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from itertools import combinations, combinations_with_replacement
from math import comb, factorial
from operator import itemgetter, mul
from typing import Any

from poker.engine._tables import BOARD_ROW, CLASS_KEYS, HIGH
from poker.engine.cards import CARD_RANK, CARD_SUIT, RANKS, SUITS, ensure_distinct, parse_cards
from poker.engine.showdown import (
    ShowdownError,
    ShowdownLimits,
    ShowdownRound,
    hole_card_category,
)
from poker.engine.showdown_paytables import (
    CATEGORIES,
    KINDS,
    PAYTABLES,
    Paytable,
    PaytableError,
    ShowdownPaytables,
    default_paytables,
    paytable,
)

# Final-hand categories as counted here, lowest first (what the paytables distinguish).
FINAL_CATEGORIES = (
    "two pair or less",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
    "royal flush",
)
NOTHING, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH, ROYAL_FLUSH = range(8)
HOLE_CATEGORIES = (None, *reversed(CATEGORIES["hole_card_bonus"]))  # lowest first

HANDS = comb(52, 4)  # 270,725
BOARDS = comb(48, 5)  # 1,712,304 per hand
DEALS = HANDS * BOARDS  # 463,563,500,400

# -- rank-only categories ------------------------------------------------------------------
# Coarse rank category of an evaluator ordinal: 0 two pair or less, 1 trips, 2 straight,
# 3 full house, 4 quads (a rank-only hand is never a flush); monotone in the ordinal, so the
# max of coarse categories is the coarse category of the max.
_COARSE_OF_CATEGORY = {3: 1, 4: 2, 6: 3, 7: 4}
_COARSE_TO_FINAL = (NOTHING, TRIPS, STRAIGHT, FULL_HOUSE, QUADS)
_WINDOWS = (frozenset({12, 0, 1, 2, 3}), *(frozenset(range(low, low + 5)) for low in range(9)))
_ROYAL_WINDOW = _WINDOWS[-1]


def _repeat_cells(value: int, cells: int, width: int) -> int:
    return int.from_bytes(value.to_bytes(width, "little") * cells, "little")


class _PackedMax:
    """Cell-wise max of two rows packed into big ints, `width` bytes a cell (the trick of
    poker.engine._tables, for any row length): cells must stay below 2**(8 * width - 1)."""

    def __init__(self, cells: int, width: int) -> None:
        bits = 8 * width
        self.guards = _repeat_cells(1 << (bits - 1), cells, width)
        self.low_bits = _repeat_cells((1 << (bits - 1)) - 1, cells, width)
        self.shift = bits - 1

    def __call__(self, first: int, second: int) -> int:
        first_wins = ((first | self.guards) - second) & self.guards
        mask = first_wins - (first_wins >> self.shift)
        return (first & mask) | (second & (mask ^ self.low_bits))


def _factor_code(count: int) -> int:
    """Code a binomial C(cards left, drawn) in {0, 1, 2, 3, 4, 6} additively: a + 11c + 66z
    for 2**a 3**c, z counting zeros, so a product of up to five is a sum of codes."""
    if count == 0:
        return 66
    twos = threes = 0
    while count % 2 == 0:
        count //= 2
        twos += 1
    while count % 3 == 0:
        count //= 3
        threes += 1
    assert count == 1
    return twos + 11 * threes


_WEIGHT_OF_CODE = {
    twos + 11 * threes + 66 * zeros: 0 if zeros else 2**twos * 3**threes
    for zeros in range(6)
    for threes in range(6)
    for twos in range(11)
}


class _Counting:
    """The precomputed rows and planes; built once per process (about half a second)."""

    def __init__(self) -> None:
        coarse = [0] + [
            _COARSE_OF_CATEGORY.get(CLASS_KEYS[ordinal][0], 0)
            for ordinal in range(1, len(CLASS_KEYS))
        ]
        boards = [
            ranks
            for ranks in combinations_with_replacement(range(13), 5)
            if ranks[0] != ranks[4]  # five of a kind
        ]
        board_index: dict[tuple[int, ...], int] = {
            ranks: index for index, ranks in enumerate(boards)
        }
        rows = [BOARD_ROW[sum(5**rank for rank in ranks)] for ranks in boards]
        # Coarse category per board multiset, one row per unordered pair of hole ranks.
        pair_categories = {
            (low, high): bytes([coarse[HIGH[row + 13 * low + high]] for row in rows])
            for low in range(13)
            for high in range(low, 13)
        }

        # All boards (ranks only), 16 bits a cell: category + 8 * weight code.
        self.board_count = len(boards)
        self.max16 = _PackedMax(len(boards), 2)
        self.pair_rows16 = {
            pair: int.from_bytes(array("H", list(row)).tobytes(), sys.byteorder)
            for pair, row in pair_categories.items()
        }
        drawn_of_rank = [bytes(ranks.count(rank) for ranks in boards) for rank in range(13)]

        def factor_row(rank: int, held: int) -> int:
            # Each code is below 256, so a translation table maps drawn counts to codes.
            codes = bytes(_factor_code(comb(4 - held, n)) if n < 5 else 0 for n in range(256))
            cells = array("H", list(drawn_of_rank[rank].translate(codes)))
            return int.from_bytes(cells.tobytes(), sys.byteorder)

        factor_rows = [[factor_row(rank, held) for held in range(5)] for rank in range(13)]
        self.weight_base = sum(factor_rows[rank][0] for rank in range(13))
        self.weight_delta = [
            [factor_rows[rank][held] - factor_rows[rank][0] for held in range(5)]
            for rank in range(13)
        ]

        # Flush boards: one bit a cell (k suited ranks, other ranks), cells grouped by their
        # other ranks, bit i of a plane is cell i.
        suited_sets = {k: list(combinations(range(13), k)) for k in (3, 4, 5)}
        self.groups: list[tuple[int, tuple[int, ...]]] = [(5, ())]
        self.groups += [(4, (other,)) for other in range(13)]
        self.groups += [(3, pair) for pair in combinations_with_replacement(range(13), 2)]
        cell_board: list[int] = []
        self.group_masks: list[int] = []
        for k, others in self.groups:
            start = len(cell_board)
            for suited in suited_sets[k]:
                cell_board.append(board_index[tuple(sorted(suited + others))])
            self.group_masks.append(((1 << (len(cell_board) - start)) - 1) << start)
        self.cells = len(cell_board)
        gather = itemgetter(*cell_board)
        at_least = [
            bytes(ord("1") if category >= least else ord("0") for category in range(256))
            for least in range(5)
        ]
        # Planes: the cells whose rank category with this pair of hole ranks is >= 1 .. 4.
        self.at_least_planes = {}
        for pair, row in pair_categories.items():
            cells = bytes(gather(row))
            self.at_least_planes[pair] = [0] + [_plane(cells, at_least[n]) for n in range(1, 5)]
        # Planes of the cells whose suited ranks hold a three-rank set, or a rank. The layout
        # repeats each k's suited sets once per group of other ranks.
        holds: dict[tuple[int, ...], dict[int, bytearray]] = {
            part: {k: bytearray(len(sets)) for k, sets in suited_sets.items()}
            for size in (1, 3)
            for part in combinations(range(13), size)
        }
        for k, sets in suited_sets.items():
            for index, suited in enumerate(sets):
                for size in (1, 3):
                    for part in combinations(suited, size):
                        holds[part][k][index] = 1
        one = bytes(ord("1") if value else ord("0") for value in range(256))
        planes = {
            part: _plane(bytes(rows[5] + rows[4] * 13 + rows[3] * 91), one)
            for part, rows in holds.items()
        }
        self.superset_planes: dict[tuple[int, ...], int] = {
            part: plane for part, plane in planes.items() if len(part) == 3
        }
        self.contains_planes = {part[0]: plane for part, plane in planes.items() if len(part) == 1}
        self._suited_hole: dict[tuple[int, ...], tuple[int, int, int, int, int]] = {}
        self._weights: dict[tuple[int, ...], list[int]] = {}

    # -- ranks only ------------------------------------------------------------------------

    def rank_counts(self, ranks: tuple[int, ...]) -> list[int]:
        """Boards per coarse rank category (0-4) for sorted hole ranks, suits ignored."""
        pairs = {(ranks[i], ranks[j]) for i in range(4) for j in range(i + 1, 4)}
        categories = 0
        for pair in pairs:
            categories = self.max16(categories, self.pair_rows16[pair])
        code = self.weight_base
        for rank in set(ranks):
            code += self.weight_delta[rank][ranks.count(rank)]
        cells = array("H")
        cells.frombytes((categories + (code << 3)).to_bytes(2 * self.board_count, sys.byteorder))
        counts = [0] * 5
        for key, boards in Counter(cells).items():
            counts[key & 7] += boards * _WEIGHT_OF_CODE[key >> 3]
        return counts

    def at_least(self, ranks: tuple[int, ...]) -> list[int]:
        """Flush-board planes of the cells whose rank category is >= 0 .. 4 with these hole
        ranks (>= 0: every cell)."""
        pairs = {(ranks[i], ranks[j]) for i in range(4) for j in range(i + 1, 4)}
        planes = [(1 << self.cells) - 1, 0, 0, 0, 0]
        for pair in pairs:
            pair_planes = self.at_least_planes[pair]
            for least in range(1, 5):
                planes[least] |= pair_planes[least]
        return planes

    # -- flush boards ----------------------------------------------------------------------

    def _boards(self, plane: int, other_cards: int) -> int:
        """Flush boards in a plane's cells, each suited set counted once (the first group of
        each k holds every suited set) times the ways to draw its other cards."""
        masks = self.group_masks
        return sum(
            (plane & masks[first]).bit_count() * comb(other_cards, 5 - k)
            for k, first in ((5, 0), (4, 1), (3, 14))
        )

    def suited_hole(self, suited: tuple[int, ...]) -> tuple[int, int, int, int, int]:
        """For the hole's ranks in suit s: the plane of possible cells (no s card of a hole
        rank on the board) and of straight-flush cells, and the numbers of flush boards, of
        straight flushes (not royal) and of royal flushes among them."""
        known = self._suited_hole.get(suited)
        if known is not None:
            return known
        impossible = 0
        for rank in suited:
            impossible |= self.contains_planes[rank]
        possible = ((1 << self.cells) - 1) ^ impossible
        straight_flush = royal_flush = 0
        for window in _WINDOWS:
            shared = window.intersection(suited)
            if len(shared) == 2:  # exactly two hole cards and three board cards of it
                plane = self.superset_planes[tuple(sorted(window - shared))] & possible
                straight_flush |= plane
                if window == _ROYAL_WINDOW:
                    royal_flush = plane
        other_cards = 35 + len(suited)  # the cards of the other suits not in the hole
        royal_flushes = self._boards(royal_flush, other_cards)
        known = (
            possible,
            straight_flush,
            self._boards(possible, other_cards),
            self._boards(straight_flush, other_cards) - royal_flushes,
            royal_flushes,
        )
        self._suited_hole[suited] = known
        return known

    def weight_planes(self, others: tuple[int, ...]) -> list[int]:
        """The weight of each cell (the ways to draw its other ranks from the other suits,
        0 to 9) as four bit planes; it depends only on the hole cards of the other suits."""
        known = self._weights.get(others)
        if known is not None:
            return known
        left = [3] * 13
        for rank in others:
            left[rank] -= 1
        planes = [0, 0, 0, 0]
        for (k, drawn), mask in zip(self.groups, self.group_masks, strict=True):
            if k == 5:
                weight = 1
            elif k == 4:
                weight = left[drawn[0]]
            elif drawn[0] == drawn[1]:
                weight = comb(left[drawn[0]], 2)
            else:
                weight = left[drawn[0]] * left[drawn[1]]
            for bit in range(4):
                if weight >> bit & 1:
                    planes[bit] |= mask
        self._weights[others] = planes
        return planes

    def flush_correction(
        self, ranks: tuple[int, ...], suited: tuple[int, ...], at_least: list[int]
    ) -> list[int]:
        """What a flush suit of the hole changes in its rank-only counts (8 final categories,
        summing to zero): on its flush boards a flush replaces every rank category below a
        full house, a straight flush replaces everything."""
        possible, straight_flush, flush_boards, straight_flushes, royal_flushes = self.suited_hole(
            suited
        )
        others = list(ranks)
        for rank in suited:
            others.remove(rank)
        planes = self.weight_planes(tuple(others))

        def boards(cells: int) -> int:
            return sum((cells & plane).bit_count() << bit for bit, plane in enumerate(planes))

        full_house_cells = (at_least[3] ^ at_least[4]) & possible
        quads_cells = at_least[4] & possible
        trips = boards((at_least[1] ^ at_least[2]) & possible)
        straight = boards((at_least[2] ^ at_least[3]) & possible)
        full_house, quads = boards(full_house_cells), boards(quads_cells)
        # A straight flush on a board where the ranks alone make a full house or quads.
        full_house_sf = boards(full_house_cells & straight_flush) if straight_flush else 0
        quads_sf = boards(quads_cells & straight_flush) if straight_flush else 0
        correction = [0] * 8
        correction[NOTHING] = -(flush_boards - trips - straight - full_house - quads)
        correction[TRIPS] = -trips
        correction[STRAIGHT] = -straight
        correction[FULL_HOUSE] = -full_house_sf
        correction[QUADS] = -quads_sf
        correction[STRAIGHT_FLUSH] = straight_flushes
        correction[ROYAL_FLUSH] = royal_flushes
        correction[FLUSH] = (
            flush_boards
            - straight_flushes
            - royal_flushes
            - (full_house - full_house_sf)
            - (quads - quads_sf)
        )
        return correction


def _plane(cells: bytes, table: bytes) -> int:
    """One bit per cell (bit i for cells[i]): `table` maps each cell byte to '0' or '1', and
    int(..., 2) reads the string at C speed, most significant bit first."""
    return int(cells.translate(table)[::-1], 2)


@cache
def _counting() -> _Counting:
    return _Counting()


@dataclass(frozen=True)
class StartingHand:
    """A class of four-card hands that are the same up to renaming suits."""

    cards: tuple[str, ...]  # one hand of the class
    combos: int  # hands in the class
    final_counts: tuple[int, ...]  # boards per FINAL_CATEGORIES, out of 1,712,304
    hole_category: str | None  # its Hole Card Bonus category

    def counts(self) -> dict[str, int]:
        return dict(zip(FINAL_CATEGORIES, self.final_counts, strict=True))


def _suit_masks(hole: Sequence[str]) -> tuple[int, ...]:
    masks = [0, 0, 0, 0]
    for card in hole:
        masks[CARD_SUIT[card]] |= 1 << CARD_RANK[card]
    return tuple(sorted(masks))


@cache
def _ranks_of(mask: int) -> tuple[int, ...]:
    return tuple(rank for rank in range(13) if mask >> rank & 1)


def _class_counts(
    masks: tuple[int, ...], counting: _Counting, rank_counts: dict, corrections: dict
) -> tuple[int, ...]:
    ranks = tuple(sorted(rank for mask in masks for rank in _ranks_of(mask)))
    if ranks not in rank_counts:
        rank_counts[ranks] = (counting.rank_counts(ranks), counting.at_least(ranks))
    by_rank, at_least = rank_counts[ranks]
    totals = [0] * 8
    for coarse, boards in enumerate(by_rank):
        totals[_COARSE_TO_FINAL[coarse]] += boards
    for mask in masks:
        if mask.bit_count() < 2:
            continue
        suited = _ranks_of(mask)
        key = (ranks, suited)
        if key not in corrections:
            corrections[key] = counting.flush_correction(ranks, suited, at_least)
        for category, change in enumerate(corrections[key]):
            totals[category] += change
    return tuple(totals)


def final_hand_counts(hole: Sequence[str]) -> dict[str, int]:
    """Boards (of the 1,712,304 the other 48 cards make) per final-hand category of `hole`."""
    cards = parse_cards(hole)
    if len(cards) != 4:
        raise ValueError(f"a starting hand is 4 cards, got {len(cards)}")
    counts = _class_counts(_suit_masks(cards), _counting(), {}, {})
    return dict(zip(FINAL_CATEGORIES, counts, strict=True))


def _suit_classes() -> list[tuple[tuple[int, ...], int]]:
    """Every class of four hole cards up to renaming suits, as its four suit masks (sorted)
    and the number of hands in it: the masks' assignments to the four suits."""
    by_size = {
        size: [sum(1 << r for r in ranks) for ranks in combinations(range(13), size)]
        for size in (1, 2, 3, 4)
    }
    classes = []
    for sizes in ((4,), (3, 1), (2, 2), (2, 1, 1), (1, 1, 1, 1)):
        groups: list[list[tuple[int, ...]]] = []
        for size in sorted(set(sizes)):
            times = sizes.count(size)
            groups.append(list(combinations_with_replacement(by_size[size], times)))
        pools: list[list[int]] = [[]]
        for group in groups:
            pools = [[*picked, *more] for picked in pools for more in group]
        for picked in pools:
            masks = tuple(sorted([*picked, *([0] * (4 - len(picked)))]))
            ways = factorial(4)
            for times in Counter(masks).values():
                ways //= factorial(times)
            classes.append((masks, ways))
    return classes


def _cards_of(masks: tuple[int, ...]) -> tuple[str, ...]:
    """One hand of a class: the largest suit group in spades, then hearts, diamonds, clubs."""
    ordered = sorted(masks, key=lambda mask: (mask.bit_count(), mask), reverse=True)
    cards = [
        RANKS[rank] + suit
        for mask, suit in zip(ordered, "shdc", strict=True)
        for rank in range(12, -1, -1)
        if mask >> rank & 1
    ]
    return tuple(sorted(cards, key=lambda card: (-CARD_RANK[card], -SUITS.index(card[1]))))


@cache
def starting_hands() -> tuple[StartingHand, ...]:
    """The 16,432 classes of starting hands with their final-hand counts (a few seconds)."""
    counting = _counting()
    rank_counts: dict = {}
    corrections: dict = {}
    hands = []
    for masks, combos in sorted(_suit_classes()):
        cards = _cards_of(masks)
        counts = _class_counts(masks, counting, rank_counts, corrections)
        hands.append(StartingHand(cards, combos, counts, hole_card_category(cards)))
    return tuple(hands)


# -- strategy and edges ----------------------------------------------------------------------


def _pays_by_category(table: Paytable) -> list[int]:
    return [table.pays.get(name, 0) for name in FINAL_CATEGORIES]


def optimal_decision(counts: Sequence[int], bet: Paytable) -> tuple[str, int]:
    """The decision of RULES.md 9 for a starting hand with these final counts, and its
    expectation in Antes x 1,712,304: with p = P(three of a kind or better) and Y = the
    expected Bet pay per unit, raise if p + Y > 1, else call if 3p + Y > 1, else fold."""
    qualify = sum(counts[TRIPS:])
    bet_pays = sum(map(mul, counts, _pays_by_category(bet)))
    if qualify + bet_pays > BOARDS:
        return "raise", 4 * qualify + 2 * bet_pays - 3 * BOARDS
    if 3 * qualify + bet_pays > BOARDS:
        return "call", 3 * qualify + bet_pays - 2 * BOARDS
    return "fold", -BOARDS


def _percent(value: Fraction) -> float:
    return float(value * 100)


def bet_report(table: Paytable, hands: Sequence[StartingHand]) -> dict[str, Any]:
    """The ante game under optimal play: edge per Ante, decision shares, category odds."""
    totals = [0] * 8
    shares = {"fold": 0, "call": 0, "raise": 0}
    expectation = wins = 0
    for hand in hands:
        decision, value = optimal_decision(hand.final_counts, table)
        shares[decision] += hand.combos
        expectation += hand.combos * value
        if decision != "fold":
            wins += hand.combos * sum(hand.final_counts[TRIPS:])
        for category, boards in enumerate(hand.final_counts):
            totals[category] += hand.combos * boards
    edge = Fraction(-expectation, DEALS)
    return {
        "kind": "bet",
        "name": table.name,
        "pays": dict(table.pays),
        "edge_pct": _percent(edge),
        "edge": f"{edge.numerator}/{edge.denominator}",
        "hit_rate_pct": _percent(Fraction(wins, DEALS)),
        "probabilities": _probabilities(FINAL_CATEGORIES[::-1], totals[::-1], DEALS),
        "strategy": {f"{name}_pct": _percent(Fraction(n, HANDS)) for name, n in shares.items()},
    }


def hole_card_bonus_report(table: Paytable, hands: Sequence[StartingHand]) -> dict[str, Any]:
    counts = dict.fromkeys(HOLE_CATEGORIES[::-1], 0)
    for hand in hands:
        counts[hand.hole_category] += hand.combos
    return _side_bet(table, {k or "high card": n for k, n in counts.items()}, HANDS)


def final_hand_bonus_report(table: Paytable, hands: Sequence[StartingHand]) -> dict[str, Any]:
    totals = [0] * 8
    for hand in hands:
        for category, boards in enumerate(hand.final_counts):
            totals[category] += hand.combos * boards
    counts = dict(zip(FINAL_CATEGORIES[::-1], totals[::-1], strict=True))
    below = sum(n for name, n in counts.items() if name not in table.pays)
    counts = {name: n for name, n in counts.items() if name in table.pays}
    counts["straight or less"] = below
    return _side_bet(table, counts, DEALS)


def _side_bet(table: Paytable, counts: Mapping[str, int], total: int) -> dict[str, Any]:
    returned = sum(n * (1 + table.pays[name]) for name, n in counts.items() if name in table.pays)
    edge = Fraction(total - returned, total)
    hits = sum(n for name, n in counts.items() if name in table.pays)
    return {
        "kind": table.kind,
        "name": table.name,
        "pays": dict(table.pays),
        "edge_pct": _percent(edge),
        "edge": f"{edge.numerator}/{edge.denominator}",
        "hit_rate_pct": _percent(Fraction(hits, total)),
        "probabilities": _probabilities(counts, counts.values(), total),
        "counts": dict(counts),
    }


def _probabilities(names: Iterable[str], counts: Iterable[int], total: int) -> dict[str, float]:
    return {name: n / total for name, n in zip(names, counts, strict=True)}


def report(tables: Iterable[Paytable] = PAYTABLES) -> dict[str, Any]:
    """Probabilities, hit rates and house edges of these paytables, exactly."""
    started = time.process_time()
    hands = starting_hands()
    makers = {
        "bet": bet_report,
        "hole_card_bonus": hole_card_bonus_report,
        "final_hand_bonus": final_hand_bonus_report,
    }
    reports = [makers[table.kind](table, hands) for table in tables]
    return {
        "hands": HANDS,
        "boards_per_hand": BOARDS,
        "deals": DEALS,
        "starting_hand_classes": len(hands),
        "paytables": reports,
        "cpu_seconds": round(time.process_time() - started, 2),
    }


def class_lines(bet: Paytable) -> list[dict[str, Any]]:
    """Each starting-hand class's odds and optimal decision, best expectation first."""
    lines = []
    for hand in starting_hands():
        decision, value = optimal_decision(hand.final_counts, bet)
        qualify = sum(hand.final_counts[TRIPS:])
        bet_pays = sum(map(mul, hand.final_counts, _pays_by_category(bet)))
        lines.append(
            {
                "cards": "".join(hand.cards),
                "combos": hand.combos,
                "p": qualify / BOARDS,
                "y": bet_pays / BOARDS,
                "decision": decision,
                "ev_antes": value / BOARDS,
            }
        )
    lines.sort(key=lambda line: (-line["ev_antes"], line["cards"]))
    return lines


# -- the command -----------------------------------------------------------------------------


def _print_report(data: dict[str, Any]) -> None:
    print(
        f"Omaha Showdown, exact over {data['deals']:,} deals ({data['hands']:,} hands x "
        f"{data['boards_per_hand']:,} boards, {data['starting_hand_classes']:,} starting-hand "
        f"classes), {data['cpu_seconds']} s CPU"
    )
    for table in data["paytables"]:
        title = {
            "bet": "Bet paytable (the Ante pays 1 to 1 on three of a kind or better)",
            "hole_card_bonus": "Hole Card Bonus paytable",
            "final_hand_bonus": "Final Hand Bonus paytable",
        }[table["kind"]]
        print(f"\n{title} {table['name']}")
        for name, probability in table["probabilities"].items():
            pays = table["pays"].get(name)
            shown = f"{pays:>3} to 1" if pays is not None else "  loses"
            print(f"  {name:<18} {probability:.10f}  {shown}")
        if table["kind"] == "bet":
            shares = table["strategy"]
            print(
                f"  Ante game house edge {table['edge_pct']:.4f}% ({table['edge']}) under "
                f"optimal play: fold {shares['fold_pct']:.3f}%, call {shares['call_pct']:.3f}%, "
                f"raise {shares['raise_pct']:.3f}%; Ante and Bet win in "
                f"{table['hit_rate_pct']:.3f}% of rounds"
            )
        else:
            print(
                f"  house edge {table['edge_pct']:.4f}% ({table['edge']}), "
                f"hit rate {table['hit_rate_pct']:.3f}%"
            )


def _choose_tables(names: Sequence[str] | None) -> list[Paytable]:
    if not names:
        return list(PAYTABLES)
    return [paytable(name) for name in names]


def _round_tables(names: Sequence[str] | None) -> ShowdownPaytables:
    chosen = default_paytables()
    tables = {kind: getattr(chosen, kind) for kind in KINDS}
    seen: set[str] = set()
    for table in _choose_tables(names) if names else []:
        if table.kind in seen:
            raise PaytableError(f"two {table.kind} paytables given; a round plays one of each")
        seen.add(table.kind)
        tables[table.kind] = table
    return ShowdownPaytables(**tables)


def settle_once(
    *,
    hole: Sequence[str] | str,
    board: Sequence[str] | str,
    ante: int,
    decision: str,
    hole_card_bonus: int = 0,
    final_hand_bonus: int = 0,
    paytables: ShowdownPaytables | None = None,
    max_aggregate_payout: int | None = None,
) -> dict[str, Any]:
    """One online round with these cards, through the engine, as the `settle` command's JSON."""
    hole_cards, board_cards = parse_cards(hole), parse_cards(board)
    if len(hole_cards) != 4 or len(board_cards) != 5:
        raise ShowdownError(
            "bad_cards",
            f"a round is 4 hole and 5 board cards, got {len(hole_cards)} and {len(board_cards)}",
        )
    named = (*hole_cards, *board_cards)
    ensure_distinct(named)
    rest = [card for rank in RANKS for suit in SUITS if (card := rank + suit) not in named]
    game = ShowdownRound.open(
        limits=ShowdownLimits(seats=1, max_aggregate_payout=max_aggregate_payout),
        paytables=paytables or default_paytables(),
    )
    game.place(1, ante=ante, hole_card_bonus=hole_card_bonus, final_hand_bonus=final_hand_bonus)
    game.deal([*named, *rest])  # one seat: its four hole cards, then the board
    game.decide(1, decision)
    assert game.result is not None
    seat = game.result["seats"][0]
    out: dict[str, Any] = {
        "hole": seat["hole"],
        "board": game.result["board"],
        "decision": decision,
        "final_hand": seat["final_hand"],
        "hole_cards": seat["hole_cards"],
        "paytables": {kind: getattr(game.paytables, kind).name for kind in KINDS},
        "net_cents": seat["net"],
    }
    for name, wager in seat["wagers"].items():
        out[name] = {
            "stake_cents": wager["stake"],
            "result": wager["result"],
            "category": wager["category"],
            "pays": wager["pays"],
            "net_cents": wager["net"],
        }
    out["payout_cap"] = game.result["payout_cap"]
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m poker.engine.showdown_math",
        description="Exact odds and house edges of Omaha Showdown's paytables (RULES.md 9).",
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument(
        "--paytables", nargs="+", metavar="NAME", help="only these tables (default: all)"
    )
    parser.add_argument(
        "--classes",
        action="store_true",
        help="also print each starting-hand class's optimal decision (under the Bet table)",
    )
    commands = parser.add_subparsers(dest="command")
    settle = commands.add_parser("settle", help="settle one round and print it as JSON")
    settle.add_argument("--hole", required=True, help="four cards, e.g. AsKsQsJs")
    settle.add_argument("--board", required=True, help="five cards, e.g. 2c3c4c5c6c")
    settle.add_argument("--ante", type=int, required=True, help="cents")
    settle.add_argument("--decision", required=True, choices=("fold", "call", "raise"))
    settle.add_argument("--hole-card-bonus", type=int, default=0, help="cents (0: none)")
    settle.add_argument("--final-hand-bonus", type=int, default=0, help="cents (0: none)")
    settle.add_argument(
        "--paytables", nargs="+", metavar="NAME", help="tables to play (default bet hcb-a fhb-a)"
    )
    settle.add_argument("--max-payout", type=int, help="maximum aggregate payout, cents")
    args = parser.parse_args(argv)
    try:
        if args.command == "settle":
            out = settle_once(
                hole=args.hole,
                board=args.board,
                ante=args.ante,
                decision=args.decision,
                hole_card_bonus=args.hole_card_bonus,
                final_hand_bonus=args.final_hand_bonus,
                paytables=_round_tables(args.paytables),
                max_aggregate_payout=args.max_payout,
            )
            print(json.dumps(out, indent=2))
            return 0
        tables = _choose_tables(args.paytables)
    except (ShowdownError, PaytableError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    data = report(tables)
    if args.classes:
        bet = next((table for table in tables if table.kind == "bet"), paytable("bet"))
        data["classes"] = class_lines(bet)
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    _print_report(data)
    for line in data.get("classes", []):
        print(
            f"{line['cards']}  x{line['combos']:<3} p={line['p']:.6f} Y={line['y']:.6f} "
            f"{line['decision']:<5} {line['ev_antes']:+.6f} Antes"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
