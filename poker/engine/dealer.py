"""The dealer's jobs around a hand (RULES.md 1 and 4): shuffle, draw for the button, move it,
name the blinds, and say whether a hand can start.

Pure like the rest of the engine: the randomness comes in from outside. The table passes
`secrets.randbelow` (the operating system's CSPRNG, RULES.md 1) to `shuffle_deck`; tests pass
a scripted function. Seats are numbers 1-10 and clockwise is the order of seat numbers,
wrapping (docs/rules.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from poker.engine.cards import CARD_RANK, FULL_DECK, parse_card

__all__ = [
    "BUTTON_DRAW_SUIT_ORDER",
    "big_blind_passed",
    "blind_seats",
    "draw_for_button",
    "enough_players",
    "next_button",
    "shuffle_deck",
]

# RULES.md 4 (003): ties in the draw for the button are broken by suit, spades highest.
BUTTON_DRAW_SUIT_ORDER = "shdc"


def shuffle_deck(randbelow: Callable[[int], int]) -> list[str]:
    """A fresh 52-card deck in Fisher-Yates order (RULES.md 1).

    `randbelow(n)` must return a uniform integer in [0, n): in production `secrets.randbelow`,
    never a seeded generator a player could learn. Each card position is drawn once, from the
    cards not yet placed, so every order is equally likely when `randbelow` is uniform.
    """
    deck = list(FULL_DECK)
    for i in range(len(deck) - 1, 0, -1):
        j = randbelow(i + 1)
        if type(j) is not int or not 0 <= j <= i:
            raise ValueError(f"randbelow({i + 1}) returned {j!r}, not an int in [0, {i + 1})")
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def _draw_key(card: str) -> tuple[int, int]:
    return CARD_RANK[card], -BUTTON_DRAW_SUIT_ORDER.index(card[1])


def draw_for_button(cards: Mapping[int, str]) -> int:
    """The seat that wins the draw for the button at a fresh table (RULES.md 4).

    `cards` maps each seat to the one card dealt to it face up from a CSPRNG shuffle. The
    highest rank wins (ace high); equal ranks are split by suit, spades, hearts, diamonds,
    clubs, for this draw only.
    """
    if len(cards) < 2:
        raise ValueError("the draw for the button needs at least two seats")
    for card in cards.values():
        parse_card(card)
    if len(set(cards.values())) != len(cards):
        raise ValueError("each seat draws a different card")
    return max(cards, key=lambda seat: _draw_key(cards[seat]))


def _clockwise_after(seat: int, seats: Iterable[int]) -> list[int]:
    ordered = sorted(set(seats))
    first = next((k for k, number in enumerate(ordered) if number > seat), 0)
    return ordered[first:] + ordered[:first]


def next_button(button: int, dealt_in: Iterable[int]) -> int:
    """Where the button goes for the next hand: one seat clockwise, to the next player dealt in
    (RULES.md 4)."""
    order = _clockwise_after(button, dealt_in)
    if not order:
        raise ValueError("nobody is dealt in")
    return order[0]


def blind_seats(
    button: int, dealt_in: Iterable[int], waiting_for_big_blind: Iterable[int] = ()
) -> tuple[int, int]:
    """(small blind seat, big blind seat) for a hand with this button: the two players after
    the button (RULES.md 4); heads-up the button posts the small blind (RULES.md 3).

    Players who wait for the big blind (RULES.md 4) are in `waiting_for_big_blind`, not in
    `dealt_in`: the big blind goes to the first seat after the small blind among both, so when
    it reaches a waiting player that player posts it and is dealt in. With two dealt in and a
    waiting player between them, the waiting player takes the big blind and the player after
    the button the small one. Those posting an extra big blind are passed to `Hand.start` as
    `extra_big_blind_seats`.
    """
    seats = set(dealt_in)
    if len(seats) < 2:
        raise ValueError("a hand needs at least two players dealt in")
    everyone = seats | set(waiting_for_big_blind)
    order = _clockwise_after(button, seats)
    if len(seats) == 2:
        if button not in seats:
            raise ValueError("heads-up the button is dealt in (it posts the small blind)")
        other = order[0]
        reached = _clockwise_after(other, everyone)[0]
        if reached not in seats:
            return other, reached
        return button, other
    small = order[0]
    return small, _clockwise_after(small, everyone)[0]


def big_blind_passed(seat: int, previous_big_blind: int, big_blind: int) -> bool:
    """Did the big blind, moving from `previous_big_blind` to `big_blind` this hand, reach or
    pass `seat`? A player sitting out there has missed it and posts it on return (RULES.md 4)."""
    if previous_big_blind < big_blind:
        return previous_big_blind < seat <= big_blind
    return seat > previous_big_blind or seat <= big_blind


def enough_players(
    ready: int, *, min_players: int = 2, three_to_start: bool = False, last_hand_players: int = 0
) -> bool:
    """Whether a hand can start with `ready` players seated and not sitting out (RULES.md 4).

    The default needs `min_players` (2). A table using the 002 rule needs three to start, and
    two may go on when the last hand had three or more.
    """
    if three_to_start:
        return ready >= 3 or (ready >= 2 and last_hand_players >= 3)
    return ready >= max(min_players, 2)
