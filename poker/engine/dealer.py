"""The dealer's jobs around a hand (RULES.md 1 and 4): shuffle, draw for the button, move it,
name the blinds, and say whether a hand can start.

Pure like the rest of the engine: the randomness comes in from outside. The table passes
`secrets.randbelow` (the operating system's CSPRNG, RULES.md 1) to `shuffle_deck`; tests pass
a scripted function. Seats are numbers 1-10 and clockwise is the order of seat numbers,
wrapping (docs/rules.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from poker.engine.cards import CARD_RANK, FULL_DECK, parse_card

__all__ = [
    "BUTTON_DRAW_SUIT_ORDER",
    "DealPlan",
    "DealSeat",
    "big_blind_passed",
    "blind_seats",
    "draw_button",
    "draw_for_button",
    "enough_players",
    "heads_up_button",
    "next_button",
    "plan_deal",
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


def heads_up_button(dealt: Sequence[int], *, big_blind: int, small_blind: int | None) -> int | None:
    """Who takes the button (and posts the small blind) when `dealt`, two players, follow a
    hand of three or more whose blinds were `small_blind` and `big_blind` (RULES.md 4, "Going
    heads-up"): the big blind goes to the player who did not post it last hand, the last
    small blind when both did not; so nobody posts the same blind two hands running. None
    when neither player posted a blind last hand: the button moves as usual."""
    first, second = dealt
    if big_blind in dealt:
        return big_blind
    if small_blind in dealt:
        return second if small_blind == first else first
    return None


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


def draw_button(
    seats: Iterable[int], randbelow: Callable[[int], int]
) -> tuple[int, dict[int, str]]:
    """The draw for the button at a fresh table (RULES.md 4): one card each, in seat order,
    from a shuffle driven by `randbelow`. Returns (the button, {seat: card drawn})."""
    deck = shuffle_deck(randbelow)
    cards = {seat: deck[k] for k, seat in enumerate(sorted(set(seats)))}
    return draw_for_button(cards), cards


@dataclass(frozen=True)
class DealSeat:
    """One occupied seat as the dealer sees it before a hand."""

    number: int
    stack: int
    sitting_out: bool = False
    waiting_big_blind: bool = False  # a new or returning player waiting for the big blind
    posts_big_blind_next: bool = False  # chose to post a big blind now to be dealt in
    leaving: bool = False  # asked to leave, or timed out last hand: not dealt in

    @property
    def ready(self) -> bool:
        return not self.sitting_out and not self.leaving and self.stack > 0


@dataclass(frozen=True)
class DealPlan:
    """Who is dealt in and who posts what for the next hand (RULES.md 4)."""

    dealt: tuple[int, ...]
    button: int
    small_blind: int
    big_blind: int
    extra_big_blinds: tuple[int, ...]  # players posting a big blind to be dealt in at once
    missed_big_blind: tuple[int, ...]  # seats sitting out that the big blind reached or passed
    button_draw: dict[int, str] | None = None  # {seat: card} when a fresh table drew


def plan_deal(
    seats: Sequence[DealSeat],
    *,
    button: int | None,
    big_blind: int | None,
    randbelow: Callable[[int], int],
    min_players: int = 2,
    three_to_start: bool = False,
    last_hand_players: int = 0,
    small_blind: int | None = None,
) -> DealPlan | None:
    """The next hand's plan (RULES.md 4), or None if no hand can start.

    `button`, `big_blind` and `small_blind` are the seats of the last hand (None at a fresh
    table, which draws for the button with `randbelow`); going heads-up after a hand of
    `last_hand_players` three or more, the button follows `heads_up_button`. Ready players
    (not sitting out, not leaving, with chips) are dealt in; those waiting for the big blind
    only when it reaches them, unless fewer than two others are ready (then nobody has anyone
    to wait behind, and everyone ready is dealt in with no extra big blind).
    """
    ready = {seat.number: seat for seat in seats if seat.ready}
    active = [n for n, seat in ready.items() if not seat.waiting_big_blind]
    waiting = [n for n, seat in ready.items() if seat.waiting_big_blind]
    fresh = button is None or len(active) < 2
    if fresh:  # nobody to wait behind: everyone ready is dealt in, nobody posts extra
        active, waiting = sorted(active + waiting), []
    if len(active) < 2:
        return None
    draw = None
    if button is None:
        button, draw = draw_button(active, randbelow)
    else:
        button = next_button(button, active)
    small, big = blind_seats(button, active, waiting)
    dealt = sorted(active + ([big] if big in waiting else []))
    if len(dealt) == 2 and last_hand_players >= 3 and big_blind is not None:
        chosen = heads_up_button(dealt, big_blind=big_blind, small_blind=small_blind)
        if chosen is not None:
            button = small = chosen
            big = next(n for n in dealt if n != chosen)
    if not enough_players(
        len(dealt),
        min_players=min_players,
        three_to_start=three_to_start,
        last_hand_players=last_hand_players,
    ):
        return None
    extras: list[int] = []
    if not fresh:
        extras = [n for n in active if ready[n].posts_big_blind_next and n not in (small, big)]
    missed = []
    if big_blind is not None:
        missed = [
            seat.number
            for seat in seats
            if seat.sitting_out
            and seat.number not in dealt
            and big_blind_passed(seat.number, big_blind, big)
        ]
    return DealPlan(
        dealt=tuple(dealt),
        button=button,
        small_blind=small,
        big_blind=big,
        extra_big_blinds=tuple(extras),
        missed_big_blind=tuple(sorted(missed)),
        button_draw=draw,
    )
