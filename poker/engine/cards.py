"""Cards, the deck and their validation.

A card is a two-character string, rank then suit: ranks ``23456789TJQKA``, suits ``cdhs``
("As", "Td", "2c"). Parsing is strict: only that exact spelling is accepted ("as", "10h",
"AS", " As" are rejected), because cards reach the engine from our own dealer and from stored
hand histories, never typed by players, so any other spelling is a bug we want to see at once.

The engine never shuffles: the deck's order comes in from outside (``secrets.SystemRandom`` in
production, a fixed order in tests), and :func:`validate_deck` checks it before a hand starts.
"""

from collections.abc import Iterable, Sequence
from typing import TypeGuard

RANKS = "23456789TJQKA"
SUITS = "cdhs"

RANK_NAMES = {
    "2": "two",
    "3": "three",
    "4": "four",
    "5": "five",
    "6": "six",
    "7": "seven",
    "8": "eight",
    "9": "nine",
    "T": "ten",
    "J": "jack",
    "Q": "queen",
    "K": "king",
    "A": "ace",
}

# The 52 cards in a fixed order (by rank, then suit: 2c 2d 2h 2s 3c ... As). Its index is the
# card's number, used by table-driven code and compact encodings.
FULL_DECK: tuple[str, ...] = tuple(rank + suit for rank in RANKS for suit in SUITS)

CARD_INDEX: dict[str, int] = {card: index for index, card in enumerate(FULL_DECK)}

# Rank 0 is a deuce, 12 an ace; suit 0 is clubs, 3 spades.
CARD_RANK: dict[str, int] = {card: RANKS.index(card[0]) for card in FULL_DECK}
CARD_SUIT: dict[str, int] = {card: SUITS.index(card[1]) for card in FULL_DECK}


def is_card(value: object) -> TypeGuard[str]:
    """True for a correctly spelled card string."""
    try:
        return value in CARD_INDEX
    except TypeError:  # unhashable, e.g. a list
        return False


def bad_card_message(value: object) -> str:
    """Why `value` is not a card, in words a developer can act on."""
    return (
        f"invalid card {value!r}: a card is a rank from {RANKS} followed by a suit "
        f"from {SUITS}, e.g. 'As', 'Td', '2c'"
    )


def parse_card(value: object) -> str:
    """Return `value` if it is a card, else raise ValueError naming it."""
    if not is_card(value):
        raise ValueError(bad_card_message(value))
    return value


def parse_cards(values: Iterable[object]) -> tuple[str, ...]:
    """Validate cards given as a sequence of strings or one string like "AsKd" (or "As Kd").

    Raises ValueError on the first bad card and on any card given twice.
    """
    if isinstance(values, str):
        text = values.replace(" ", "").replace(",", "")
        if len(text) % 2:
            raise ValueError(f"cannot split {values!r} into two-character cards")
        values = [text[i : i + 2] for i in range(0, len(text), 2)]
    cards = tuple(parse_card(value) for value in values)
    ensure_distinct(cards)
    return cards


def ensure_distinct(cards: Sequence[str]) -> None:
    """Raise ValueError naming the first card that appears twice."""
    seen: set[str] = set()
    for card in cards:
        if card in seen:
            raise ValueError(f"duplicate card {card!r}")
        seen.add(card)


def validate_deck(cards: Sequence[object]) -> tuple[str, ...]:
    """Check a deck order handed to the engine: exactly the 52 distinct cards.

    Returns the deck as a tuple, so a caller's list cannot change it afterwards.
    """
    if len(cards) != len(FULL_DECK):
        raise ValueError(f"a deck has {len(FULL_DECK)} cards, got {len(cards)}")
    deck = tuple(parse_card(card) for card in cards)
    ensure_distinct(deck)
    return deck


def card_rank(card: str) -> int:
    """0 for a deuce up to 12 for an ace."""
    return CARD_RANK[parse_card(card)]


def card_suit(card: str) -> int:
    """0 clubs, 1 diamonds, 2 hearts, 3 spades."""
    return CARD_SUIT[parse_card(card)]
