"""Lookup tables behind poker.engine.evaluate, built once at import.

Why tables: an Omaha hand has 60 two-plus-three combinations, far too many to score one by one
in pure Python at showdown speed. Instead:

* Every five-card high hand falls into one of 7462 classes (suits matter only for flushes).
  Each class gets an *ordinal*, 1 (7-5-4-3-2 high) to 7462 (royal flush), so a hand value is a
  small int and comparing hands is comparing ints.
* Without a flush, the best hand depends only on ranks. ``HIGH`` has one row per board rank
  multiset (3, 4 or 5 cards) and 169 columns, one per ordered pair of hole ranks
  (``13 * first + second``); the cell is the best ordinal over the board's three-card subsets
  combined with those two hole ranks. Evaluating a hand is then one dict lookup for the board's
  row and six array lookups for the hole pairs.
* A flush needs three board cards and two hole cards of one suit, which is rarer and checked
  separately with ``FLUSH_ORDINAL`` (indexed by the 13-bit mask of the five ranks).
* An eight-or-better low depends only on which distinct low ranks (A..8) the hole and the board
  hold: ``LOW`` is indexed by ``hole_mask << 8 | board_mask`` and holds ``255 - mask`` of the
  best five-rank low (so a better low is a greater number), or 0 for no low.

River rows are built from flop and turn rows with a cell-wise max done on rows packed into big
ints, which keeps the whole build near a tenth of a second.
"""

import sys
from array import array
from itertools import combinations, combinations_with_replacement

from poker.engine.cards import CARD_RANK, CARD_SUIT, FULL_DECK

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)

ACE = 12
PAIR_COLUMNS = 169  # 13 * first hole rank + second hole rank

# Per-card codes. A board's rank multiset is the sum of 5**rank over its cards (each rank at
# most four times, so the base-5 digits never carry); its suit counts ride above bit 32, three
# bits per suit. One dict lookup per board card gives both.
SUIT_SHIFT = 32
RANK_CODE_MASK = (1 << SUIT_SHIFT) - 1
CARD_CODE: dict[str, int] = {
    card: 5 ** CARD_RANK[card] + (1 << (SUIT_SHIFT + 3 * CARD_SUIT[card])) for card in FULL_DECK
}
RANK_ROW: dict[str, int] = {card: 13 * CARD_RANK[card] for card in FULL_DECK}
RANK_BIT: dict[str, int] = {card: 1 << CARD_RANK[card] for card in FULL_DECK}
# Ace-to-five low: ace is bit 0, deuce bit 1 ... eight bit 7; nine and up are no low card.
LOW_BIT: dict[str, int] = {
    card: (1 << ((CARD_RANK[card] + 1) % 13)) if CARD_RANK[card] in (12, *range(7)) else 0
    for card in FULL_DECK
}


def class_key(ranks: tuple[int, ...], flush: bool) -> tuple[int, tuple[int, ...]]:
    """(category, ranks by significance) of five cards; keys order hands like the rules do."""
    counts = {rank: ranks.count(rank) for rank in set(ranks)}
    by_count = tuple(sorted(counts, key=lambda rank: (counts[rank], rank), reverse=True))
    shape = sorted(counts.values(), reverse=True)
    if len(counts) == 5:
        high = max(ranks)
        if high - min(ranks) == 4:
            return (STRAIGHT_FLUSH if flush else STRAIGHT), (high,)
        if set(ranks) == {ACE, 0, 1, 2, 3}:  # the wheel, a five-high straight
            return (STRAIGHT_FLUSH if flush else STRAIGHT), (3,)
        return (FLUSH if flush else HIGH_CARD), by_count
    if shape[0] == 4:
        return QUADS, by_count
    if shape[:2] == [3, 2]:
        return FULL_HOUSE, by_count
    if shape[0] == 3:
        return TRIPS, by_count
    if shape[:2] == [2, 2]:
        return TWO_PAIR, by_count
    return PAIR, by_count


def _rank_code(ranks: tuple[int, ...]) -> int:
    return sum(5**rank for rank in ranks)


def _build_classes() -> tuple[list, dict[int, int], list[int]]:
    rank_multisets = [
        ranks
        for ranks in combinations_with_replacement(range(13), 5)
        if all(ranks.count(rank) <= 4 for rank in ranks)
    ]
    flush_sets = list(combinations(range(13), 5))
    keys = {ranks: class_key(ranks, False) for ranks in rank_multisets}
    flush_keys = {ranks: class_key(ranks, True) for ranks in flush_sets}
    ordered = sorted({*keys.values(), *flush_keys.values()})
    ordinal = {key: number for number, key in enumerate(ordered, start=1)}
    multiset_ordinal = {_rank_code(ranks): ordinal[key] for ranks, key in keys.items()}
    flush_ordinal = [0] * (1 << 13)
    for ranks, key in flush_keys.items():
        flush_ordinal[sum(1 << rank for rank in ranks)] = ordinal[key]
    return [None, *ordered], multiset_ordinal, flush_ordinal


# CLASS_KEYS[ordinal] -> (category, ranks by significance), for names and categories.
CLASS_KEYS, MULTISET_ORDINAL, FLUSH_ORDINAL = _build_classes()


# A row of 169 cells is also handled as one big int, 16 bits per cell (native byte order),
# so that the element-wise max of two rows is a handful of big-int operations instead of 169
# Python-level max() calls. Cells hold ordinals below 2**15, leaving bit 15 as a guard.
def _pack(cells: list[int]) -> int:
    return int.from_bytes(array("H", cells).tobytes(), sys.byteorder)


_GUARDS = _pack([1 << 15] * PAIR_COLUMNS)
_LOW_BITS = _pack([(1 << 15) - 1] * PAIR_COLUMNS)


def _packed_max(first: int, second: int) -> int:
    """Cell-wise max of two packed rows (SIMD within a register)."""
    # Per cell: (a + 2**15) - b keeps bit 15 exactly when a >= b and never borrows across cells.
    first_wins = ((first | _GUARDS) - second) & _GUARDS
    mask = first_wins - (first_wins >> 15)  # 0x7fff in the cells where a >= b
    return (first & mask) | (second & (mask ^ _LOW_BITS))


def _build_high() -> tuple[array, dict[int, int]]:
    # Columns are ordered hole rank pairs (13 * first + second), so the evaluator needs no sort.
    pair_codes = [5**first + 5**second for first in range(13) for second in range(13)]
    table = array("H")
    board_row: dict[int, int] = {}
    row_bytes = 2 * PAIR_COLUMNS

    def append(board: tuple[int, ...], row: int) -> None:
        board_row[_rank_code(board)] = len(table)
        table.frombytes(row.to_bytes(row_bytes, sys.byteorder))

    # Flop and turn rows are kept, as the river rows are made from them.
    rows: dict[tuple[int, ...], int] = {}
    get = MULTISET_ORDINAL.get
    for flop in combinations_with_replacement(range(13), 3):
        code = _rank_code(flop)
        # 0 where the five ranks are impossible (five of a kind).
        rows[flop] = _pack([get(code + pair, 0) for pair in pair_codes])
        append(flop, rows[flop])
    for turn in combinations_with_replacement(range(13), 4):
        a, b, c, d = turn
        row = 0
        for subset in {(a, b, c), (a, b, d), (a, c, d), (b, c, d)}:
            row = _packed_max(row, rows[subset])
        rows[turn] = row
        append(turn, row)
    for river in combinations_with_replacement(range(13), 5):
        a, b, c, d, e = river
        if a == e:
            continue  # five of a kind cannot be a board
        # Every three-card subset lies in one of these (the one without a, b or c, or abc).
        row = 0
        for kept in {(b, c, d, e), (a, c, d, e), (a, b, d, e), (a, b, c)}:
            row = _packed_max(row, rows[kept])
        append(river, row)
    return table, board_row


HIGH, BOARD_ROW = _build_high()


def _build_flush_suit() -> list[int]:
    """Suit-count code of a board -> the suit with three or more cards, else -1."""
    flush_suit = [-1] * (1 << 12)
    for code in range(1 << 12):
        for suit in range(4):
            if (code >> (3 * suit)) & 7 >= 3:
                flush_suit[code] = suit
    return flush_suit


FLUSH_SUIT = _build_flush_suit()


def _lowest_three(mask: int) -> int:
    chosen = 0
    for _ in range(3):
        if not mask:
            return 0
        bit = mask & -mask
        chosen |= bit
        mask ^= bit
    return chosen


def _build_low() -> bytes:
    # For one pair of distinct hole low ranks, the best low on a board takes the board's three
    # lowest other low ranks (the smaller the rank mask, the better the low).
    no_low = 255  # above every real five-rank mask (the worst, 8-7-6-5-4, is 0b11111000)
    pair_rows = {}
    for first, second in combinations(range(8), 2):
        pair = (1 << first) | (1 << second)
        row = []
        for board in range(256):
            three = _lowest_three(board & ~pair)
            row.append(pair | three if three else no_low)
        pair_rows[pair] = row
    table = bytearray(1 << 16)
    for hole in range(256):
        pairs = [row for pair, row in pair_rows.items() if pair & hole == pair]
        if not pairs or hole.bit_count() > 4:
            continue  # four hole cards hold at most four distinct low ranks
        best = map(min, *pairs) if len(pairs) > 1 else pairs[0]
        table[hole << 8 : (hole << 8) + 256] = bytes(
            0 if mask == no_low else 255 - mask for mask in best
        )
    return bytes(table)


LOW = _build_low()
