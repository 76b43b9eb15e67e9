"""The live hand reader: a player's own best Omaha hand on the board so far.

Omaha players misread their hands (a flush on the board with one suited hole card is no flush;
four to a straight on the board needs two hole cards that fit), so the table tells each player
what they hold: the best high hand and, in Hi/Lo, the best eight-or-better low, each exactly two
hole cards and three board cards, worked out by the showdown's own evaluator
(poker.engine.evaluate), so a reading is always what the hand would be at showdown on this board.

A reading is made from one player's hole cards and the board only; `poker.engine.views`
puts it in that player's own view and nowhere else. The hand values are as a hand result
names them (``{"name", "category", "cards"}``), so the pages name them with the same words.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from typing import TypedDict

from poker.engine.evaluate import HighHand, LowHand, omaha_high, omaha_high_low8

__all__ = ["HandReading", "HandValueJson", "read_hand"]


class HandValueJson(TypedDict):
    """A hand as a showdown result names it: English name, category, the five cards used (two
    hole then three board, in reading order; a low highest first)."""

    name: str
    category: str
    cards: list[str]


class HandReading(TypedDict):
    """A player's best hand on the board so far: the high, and the low in Hi/Lo (null when no
    eight-or-better low can be made, and always in high-only Omaha)."""

    high: HandValueJson
    low: HandValueJson | None


_Value = tuple[str, str, tuple[str, ...]]


def read_hand(hole: Sequence[str], board: Sequence[str], *, hi_lo: bool) -> HandReading | None:
    """The reading of four hole cards on a board of three to five cards; None before the flop
    (no board: nothing to read). Bad cards raise the evaluator's ValueError."""
    if not board:
        return None
    hole, board = tuple(hole), tuple(board)
    try:
        high, low = _read(hole, board, hi_lo)
    except TypeError:  # an unhashable "card": the evaluator says what is wrong
        omaha_high(hole, board)
        raise
    return {"high": _json(high), "low": _json(low) if low is not None else None}


# Naming a hand walks its 60 two-plus-three choices (about 0.3 ms on a river): each player's
# reading is worked out once per street and then served from here, whatever number of frames
# repeat it. A few thousand entries hold every hand a process plays at once.
@lru_cache(maxsize=4096)
def _read(
    hole: tuple[str, ...], board: tuple[str, ...], hi_lo: bool
) -> tuple[_Value, _Value | None]:
    if hi_lo:
        high, low = omaha_high_low8(hole, board)
        return _value(high), _value(low) if low is not None else None
    return _value(omaha_high(hole, board)), None


def _value(hand: HighHand | LowHand) -> _Value:
    return hand.name, hand.category, hand.cards


def _json(value: _Value) -> HandValueJson:
    name, category, cards = value
    return {"name": name, "category": category, "cards": list(cards)}
