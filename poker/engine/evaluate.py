"""Omaha hand values: high, and ace-to-five low eight or better.

Public API::

    omaha_high(hole, board) -> HighHand
    omaha_low8(hole, board) -> LowHand | None
    omaha_high_low8(hole, board) -> tuple[HighHand, LowHand | None]

`hole` is four cards and `board` three to five, as any sequence of card strings (see
poker.engine.cards); a bad card, a duplicate or a wrong count raises ValueError. Every hand
uses exactly two hole cards and three board cards, for high and for low, and the low may use
other hole cards than the high. ``omaha_high_low8`` is the hi/lo showdown call: it checks the
cards once and returns both halves (the low is None when the hand has no eight-or-better low).

Values compare with < == > and hash: the greater value wins and equal values split, so
showdown code takes ``max`` for both halves. A better low is the GREATER ``LowHand``. High and
low values never compare with each other (TypeError). Each value has ``.category``
("full house", ..., "low"), ``.cards`` (the five cards used, two hole then three board, in the
order a player reads them) and ``.name`` ("full house, kings full of sixes", "8-6-4-2-A low");
these are worked out only when asked for, so comparing hands stays cheap.

Speed comes from the tables in poker.engine._tables (built once at import in about a tenth of
a second, about 6 MB; see docs/benchmarks.md): a high hand costs one dict lookup for the board
and six array lookups for the hole pairs, plus a short extra step when a flush is possible.
"""

from collections.abc import Iterable, Sequence
from itertools import combinations

from poker.engine import _tables
from poker.engine._tables import ACE, CLASS_KEYS, STRAIGHT, STRAIGHT_FLUSH
from poker.engine.cards import CARD_RANK, CARD_SUIT, RANK_NAMES, RANKS, bad_card_message

HIGH_CATEGORIES = (
    "high card",
    "one pair",
    "two pair",
    "three of a kind",
    "straight",
    "flush",
    "full house",
    "four of a kind",
    "straight flush",
)

# Local names for the hot paths (a global lookup each is measurable at these speeds).
_CODE = _tables.CARD_CODE
_ROW = _tables.RANK_ROW
_RANK = CARD_RANK
_SUIT = CARD_SUIT
_RANK_BIT = _tables.RANK_BIT
_LOW_BIT = _tables.LOW_BIT
_HIGH = _tables.HIGH
_BOARD_ROW = _tables.BOARD_ROW
_FLUSH_SUIT = _tables.FLUSH_SUIT
_FLUSH_ORDINAL = _tables.FLUSH_ORDINAL
_MULTISET_ORDINAL = _tables.MULTISET_ORDINAL
_LOW = _tables.LOW
_SUIT_SHIFT = _tables.SUIT_SHIFT
_RANK_CODE_MASK = _tables.RANK_CODE_MASK


class HighHand:
    """The value of an Omaha high hand; greater beats lesser, equal splits.

    Wraps the hand's class ordinal (1 = 7-5-4-3-2 high ... 7462 = royal flush) and keeps the
    cards it came from, to find ``.cards`` on demand.
    """

    __slots__ = ("_board", "_hole", "_ordinal")

    def __init__(self, ordinal: int, hole: tuple[str, ...], board: tuple[str, ...]) -> None:
        self._ordinal = ordinal
        self._hole = hole
        self._board = board

    def __lt__(self, other: object) -> bool:
        if type(other) is not HighHand:
            return NotImplemented
        return self._ordinal < other._ordinal

    def __le__(self, other: object) -> bool:
        if type(other) is not HighHand:
            return NotImplemented
        return self._ordinal <= other._ordinal

    def __gt__(self, other: object) -> bool:
        if type(other) is not HighHand:
            return NotImplemented
        return self._ordinal > other._ordinal

    def __ge__(self, other: object) -> bool:
        if type(other) is not HighHand:
            return NotImplemented
        return self._ordinal >= other._ordinal

    def __eq__(self, other: object) -> bool:
        if type(other) is not HighHand:
            return NotImplemented
        return self._ordinal == other._ordinal

    def __hash__(self) -> int:
        return hash(self._ordinal)

    @property
    def category(self) -> str:
        return HIGH_CATEGORIES[CLASS_KEYS[self._ordinal][0]]

    @property
    def cards(self) -> tuple[str, ...]:
        """The five cards used: two hole, three board (the first such choice, if several)."""
        for pair in combinations(self._hole, 2):
            for triple in combinations(self._board, 3):
                five = pair + triple
                if _five_card_ordinal(five) == self._ordinal:
                    return _reading_order(five)
        raise AssertionError("no two-plus-three choice reaches the hand's value")

    @property
    def name(self) -> str:
        category, ranks = CLASS_KEYS[self._ordinal]
        top = ranks[0]
        if category == STRAIGHT_FLUSH:
            return "royal flush" if top == ACE else f"straight flush, {_single(top)} high"
        if category == STRAIGHT:
            return f"straight, {_single(top)} high"
        wording = {
            0: "high card, {top}",
            1: "one pair, {tops}",
            2: "two pair, {tops} and {nexts}",
            3: "three of a kind, {tops}",
            5: "flush, {top} high",
            6: "full house, {tops} full of {nexts}",
            7: "four of a kind, {tops}",
        }[category]
        return wording.format(top=_single(top), tops=_plural(top), nexts=_plural(ranks[1]))

    def __repr__(self) -> str:
        return f"<HighHand {self.name}: {' '.join(self.cards)}>"


class LowHand:
    """A qualifying eight-or-better low; the better low is the GREATER value.

    Wraps ``255 - mask``, where bit 0 of mask is an ace and bit 7 an eight: of two five-rank
    masks the smaller is the better low (compare the highest card first), so the larger key is.
    """

    __slots__ = ("_board", "_hole", "_key")

    category = "low"

    def __init__(self, key: int, hole: tuple[str, ...], board: tuple[str, ...]) -> None:
        self._key = key
        self._hole = hole
        self._board = board

    def __lt__(self, other: object) -> bool:
        if type(other) is not LowHand:
            return NotImplemented
        return self._key < other._key

    def __le__(self, other: object) -> bool:
        if type(other) is not LowHand:
            return NotImplemented
        return self._key <= other._key

    def __gt__(self, other: object) -> bool:
        if type(other) is not LowHand:
            return NotImplemented
        return self._key > other._key

    def __ge__(self, other: object) -> bool:
        if type(other) is not LowHand:
            return NotImplemented
        return self._key >= other._key

    def __eq__(self, other: object) -> bool:
        if type(other) is not LowHand:
            return NotImplemented
        return self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    @property
    def ranks(self) -> tuple[str, ...]:
        """The five low ranks, highest first, the ace last: ("8", "6", "4", "2", "A")."""
        mask = 255 - self._key
        return tuple("A2345678"[bit] for bit in range(7, -1, -1) if mask >> bit & 1)

    @property
    def cards(self) -> tuple[str, ...]:
        """The five cards used, two hole and three board, highest first (8 6 4 2 A)."""
        mask = 255 - self._key
        for pair in combinations(self._hole, 2):
            for triple in combinations(self._board, 3):
                five = pair + triple
                bits = [_LOW_BIT[card] for card in five]
                if sum(bits) == mask and len(set(bits)) == 5:
                    return tuple(sorted(five, key=_LOW_BIT.__getitem__, reverse=True))
        raise AssertionError("no two-plus-three choice reaches the low's value")

    @property
    def name(self) -> str:
        return "-".join(self.ranks) + " low"

    def __repr__(self) -> str:
        return f"<LowHand {self.name}: {' '.join(self.cards)}>"


def omaha_high(hole: Sequence[str], board: Sequence[str]) -> HighHand:
    """The best high hand from exactly two of the four hole cards and three board cards."""
    try:
        h1, h2, h3, h4 = hole
        if len(board) == 5:
            b1, b2, b3, b4, b5 = board
            board = (b1, b2, b3, b4, b5)
            total = _CODE[b1] + _CODE[b2] + _CODE[b3] + _CODE[b4] + _CODE[b5]
            distinct = len({h1, h2, h3, h4, b1, b2, b3, b4, b5}) == 9
        else:
            board = tuple(board)
            total = sum(map(_CODE.__getitem__, board))
            distinct = len({h1, h2, h3, h4, *board}) == 4 + len(board)
        row = _BOARD_ROW[total & _RANK_CODE_MASK]  # KeyError unless 3 to 5 board cards
        first = row + _ROW[h1]
        second = row + _ROW[h2]
        r2, r3, r4 = _RANK[h2], _RANK[h3], _RANK[h4]
        table = _HIGH
        ordinal = max(
            table[first + r2],
            table[first + r3],
            table[first + r4],
            table[second + r3],
            table[second + r4],
            table[row + _ROW[h3] + r4],
        )
    except (KeyError, TypeError, ValueError):
        _reject(hole, board)
        raise
    if not distinct:
        _reject(hole, board)
    hole = (h1, h2, h3, h4)
    suit = _FLUSH_SUIT[total >> _SUIT_SHIFT]
    if suit >= 0:
        flush = _best_flush(suit, hole, board)
        if flush > ordinal:
            ordinal = flush
    return HighHand(ordinal, hole, board)


def omaha_low8(hole: Sequence[str], board: Sequence[str]) -> LowHand | None:
    """The best eight-or-better low (two hole + three board cards), or None if none qualifies."""
    try:
        h1, h2, h3, h4 = hole
        board = tuple(board)
        if not 3 <= len(board) <= 5 or len({h1, h2, h3, h4, *board}) != 4 + len(board):
            raise ValueError
        board_mask = 0
        for card in board:
            board_mask |= _LOW_BIT[card]
        key = _LOW[(_LOW_BIT[h1] | _LOW_BIT[h2] | _LOW_BIT[h3] | _LOW_BIT[h4]) << 8 | board_mask]
    except (KeyError, TypeError, ValueError):
        _reject(hole, board)
        raise
    return LowHand(key, (h1, h2, h3, h4), board) if key else None


def omaha_high_low8(hole: Sequence[str], board: Sequence[str]) -> tuple[HighHand, LowHand | None]:
    """Both halves of a hi/lo showdown in one call: (high, low or None)."""
    high = omaha_high(hole, board)
    hole, board = high._hole, high._board  # checked and copied once
    board_mask = 0
    for card in board:
        board_mask |= _LOW_BIT[card]
    h1, h2, h3, h4 = hole
    key = _LOW[(_LOW_BIT[h1] | _LOW_BIT[h2] | _LOW_BIT[h3] | _LOW_BIT[h4]) << 8 | board_mask]
    return high, (LowHand(key, hole, board) if key else None)


def _best_flush(suit: int, hole: tuple[str, ...], board: tuple[str, ...]) -> int:
    """Best flush or straight flush ordinal in `suit` (0 without two suited hole cards)."""
    hole_bits = [_RANK_BIT[card] for card in hole if _SUIT[card] == suit]
    if len(hole_bits) < 2:
        return 0
    board_bits = [_RANK_BIT[card] for card in board if _SUIT[card] == suit]
    return max(
        _FLUSH_ORDINAL[a | b | c | d | e]
        for a, b in combinations(hole_bits, 2)
        for c, d, e in combinations(board_bits, 3)
    )


def _five_card_ordinal(five: Sequence[str]) -> int:
    if len({_SUIT[card] for card in five}) == 1:
        return _FLUSH_ORDINAL[sum(_RANK_BIT[card] for card in five)]
    return _MULTISET_ORDINAL[sum(_CODE[card] for card in five) & _RANK_CODE_MASK]


def _reject(hole: Iterable[object], board: Iterable[object]) -> None:
    """Raise the ValueError that says what is wrong with the cards."""
    if isinstance(hole, str) or isinstance(board, str):
        raise ValueError("give cards as a sequence of card strings, not one string")
    hole_cards, board_cards = list(hole), list(board)
    if len(hole_cards) != 4:
        raise ValueError(f"Omaha needs exactly 4 hole cards, got {len(hole_cards)}")
    if not 3 <= len(board_cards) <= 5:
        raise ValueError(f"the board must hold 3 to 5 cards, got {len(board_cards)}")
    seen: set[object] = set()
    for card in (*hole_cards, *board_cards):
        try:
            known = card in _RANK
        except TypeError:  # unhashable
            known = False
        if not known:
            raise ValueError(bad_card_message(card))
        if card in seen:
            raise ValueError(f"duplicate card {card!r}")
        seen.add(card)


def _reading_order(five: Sequence[str]) -> tuple[str, ...]:
    """Sets first, then by rank, as a player reads a hand; a wheel reads 5-4-3-2-A."""
    counts: dict[int, int] = {}
    for card in five:
        counts[_RANK[card]] = counts.get(_RANK[card], 0) + 1
    ordered = sorted(five, key=lambda card: (counts[_RANK[card]], _RANK[card]), reverse=True)
    if [_RANK[card] for card in ordered] == [ACE, 3, 2, 1, 0]:
        ordered = ordered[1:] + ordered[:1]
    return tuple(ordered)


def _single(rank: int) -> str:
    return RANK_NAMES[RANKS[rank]]


def _plural(rank: int) -> str:
    name = RANK_NAMES[RANKS[rank]]
    return name + ("es" if name == "six" else "s")
