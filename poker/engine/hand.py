"""The hand state machine: blinds, dealing, betting, side pots, showdown and rake.

One `Hand` is one deal of Omaha High or Omaha Hi/Lo 8 or Better, fixed limit or pot limit,
following RULES.md sections 1, 3, 4, 7 and 8 (decisions beyond them: docs/rules.md).
It is pure: the deck order comes in from outside, there is no clock and no randomness,
and every change is appended to `hand.events` as a plain JSON-able dict.

Players are indexed clockwise from the first seat left of the button (the button, when dealt
in, is last): that is the dealing order, the post-flop acting order and the odd-chip order.
Amounts are integer cents. Bets and raises are "to" amounts: the player's total this street.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, TypeGuard

from poker.engine.cards import CARD_INDEX
from poker.engine.evaluate import omaha_high, omaha_high_low8
from poker.engine.events import (
    Blind,
    CardsShown,
    HandEvent,
    HandStarted,
    PotAwarded,
    PotResult,
    PotRun,
    Street,
    StreetDealt,
)
from poker.engine.pots import build_pots, split_pot, take_rake
from poker.engine.rake import RakeSchedule

__all__ = [
    "ACTIONS",
    "GAMES",
    "STREETS",
    "STRUCTURES",
    "Hand",
    "IllegalAction",
    "InvalidSetup",
    "LegalActions",
    "ReplayMismatch",
    "limit_small_blind",
]

GAMES = ("omaha", "omaha8")
STRUCTURES = ("limit", "pot-limit")
STREETS = ("preflop", "flop", "turn", "river")
ACTIONS = ("fold", "check", "call", "bet", "raise", "all_in")
MAX_PLAYERS = {"limit": 10, "pot-limit": 6}
LIMIT_BETS_PER_ROUND = 4  # one bet and three raises; preflop the big blind is the bet
HOLE_CARDS = 4
_BOARD_CARDS = (3, 1, 1)  # flop, turn, river
_DEALT_STREETS: tuple[Street, Street, Street] = ("flop", "turn", "river")


class IllegalAction(Exception):
    """An action the rules do not allow now; the hand is left exactly as it was."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class InvalidSetup(ValueError):
    """A hand that cannot be dealt as described (bad seats, blinds, stakes or deck)."""

    def __init__(self, code: str, reason: str) -> None:
        super().__init__(reason)
        self.code = code
        self.reason = reason


class ReplayMismatch(Exception):
    """Replaying the events did not rebuild the same hand."""


def limit_small_blind(small_bet: int) -> int:
    """The default fixed-limit small blind: half the small bet rounded down to a whole dollar.

    RULES.md 3 ($5/$10 gives $2). Below $2/$4 that would be no small blind at all, so there
    the default is half the small bet rounded down to the cent (docs/rules.md).
    """
    half = small_bet // 2
    whole_dollars = half // 100 * 100
    return whole_dollars or half


class LegalActions:
    """What the player to act may do now; amounts are street totals ("to")."""

    __slots__ = (
        "all_in",
        "call",
        "can_check",
        "can_fold",
        "max_to",
        "min_to",
        "raise_kind",
        "seat",
    )

    def __init__(
        self,
        seat: int,
        can_fold: bool,
        can_check: bool,
        call: int,
        raise_kind: str | None,
        min_to: int,
        max_to: int,
        all_in: int,
    ) -> None:
        self.seat = seat
        self.can_fold = can_fold
        self.can_check = can_check
        self.call = call  # chips to add to call, 0 when there is nothing to call
        self.raise_kind = raise_kind  # "bet", "raise" or None
        self.min_to = min_to
        self.max_to = max_to
        self.all_in = all_in  # the street total when all-in is allowed, else 0

    def to_dict(self) -> dict[str, Any]:
        span = {"min": self.min_to, "max": self.max_to}
        return {
            "seat": self.seat,
            "fold": self.can_fold,
            "check": self.can_check,
            "call": self.call or None,
            "bet": span if self.raise_kind == "bet" else None,
            "raise": span if self.raise_kind == "raise" else None,
            "all_in": self.all_in or None,
        }

    def __repr__(self) -> str:
        return f"LegalActions({self.to_dict()!r})"


def _hand_value(value: Any) -> dict[str, Any] | None:
    if value is None:
        return None
    return {"name": value.name, "category": value.category, "cards": list(value.cards)}


def _totals(splits: Iterable[list[tuple[int, int]]]) -> list[tuple[int, int]]:
    """Each player's shares over both runs, summed, in seat order (index order)."""
    summed: dict[int, int] = {}
    for shares in splits:
        for i, share in shares:
            summed[i] = summed.get(i, 0) + share
    return sorted(summed.items())


def _is_whole(value: object) -> TypeGuard[int]:
    return type(value) is int


def _check_deck(deck: Any) -> None:
    if not isinstance(deck, list | tuple) or len(deck) != 52:
        raise InvalidSetup("bad_deck", "the deck must be a list of all 52 cards")
    for card in deck:
        if type(card) is not str or card not in CARD_INDEX:
            raise InvalidSetup("bad_deck", f"{card!r} is not a card (rank then suit, as 'As')")
    if len(set(deck)) != 52:
        raise InvalidSetup("bad_deck", "the deck has a duplicate card")


def _checked_blinds(
    *,
    structure: str,
    small_blind: int | None,
    big_blind: int | None,
    small_bet: int | None,
    big_bet: int | None,
) -> tuple[int, int]:
    """The (small blind, big blind) of these stakes. Fixed limit's big blind is its small bet
    and its small blind defaults to `limit_small_blind`; pot limit has no bets to name."""
    if structure == "limit":
        if not _is_whole(small_bet) or small_bet <= 0:
            raise InvalidSetup("bad_stakes", "fixed limit needs a positive small_bet")
        if not _is_whole(big_bet) or big_bet <= 0:
            raise InvalidSetup("bad_stakes", "fixed limit needs a positive big_bet")
        if big_blind is None:
            big_blind = small_bet
        if big_blind != small_bet:
            raise InvalidSetup("bad_stakes", "in fixed limit the big blind is the small bet")
        if small_blind is None:
            small_blind = limit_small_blind(small_bet)
    elif small_bet is not None or big_bet is not None:
        raise InvalidSetup("bad_stakes", "pot limit has no small bet or big bet")
    if not _is_whole(big_blind) or big_blind <= 0:
        raise InvalidSetup("bad_stakes", "the big blind must be a positive number of cents")
    if not _is_whole(small_blind) or not 0 <= small_blind <= big_blind:
        raise InvalidSetup(
            "bad_stakes", "the small blind must be cents between 0 and the big blind"
        )
    return small_blind, big_blind


def _checked_stacks(
    seats: Mapping[int, int] | Iterable[Sequence[int]], structure: str
) -> dict[int, int]:
    """{seat number: stack} of the players dealt in, each a seat 1-10 with a positive stack,
    as many as the structure deals."""
    pairs: list[object] = list(seats.items()) if isinstance(seats, Mapping) else list(seats)
    stacks_by_seat: dict[int, int] = {}
    for pair in pairs:
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            raise InvalidSetup("bad_seats", f"a seat is (seat number, stack), not {pair!r}")
        number, stack = pair
        if not _is_whole(number) or not 1 <= number <= 10:
            raise InvalidSetup("bad_seats", f"seat numbers run 1-10, not {number!r}")
        if number in stacks_by_seat:
            raise InvalidSetup("bad_seats", f"seat {number} is listed twice")
        if not _is_whole(stack) or stack <= 0:
            raise InvalidSetup(
                "bad_seats", f"seat {number} needs a positive stack in cents, not {stack!r}"
            )
        stacks_by_seat[number] = stack
    if not 2 <= len(stacks_by_seat) <= MAX_PLAYERS[structure]:
        raise InvalidSetup(
            "bad_seats",
            f"{structure} deals 2-{MAX_PLAYERS[structure]} players, not {len(stacks_by_seat)}",
        )
    return stacks_by_seat


def _checked_blind_seats(
    *,
    dealt: Mapping[int, int],
    button: int,
    big_blind_seat: int,
    small_blind_seat: int | None,
    small_blind: int,
    extra_big_blind_seats: Iterable[int],
) -> list[int]:
    """The extra big blind seats, once every blind is checked to fall on a different seat
    dealt in (and heads-up, on the seats the heads-up rule names)."""
    if big_blind_seat not in dealt or not _is_whole(big_blind_seat):
        raise InvalidSetup("bad_blinds", f"the big blind seat {big_blind_seat!r} is not dealt in")
    if small_blind_seat is not None:
        if small_blind_seat not in dealt or not _is_whole(small_blind_seat):
            raise InvalidSetup(
                "bad_blinds", f"the small blind seat {small_blind_seat!r} is not dealt in"
            )
        if small_blind == 0:
            raise InvalidSetup("bad_blinds", "a small blind seat is set but the blind is 0")
    extras = list(extra_big_blind_seats)
    for seat in extras:
        if not _is_whole(seat) or seat not in dealt:
            raise InvalidSetup("bad_blinds", f"extra big blind seat {seat!r} is not dealt in")
    blind_seats = [big_blind_seat, *extras]
    if small_blind_seat is not None:
        blind_seats.append(small_blind_seat)
    if len(set(blind_seats)) != len(blind_seats):
        raise InvalidSetup("bad_blinds", "a seat may post only one blind")
    if len(dealt) == 2:
        _check_heads_up_blinds(dealt, button, big_blind_seat, small_blind_seat)
    return extras


def _check_heads_up_blinds(
    dealt: Mapping[int, int], button: int, big_blind_seat: int, small_blind_seat: int | None
) -> None:
    """Heads-up the button is dealt in and posts the small blind; the other player the big."""
    if button not in dealt or button == big_blind_seat:
        raise InvalidSetup(
            "bad_blinds", "heads-up the button is dealt in and posts the small blind"
        )
    if small_blind_seat is not None and small_blind_seat != button:
        raise InvalidSetup("bad_blinds", "heads-up the button posts the small blind")


def _checked_raise_to(legal: LegalActions, action: str, amount: object) -> int:
    """The street total a bet or raise goes to, once the rules allow it here."""
    if not _is_whole(amount):
        raise IllegalAction(
            "bad_amount", f"{action} needs a whole number of cents to bet to, not {amount!r}"
        )
    if legal.raise_kind is None:
        raise IllegalAction("cannot_raise", "no bet or raise is open to you now")
    if action != legal.raise_kind:
        raise IllegalAction(
            "wrong_action",
            "there is a bet to raise: use raise"
            if legal.raise_kind == "raise"
            else "there is no bet yet: use bet",
        )
    if amount < legal.min_to:
        raise IllegalAction("amount_too_small", f"the least you may {action} to is {legal.min_to}")
    if amount > legal.max_to:
        raise IllegalAction("amount_too_large", f"the most you may {action} to is {legal.max_to}")
    return amount


def _is_bet_or_raise(action: str) -> TypeGuard[Literal["bet", "raise"]]:
    return action == "bet" or action == "raise"


def _checked_plain_action(
    legal: LegalActions, action: str, amount: object, bet: int
) -> tuple[str, int | None]:
    """A fold, check, call or all-in the rules allow here, as (action, amount): all-in is
    read as the call, bet or raise it amounts to for a player who has `bet` in this street."""
    if amount is not None:
        raise IllegalAction("unexpected_amount", f"{action} takes no amount")
    if action == "check" and not legal.can_check:
        raise IllegalAction("cannot_check", f"there is {legal.call} to call")
    if action == "call" and not legal.call:
        raise IllegalAction("cannot_call", "there is nothing to call: check instead")
    if action != "all_in":
        return action, None
    if not legal.all_in:
        raise IllegalAction("cannot_all_in", "going all-in is not a legal bet here")
    if legal.call and legal.all_in == bet + legal.call:
        return "call", None
    return legal.raise_kind or "raise", legal.all_in


class Hand:
    """One hand of Omaha. Build it with `Hand.start(...)`, then `act()` until `result` is set."""

    __slots__ = (  # noqa: RUF023 (grouped by meaning, not sorted)
        # what the hand was dealt from (the replay inputs)
        "game",
        "structure",
        "small_blind",
        "big_blind",
        "small_bet",
        "big_bet",
        "ante",
        "button",
        "seats",
        "starting_stacks",
        "small_blind_seat",
        "big_blind_seat",
        "extra_big_blind_seats",
        "deck",
        "rake_schedule",
        "run_it_twice",
        # where the hand stands
        "stacks",
        "bets",
        "committed",
        "folded",
        "hole_cards",
        "board",
        "burns",
        "next_card",
        "street",
        "actor",
        "current_bet",
        "min_raise",
        "bets_this_round",
        "acted",
        "short_all_in_total",
        "last_aggressor",
        "must_show",
        "deciding_runs",
        "runs_agreed",
        "runs",
        "second_board",
        "second_burns",
        "events",
        "result",
        # derived, never serialised
        "_rake",
        "_legal",
        "_hi_lo",
        "_limit",
    )
    game: str
    structure: str
    small_blind: int
    big_blind: int
    small_bet: int | None  # fixed limit only
    big_bet: int | None
    ante: int  # each player's ante, posted before the blinds (0: none, as at cash tables)
    button: int
    seats: list[int]
    starting_stacks: list[int]
    small_blind_seat: int | None
    big_blind_seat: int
    extra_big_blind_seats: list[int]
    deck: list[str] | None  # None: read from a snapshot, it cannot play on
    rake_schedule: dict[str, Any] | None
    run_it_twice: bool  # the table offers running the board twice (pot limit only)
    stacks: list[int]
    bets: list[int]
    committed: list[int]
    folded: list[bool]
    hole_cards: list[list[str]]
    board: list[str]
    burns: list[str]
    next_card: int
    street: int
    actor: int | None
    current_bet: int
    min_raise: int
    bets_this_round: int
    acted: list[bool]
    short_all_in_total: int
    last_aggressor: int | None
    must_show: list[bool]
    deciding_runs: bool  # stopped before a runout for the players to choose 1 or 2 runs
    runs_agreed: list[int]  # while deciding: the seats that agreed so far (a no ends it)
    runs: int  # 2 once the players agreed to run the board twice, else 1
    second_board: list[str]  # the second run's whole board (shared cards included)
    second_burns: list[str]
    events: list[HandEvent]
    result: dict[str, Any] | None
    _rake: RakeSchedule | None
    _legal: LegalActions | None
    _hi_lo: bool
    _limit: bool

    # ------------------------------------------------------------------ building a hand

    @classmethod
    def start(
        cls,
        *,
        game: str,
        structure: str,
        seats: Mapping[int, int] | Iterable[Sequence[int]],
        button: int,
        big_blind_seat: int,
        deck: Sequence[str],
        small_blind_seat: int | None = None,
        extra_big_blind_seats: Iterable[int] = (),
        small_blind: int | None = None,
        big_blind: int | None = None,
        small_bet: int | None = None,
        big_bet: int | None = None,
        rake: RakeSchedule | dict[str, Any] | None = None,
        run_it_twice: bool = False,
        ante: int = 0,
    ) -> Hand:
        """Post the blinds and deal; the hand then waits for `to_act` (or is already over).

        `seats` maps seat number (1-10) to stack for every player dealt in; clockwise is the
        order of seat numbers. Fixed limit takes `small_bet` and `big_bet` (the big blind is
        the small bet; the small blind defaults to `limit_small_blind`); pot limit takes
        `small_blind` and `big_blind`. `small_blind_seat` is None when nobody posts one;
        `extra_big_blind_seats` are new or returning players posting a live big blind.
        `run_it_twice` (pot limit only) stops the hand before a runout for `answer_runs`.
        `ante` (a Sit & Go's level) is posted by every player dealt in before the blinds: dead
        chips in the pot, not part of anyone's bet (docs/rules.md "Antes").
        """
        hand = cls.__new__(cls)
        hand._set_up(
            game=game,
            structure=structure,
            seats=seats,
            button=button,
            big_blind_seat=big_blind_seat,
            deck=deck,
            small_blind_seat=small_blind_seat,
            extra_big_blind_seats=extra_big_blind_seats,
            small_blind=small_blind,
            big_blind=big_blind,
            small_bet=small_bet,
            big_bet=big_bet,
            rake=rake,
            run_it_twice=run_it_twice,
            ante=ante,
        )
        hand._begin()
        return hand

    def _set_up(
        self,
        *,
        game: str,
        structure: str,
        seats: Mapping[int, int] | Iterable[Sequence[int]],
        button: int,
        big_blind_seat: int,
        deck: Sequence[str] | None,
        small_blind_seat: int | None,
        extra_big_blind_seats: Iterable[int],
        small_blind: int | None,
        big_blind: int | None,
        small_bet: int | None,
        big_bet: int | None,
        rake: RakeSchedule | dict[str, Any] | None,
        run_it_twice: bool = False,
        ante: int = 0,
        sealed: bool = False,
    ) -> None:
        """Check every input (InvalidSetup names the first one wrong) and keep them; no chip
        moves yet. A `sealed` hand, read back from a snapshot, may come without its deck."""
        if game not in GAMES:
            raise InvalidSetup("bad_game", f"game must be one of {GAMES}, not {game!r}")
        if structure not in STRUCTURES:
            raise InvalidSetup(
                "bad_structure", f"structure must be one of {STRUCTURES}, not {structure!r}"
            )
        small_blind, big_blind = _checked_blinds(
            structure=structure,
            small_blind=small_blind,
            big_blind=big_blind,
            small_bet=small_bet,
            big_bet=big_bet,
        )
        if not _is_whole(ante) or ante < 0:
            raise InvalidSetup("bad_stakes", "the ante is a whole number of cents, 0 or more")
        stacks_by_seat = _checked_stacks(seats, structure)
        if not _is_whole(button) or not 1 <= button <= 10:
            raise InvalidSetup("bad_button", f"the button is a seat number 1-10, not {button!r}")
        numbers = sorted(stacks_by_seat)
        first = next((k for k, number in enumerate(numbers) if number > button), 0)
        order = numbers[first:] + numbers[:first]
        extras = _checked_blind_seats(
            dealt=stacks_by_seat,
            button=button,
            big_blind_seat=big_blind_seat,
            small_blind_seat=small_blind_seat,
            small_blind=small_blind,
            extra_big_blind_seats=extra_big_blind_seats,
        )
        if not (sealed and deck is None):
            _check_deck(deck)
        if type(run_it_twice) is not bool or (run_it_twice and structure != "pot-limit"):
            raise InvalidSetup(
                "bad_run_it_twice", "run_it_twice is true or false, and only for pot limit"
            )
        try:
            schedule = RakeSchedule.from_data(rake)
        except ValueError as error:
            raise InvalidSetup("bad_rake", str(error)) from error

        self.game = game
        self.structure = structure
        self.small_blind = small_blind
        self.big_blind = big_blind
        self.small_bet = small_bet
        self.big_bet = big_bet
        self.ante = ante
        self.button = button
        self.seats = order
        self.starting_stacks = [stacks_by_seat[seat] for seat in order]
        self.small_blind_seat = small_blind_seat
        self.big_blind_seat = big_blind_seat
        self.extra_big_blind_seats = sorted(extras, key=order.index)
        self.deck = None if deck is None else list(deck)
        self.rake_schedule = schedule.to_data() if schedule is not None else None
        self._rake = schedule
        self.run_it_twice = run_it_twice
        self._hi_lo = game == "omaha8"
        self._limit = structure == "limit"
        self._legal = None

    def _begin(self) -> None:
        n = len(self.seats)
        self.stacks = list(self.starting_stacks)
        self.bets = [0] * n
        self.committed = [0] * n
        self.folded = [False] * n
        self.hole_cards = [[] for _ in range(n)]
        self.board = []
        self.burns = []
        self.next_card = 0
        self.street = 0
        self.actor = None
        self.must_show = [False] * n
        self.deciding_runs = False
        self.runs_agreed = []
        self.runs = 1
        self.second_board = []
        self.second_burns = []
        self.result = None
        started: HandStarted = {
            "type": "hand_started",
            "game": self.game,
            "structure": self.structure,
            "button": self.button,
            "seats": [[seat, stack] for seat, stack in zip(self.seats, self.stacks, strict=True)],
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
            "small_bet": self.small_bet,
            "big_bet": self.big_bet,
        }
        self.events = [started]
        if self.ante:  # only then, so that every other hand's events are as they were
            started["ante"] = self.ante
            for i in range(n):
                self._post_ante(i)
        seat_index = {seat: i for i, seat in enumerate(self.seats)}
        if self.small_blind_seat is not None:
            self._post_blind(seat_index[self.small_blind_seat], self.small_blind, "small")
        big_blind_index = seat_index[self.big_blind_seat]
        self._post_blind(big_blind_index, self.big_blind, "big")
        for seat in self.extra_big_blind_seats:
            self._post_blind(seat_index[seat], self.big_blind, "extra big")

        hole_cards, deck, position = self.hole_cards, self._deck_to_deal(), 0
        for _ in range(HOLE_CARDS):
            for cards in hole_cards:
                cards.append(deck[position])
                position += 1
        self.next_card = position
        self.events.append(
            {
                "type": "hole_cards_dealt",
                "hole_cards": [
                    [seat, list(cards)] for seat, cards in zip(self.seats, hole_cards, strict=True)
                ],
            }
        )
        # Preflop the big blind is the bet to call (the full blind, even when its poster is
        # short), the minimum raise is a big blind, and in fixed limit it counts as the bet.
        self._open_round(current_bet=self.big_blind, bets_this_round=1)
        self.actor = self._next_actor(big_blind_index)
        if self.actor is None:
            self._end_round()

    def _post_ante(self, i: int) -> None:
        """Antes come first, before the blinds (TDA practice): dead chips, in the pot but not
        in the player's bet; a player with less posts all they have and is all-in, eligible
        only for what the others put in up to their ante (the pots are built from every
        player's chips committed)."""
        paid = min(self.ante, self.stacks[i])
        self.stacks[i] -= paid
        self.committed[i] += paid
        self.events.append(
            {
                "type": "ante_posted",
                "seat": self.seats[i],
                "amount": paid,
                "all_in": self.stacks[i] == 0,
            }
        )

    def _post_blind(self, i: int, amount: int, blind: Blind) -> None:
        if not self.stacks[i]:
            return  # all-in on the ante: no chip is left for the blind, none is posted
        paid = min(amount, self.stacks[i])
        self.stacks[i] -= paid
        self.bets[i] += paid
        self.committed[i] += paid
        self.events.append(
            {
                "type": "blind_posted",
                "seat": self.seats[i],
                "blind": blind,
                "amount": paid,
                "all_in": self.stacks[i] == 0,
            }
        )

    def _open_round(self, *, current_bet: int, bets_this_round: int) -> None:
        self.current_bet = current_bet
        self.min_raise = self.big_blind
        self.bets_this_round = bets_this_round
        self.acted = [False] * len(self.seats)
        self.short_all_in_total = 0
        self.last_aggressor = None

    # ------------------------------------------------------------------ reading the hand

    @property
    def is_over(self) -> bool:
        return self.result is not None

    @property
    def to_act(self) -> int | None:
        """The seat number whose turn it is, or None (the hand is over)."""
        return None if self.actor is None else self.seats[self.actor]

    @property
    def street_name(self) -> str:
        return STREETS[self.street]

    @property
    def pot(self) -> int:
        """Every chip in the middle, this street's bets included."""
        return sum(self.committed)

    @property
    def flop_dealt(self) -> bool:
        return len(self.board) >= 3

    @property
    def bet_unit(self) -> int:
        """Fixed limit: the small bet preflop and on the flop, the big bet on turn and river."""
        unit = self.small_bet if self.street < 2 else self.big_bet
        if unit is None:
            raise ValueError("only fixed limit bets in units")
        return unit

    def _facing(self, i: int) -> tuple[int, bool]:
        """(chips player i must add to call, whether anyone else could answer a raise).

        The amount to call never exceeds what the other players still in the hand can match,
        so a player is never asked to call chips nobody can win from them.
        """
        bets, stacks, folded = self.bets, self.stacks, self.folded
        current = self.current_bet
        cover = 0
        answer = False
        for j in range(len(bets)):
            if j != i and not folded[j]:
                reach = bets[j] + stacks[j]
                if reach > cover:
                    cover = reach
                if reach > current:
                    answer = True
        owed = (current if current < cover else cover) - bets[i]
        if owed <= 0:
            return 0, answer
        return (owed if owed < stacks[i] else stacks[i]), answer

    def _needs_to_act(self, i: int) -> bool:
        if self.folded[i] or not self.stacks[i]:
            return False
        to_call, answer = self._facing(i)
        return to_call > 0 or (answer and not self.acted[i])

    def _next_actor(self, after: int) -> int | None:
        n = len(self.seats)
        for step in range(1, n + 1):
            i = (after + step) % n
            if self._needs_to_act(i):
                return i
        return None

    def legal_actions(self) -> LegalActions | None:
        """The actions open to the player to act, or None when nobody is to act."""
        if self._legal is not None or self.actor is None:
            return self._legal
        i = self.actor
        to_call, answer = self._facing(i)
        stack, bet = self.stacks[i], self.bets[i]
        all_in_to = bet + stack
        current = self.current_bet
        # A raise needs chips beyond the call, someone to answer it, and betting still open to
        # this player (closed for those who acted since the last full raise).
        can_raise = answer and stack > to_call and not self.acted[i]
        min_to = max_to = 0
        if can_raise and self._limit:
            if self.bets_this_round >= LIMIT_BETS_PER_ROUND:
                can_raise = False
            else:
                target = current + self.bet_unit
                min_to = max_to = target if target < all_in_to else all_in_to
        elif can_raise:
            min_to = current + self.min_raise
            max_to = current + sum(self.committed) + (current - bet)
            if min_to > all_in_to:
                min_to = all_in_to
            if max_to > all_in_to:
                max_to = all_in_to
        all_in = all_in_to if stack <= to_call or (can_raise and max_to == all_in_to) else 0
        self._legal = LegalActions(
            seat=self.seats[i],
            can_fold=True,  # at any point, even with a free check (000-002; docs/rules.md)
            can_check=to_call == 0,
            call=to_call,
            raise_kind=("bet" if current == 0 else "raise") if can_raise else None,
            min_to=min_to,
            max_to=max_to,
            all_in=all_in,
        )
        return self._legal

    def default_action(self) -> str:
        """What a timeout does for the player to act: check if possible, else fold (RULES 6)."""
        legal = self.legal_actions()
        if legal is None:
            raise IllegalAction(
                "hand_over" if self.is_over else "nobody_to_act", "nobody is to act"
            )
        return "check" if legal.can_check else "fold"

    # ------------------------------------------------------------------ acting

    def show(self, seat: int) -> list[HandEvent]:
        """After the hand: a player dealt in whose cards nobody saw (folded or mucked) chooses
        to show them. Changes no pot; the showdown entry says it was by choice."""
        if self.result is None:
            raise IllegalAction("hand_running", "cards are shown by choice once the hand is over")
        if type(seat) is not int or seat not in self.seats:
            raise IllegalAction("not_in_hand", f"seat {seat!r} was not dealt in")
        if any(e["type"] == "cards_shown" and e["seat"] == seat for e in self.events):
            raise IllegalAction("already_shown", "these cards are face up already")
        cards = list(self.hole_cards[self.seats.index(seat)])
        event: CardsShown = {"type": "cards_shown", "seat": seat, "cards": cards, "voluntary": True}
        self.events.append(event)
        entries = self.result["showdown"]
        entry = next((e for e in entries if e["seat"] == seat), None)
        if entry is None:  # folded before the showdown
            entry = {"seat": seat, "must_show": False, "folded": True}
            entries.append(entry)
        entry.update(shown=True, cards=cards, voluntary=True)
        return [event]

    def act(self, seat: int, action: str, amount: int | None = None) -> list[HandEvent]:
        """Apply one player action and return the events it caused.

        `amount` is the street total for bet and raise, and must be left out otherwise.
        Anything illegal raises IllegalAction before the hand is touched.
        """
        if self.result is not None:
            raise IllegalAction("hand_over", "the hand is over")
        if self.deciding_runs:
            raise IllegalAction(
                "deciding_runs", "the players still in are choosing how many times to run"
            )
        self._deck_to_deal()
        if type(action) is not str or action not in ACTIONS:
            raise IllegalAction(
                "unknown_action", f"the action must be one of {', '.join(ACTIONS)}, not {action!r}"
            )
        legal = self.legal_actions()
        assert legal is not None
        if type(seat) is not int or seat != legal.seat:
            raise IllegalAction("not_your_turn", f"it is seat {legal.seat}'s turn, not {seat!r}")
        i = self.actor
        assert i is not None
        if action == "bet" or action == "raise":
            amount = _checked_raise_to(legal, action, amount)
        else:
            action, amount = _checked_plain_action(legal, action, amount, self.bets[i])

        first_new = len(self.events)
        self._legal = None
        self._apply(i, legal, action, amount)
        if self.result is None:
            actor = self._next_actor(i)
            if actor is None:
                self._end_round()
            else:
                self.actor = actor
        return self.events[first_new:]

    def _apply(self, i: int, legal: LegalActions, action: str, amount: int | None) -> None:
        """Move the chips of a checked action (all-in already read as a call, bet or raise)."""
        if action == "fold":
            self._fold(i)
        elif action == "check":
            self.acted[i] = True
            self.events.append({"type": "action", "seat": legal.seat, "action": "check"})
        elif action == "call":
            self._call(i, legal.call)
        else:
            assert amount is not None and _is_bet_or_raise(action)
            self._bet_to(i, action, amount)

    def _deck_to_deal(self) -> list[str]:
        """The deck, which a hand read from a snapshot without it does not have."""
        if self.deck is None:
            raise IllegalAction(
                "no_deck", "this hand was read from a snapshot without its deck: it cannot go on"
            )
        return self.deck

    def _fold(self, i: int) -> None:
        self.folded[i] = True
        self.acted[i] = True
        self.events.append({"type": "action", "seat": self.seats[i], "action": "fold"})
        if self.folded.count(False) == 1:
            self._end_round()

    def _put_in(self, i: int, to: int) -> int:
        added = to - self.bets[i]
        self.stacks[i] -= added
        self.bets[i] = to
        self.committed[i] += added
        return added

    def _call(self, i: int, to_call: int) -> None:
        to = self.bets[i] + to_call
        added = self._put_in(i, to)
        self.acted[i] = True
        self.short_all_in_total = 0  # a call ends any run of short all-ins
        self.events.append(
            {
                "type": "action",
                "seat": self.seats[i],
                "action": "call",
                "to": to,
                "added": added,
                "all_in": self.stacks[i] == 0,
            }
        )

    def _bet_to(self, i: int, action: Literal["bet", "raise"], to: int) -> None:
        increment = to - self.current_bet
        added = self._put_in(i, to)
        # A full raise reopens the betting for everyone; a short all-in does not, unless a run
        # of them with no call in between adds up to one. "Full" is a whole minimum raise in
        # pot limit and at least half a bet in fixed limit (the RULES.md 3 Decision).
        full = 2 * increment >= self.bet_unit if self._limit else increment >= self.min_raise
        if not full:
            self.short_all_in_total += increment
            if self._limit:
                full = 2 * self.short_all_in_total >= self.bet_unit
            else:
                full = self.short_all_in_total >= self.min_raise
        if full:
            self.acted = [False] * len(self.seats)
            self.short_all_in_total = 0
            self.bets_this_round += 1
            if increment > self.min_raise:
                self.min_raise = increment
        self.acted[i] = True
        self.current_bet = to
        self.last_aggressor = i
        self.events.append(
            {
                "type": "action",
                "seat": self.seats[i],
                "action": action,
                "to": to,
                "added": added,
                "all_in": self.stacks[i] == 0,
            }
        )

    # ------------------------------------------------------------------ streets and the end

    def _return_uncalled_bet(self) -> None:
        bets = self.bets
        top = max(bets)
        if not top or bets.count(top) > 1:
            return
        i = bets.index(top)
        second = max(bet for j, bet in enumerate(bets) if j != i)
        excess = top - second
        bets[i] -= excess
        self.committed[i] -= excess
        self.stacks[i] += excess
        self.events.append(
            {"type": "uncalled_bet_returned", "seat": self.seats[i], "amount": excess}
        )

    def _end_round(self) -> None:
        """Close the betting round; deal on (running the board out if nobody can bet) or end."""
        self.actor = None
        self._legal = None
        self._return_uncalled_bet()
        n = len(self.seats)
        while True:
            if self.folded.count(False) == 1:
                self._finish()
                return
            if self.street == 3:
                self._finish()
                return
            if self.run_it_twice and self._nobody_can_bet():
                self.deciding_runs = True  # the room asks: answer_runs, or run_once
                return
            self._deal_street()
            actor = self._next_actor(n - 1)
            if actor is not None:
                self.actor = actor
                return

    def _nobody_can_bet(self) -> bool:
        """At most one player still in has chips behind: the rest of the board is run out."""
        folded, stacks = self.folded, self.stacks
        return sum(1 for i in range(len(stacks)) if not folded[i] and stacks[i]) < 2

    @property
    def run_it_twice_seats(self) -> list[int]:
        """The seats asked whether to run the board twice: every player still in, while the
        hand waits for their answers (else none)."""
        if not self.deciding_runs:
            return []
        return [seat for i, seat in enumerate(self.seats) if not self.folded[i]]

    def answer_runs(self, seat: int, agree: bool) -> list[HandEvent]:
        """An asked player's answer (docs/rules.md "Run it twice"), logged as `runs_answered`:
        a no deals the rest of the board once at once, the last yes deals it twice (either
        ends the hand); any other yes waits for the rest. Returns the events it caused."""
        if not self.deciding_runs:
            raise IllegalAction("not_deciding_runs", "there is no choice of runs to make now")
        if type(seat) is not int or seat not in self.run_it_twice_seats:
            raise IllegalAction("not_asked", f"seat {seat!r} is not asked to run the board twice")
        if seat in self.runs_agreed:
            raise IllegalAction("already_answered", f"seat {seat} has already answered")
        if type(agree) is not bool:
            raise IllegalAction("bad_answer", f"the answer is true or false, not {agree!r}")
        self._deck_to_deal()
        first_new = len(self.events)
        self.events.append({"type": "runs_answered", "seat": seat, "agree": agree})
        if not agree:
            self._run_out(1)
        else:
            self.runs_agreed.append(seat)
            if len(self.runs_agreed) == len(self.run_it_twice_seats):
                self._run_out(2)
        return self.events[first_new:]

    def run_once(self) -> list[HandEvent]:
        """The answers did not all come: the room's clock ran out, or an asked player cannot
        answer (disconnected, sitting out, leaving). Deals the rest of the board once and
        ends the hand; returns the events it caused."""
        if not self.deciding_runs:
            raise IllegalAction("not_deciding_runs", "there is no choice of runs to make now")
        self._deck_to_deal()
        first_new = len(self.events)
        self._run_out(1)
        return self.events[first_new:]

    def _run_out(self, runs: int) -> None:
        """Log the choice (`runs_chosen`), deal the rest of the board once or twice, finish."""
        deck = self._deck_to_deal()
        self.deciding_runs = False
        self.runs_agreed = []
        self.runs = runs
        self.events.append({"type": "runs_chosen", "runs": runs})
        start = self.street
        shared = list(self.board)
        while self.street < 3:
            self._deal_street()
        if runs == 2:
            self._deal_second_run(deck, start, shared)
        self._finish()

    def _deal_second_run(self, deck: list[str], start: int, shared: list[str]) -> None:
        """The second run: the same streets as the first, from the card after its river,
        a burn before each (docs/rules.md)."""
        board, burns, position = list(shared), [], self.next_card
        for street in range(start + 1, 4):
            burn = deck[position]
            count = _BOARD_CARDS[street - 1]
            cards = deck[position + 1 : position + 1 + count]
            position += 1 + count
            burns.append(burn)
            board.extend(cards)
            self.events.append(
                {
                    "type": "street_dealt",
                    "street": _DEALT_STREETS[street - 1],
                    "burn": burn,
                    "cards": cards,
                    "run": 2,
                }
            )
        self.next_card = position
        self.second_board = board
        self.second_burns = burns

    def _deal_street(self) -> None:
        self.street += 1
        self.bets = [0] * len(self.seats)
        deck, position = self._deck_to_deal(), self.next_card
        burn = deck[position]
        count = _BOARD_CARDS[self.street - 1]
        cards = deck[position + 1 : position + 1 + count]
        self.next_card = position + 1 + count
        self.burns.append(burn)
        self.board.extend(cards)
        self._open_round(current_bet=0, bets_this_round=0)
        if self.street == 3:
            # All-in players show; so does everyone when the board was run out with nobody
            # left to bet (docs/rules.md).
            folded, stacks = self.folded, self.stacks
            can_bet = sum(1 for i in range(len(stacks)) if not folded[i] and stacks[i])
            self.must_show = [
                not folded[i] and (not stacks[i] or can_bet < 2) for i in range(len(stacks))
            ]
        dealt: StreetDealt = {
            "type": "street_dealt",
            "street": _DEALT_STREETS[self.street - 1],
            "burn": burn,
            "cards": cards,
        }
        if self.runs == 2:
            dealt["run"] = 1
        self.events.append(dealt)

    def _showdown_order(self) -> list[int]:
        n = len(self.seats)
        start = self.last_aggressor if self.last_aggressor is not None else 0
        return [(start + k) % n for k in range(n) if not self.folded[(start + k) % n]]

    def _finish(self) -> None:
        """Showdown (if contested), rake, and the award of every pot."""
        n = len(self.seats)
        pots = build_pots(self.committed, self.folded)
        total = sum(amount for amount, _ in pots)
        rake = 0
        if self._rake is not None and self.flop_dealt:
            rake = self._rake.rake(pot=total, players_dealt_in=n, big_blind=self.big_blind)
        rakes = take_rake([amount for amount, _ in pots], rake)
        showdown, high, low, second = self._show_down(pots)
        pot_results = self._award_pots(pots, rakes, high, low, second)
        seats = self.seats
        self.bets = [0] * n
        self.actor = None
        self.events.append(
            {
                "type": "hand_ended",
                "rake": rake,
                "stacks": [[seats[i], self.stacks[i]] for i in range(n)],
            }
        )
        self.result = {
            "pots": pot_results,
            "rake": rake,
            "showdown": showdown,
            "board": list(self.board),
            "flop_dealt": self.flop_dealt,
            "seats": [
                {
                    "seat": seats[i],
                    "starting_stack": self.starting_stacks[i],
                    "final_stack": self.stacks[i],
                    "net": self.stacks[i] - self.starting_stacks[i],
                }
                for i in range(n)
            ],
        }
        if self.runs == 2:
            self.result["runs"] = 2
            self.result["boards"] = [list(self.board), list(self.second_board)]

    def _values(self, i: int, board: list[str]) -> tuple[Any, Any]:
        """Player i's (high, low) hands on `board`; low None in Omaha High or without one."""
        if self._hi_lo:
            return omaha_high_low8(self.hole_cards[i], board)
        return omaha_high(self.hole_cards[i], board), None

    def _show_down(
        self, pots: list[tuple[int, list[int]]]
    ) -> tuple[
        list[dict[str, Any]],
        list[Any],
        list[Any] | None,
        tuple[list[Any], list[Any] | None] | None,
    ]:
        """When more than one player is left: each, in showdown order, shows or mucks (the
        first to show and those who must always show; the rest only a hand that can still win
        or tie a pot). Returns the showdown entries and each player's high and low hands as
        shown (None for a hand nobody saw; no low list in Omaha High), and when the board ran
        twice the same two lists on the second board (everyone still in shows then)."""
        n = len(self.seats)
        seats = self.seats
        high: list[Any] = [None] * n
        low: list[Any] | None = [None] * n if self._hi_lo else None
        showdown: list[dict[str, Any]] = []
        if self.folded.count(False) < 2:
            return showdown, high, low, None
        twice = self.runs == 2
        second_high: list[Any] = [None] * n
        second_low: list[Any] | None = [None] * n if self._hi_lo else None
        order = self._showdown_order()
        self.events.append({"type": "showdown", "order": [seats[i] for i in order]})
        board = self.board
        values_high: dict[int, Any] = {}
        values_low: dict[int, Any] = {}
        for i in order:
            if self._hi_lo:
                values_high[i], values_low[i] = omaha_high_low8(self.hole_cards[i], board)
            else:
                values_high[i] = omaha_high(self.hole_cards[i], board)
        contested = [(amount, eligible) for amount, eligible in pots if len(eligible) > 1]
        for position, i in enumerate(order):
            must_show = position == 0 or self.must_show[i]
            shows = must_show or self._can_win(i, contested, high, low, values_high, values_low)
            entry: dict[str, Any] = {"seat": seats[i], "must_show": must_show, "shown": shows}
            if shows:
                high[i] = values_high[i]
                if low is not None:
                    low[i] = values_low[i]
                entry["cards"] = list(self.hole_cards[i])
                entry["high"] = _hand_value(values_high[i])
                entry["low"] = _hand_value(values_low.get(i))
                shown: CardsShown = {
                    "type": "cards_shown",
                    "seat": seats[i],
                    "cards": list(self.hole_cards[i]),
                    "high": entry["high"]["name"],
                    "low": entry["low"]["name"] if entry["low"] else None,
                }
                if twice:
                    second_high[i], low_two = self._values(i, self.second_board)
                    if second_low is not None:
                        second_low[i] = low_two
                    entry["runs"] = [
                        {"high": entry["high"], "low": entry["low"]},
                        {"high": _hand_value(second_high[i]), "low": _hand_value(low_two)},
                    ]
                    shown["runs"] = [
                        {"high": run["high"]["name"], "low": run["low"] and run["low"]["name"]}
                        for run in entry["runs"]
                    ]
                self.events.append(shown)
            else:
                self.events.append({"type": "cards_mucked", "seat": seats[i]})
            showdown.append(entry)
        return showdown, high, low, (second_high, second_low) if twice else None

    def _award_pots(
        self,
        pots: list[tuple[int, list[int]]],
        rakes: list[int],
        high: list[Any],
        low: list[Any] | None,
        second: tuple[list[Any], list[Any] | None] | None = None,
    ) -> list[PotResult]:
        """Split each pot, less its rake, among the best hands shown (the only player left
        wins it unseen) and put the winnings on the stacks; the pots' results, main pot first.
        With `second` (the hands on the second board) a contested pot is halved between the
        runs first, the odd chip to the first run, each half split on its own board."""
        seats = self.seats
        won = [0] * len(seats)
        pot_results = []
        for k, (amount, eligible) in enumerate(pots):
            net = amount - rakes[k]
            runs: list[PotRun] = []
            if second is not None and len(eligible) > 1:
                halves = (net - net // 2, net // 2)
                splits = [
                    split_pot(halves[0], eligible, high, low),
                    split_pot(halves[1], eligible, *second),
                ]
                runs = [
                    {
                        "amount": half,
                        "high": [{"seat": seats[i], "amount": share} for i, share in run[0]],
                        "low": [{"seat": seats[i], "amount": share} for i, share in run[1]],
                    }
                    for half, run in zip(halves, splits, strict=True)
                ]
                high_shares = _totals(run[0] for run in splits)
                low_shares = _totals(run[1] for run in splits)
            else:
                high_shares, low_shares = split_pot(net, eligible, high, low)
            for i, share in high_shares:
                won[i] += share
            for i, share in low_shares:
                won[i] += share
            pot_result: PotResult = {
                "amount": amount,
                "eligible": [seats[i] for i in eligible],
                "rake": rakes[k],
                "high": [{"seat": seats[i], "amount": share} for i, share in high_shares],
                "low": [{"seat": seats[i], "amount": share} for i, share in low_shares],
            }
            if runs:
                pot_result["runs"] = runs
            pot_results.append(pot_result)
            awarded: PotAwarded = {"type": "pot_awarded", "pot": k, **pot_result}
            self.events.append(awarded)
        for i, winnings in enumerate(won):
            self.stacks[i] += winnings
        return pot_results

    @staticmethod
    def _can_win(
        i: int,
        contested: list[tuple[int, list[int]]],
        high: list[Any],
        low: list[Any] | None,
        values_high: dict[int, Any],
        values_low: dict[int, Any],
    ) -> bool:
        """Could player i still win or tie part of a pot against the hands shown so far?"""
        for _, eligible in contested:
            if i not in eligible:
                continue
            shown_high = [high[j] for j in eligible if high[j] is not None]
            if not shown_high or values_high[i] >= max(shown_high):
                return True
            if low is not None and values_low[i] is not None:
                shown_low = [low[j] for j in eligible if low[j] is not None]
                if not shown_low or values_low[i] >= max(shown_low):
                    return True
        return False

    # ------------------------------------------------------------------ saving and replaying

    @property
    def setup(self) -> dict[str, Any]:
        """The inputs of this hand, as keyword arguments for `Hand.start` (deck included)."""
        setup = self.setup_without_deck
        if self.deck is not None:
            setup["deck"] = list(self.deck)
        return setup

    @property
    def setup_without_deck(self) -> dict[str, Any]:
        """The inputs of this hand but the deck: what a store may keep beside the hand's rows.

        The deck is the one input that is secret while the hand runs (the cards still to
        come), so a store keeps it in one place of its own; `rebuild` takes it back.
        """
        setup: dict[str, Any] = {
            "game": self.game,
            "structure": self.structure,
            "seats": [
                [seat, stack] for seat, stack in zip(self.seats, self.starting_stacks, strict=True)
            ],
            "button": self.button,
            "big_blind_seat": self.big_blind_seat,
            "small_blind_seat": self.small_blind_seat,
            "extra_big_blind_seats": list(self.extra_big_blind_seats),
            "small_blind": self.small_blind,
            "big_blind": self.big_blind,
            "small_bet": self.small_bet,
            "big_bet": self.big_bet,
            "rake": self.rake_schedule,
        }
        if self.run_it_twice:  # only then, so that every other hand's setup is as it was
            setup["run_it_twice"] = True
        if self.ante:  # likewise
            setup["ante"] = self.ante
        return setup

    def to_dict(self) -> dict[str, Any]:
        """The whole state as plain JSON-able data (it holds the deck: never send it out)."""
        return self._state(self.setup)

    def snapshot(self) -> dict[str, Any]:
        """The whole state but the deck, as plain JSON-able data.

        What a store keeps as the hand's current state beside its event log: with the deck
        apart, reading it (to show the hand, to find who acts) never touches the cards to
        come. `from_snapshot(snapshot, deck)` continues the hand; `from_dict(snapshot)` reads
        it but cannot play on (acting needs the deck). It still holds every player's hole
        cards and the burns, so it is no more for sending out than `to_dict()`.
        """
        return self._state(self.setup_without_deck)

    def _state(self, setup: dict[str, Any]) -> dict[str, Any]:
        state = {
            "setup": setup,
            "stacks": list(self.stacks),
            "bets": list(self.bets),
            "committed": list(self.committed),
            "folded": list(self.folded),
            "hole_cards": [list(cards) for cards in self.hole_cards],
            "board": list(self.board),
            "burns": list(self.burns),
            "next_card": self.next_card,
            "street": self.street,
            "actor": self.actor,
            "current_bet": self.current_bet,
            "min_raise": self.min_raise,
            "bets_this_round": self.bets_this_round,
            "acted": list(self.acted),
            "short_all_in_total": self.short_all_in_total,
            "last_aggressor": self.last_aggressor,
            "must_show": list(self.must_show),
            "events": list(self.events),
            "result": self.result,
        }
        if self.run_it_twice:  # only then, so that every other hand's state is as it was
            state["deciding_runs"] = self.deciding_runs
            state["runs_agreed"] = list(self.runs_agreed)
            state["runs"] = self.runs
            state["second_board"] = list(self.second_board)
            state["second_burns"] = list(self.second_burns)
        return state

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Hand:
        """The hand `to_dict()` (or `snapshot()`) saved. From a snapshot, without its deck, the
        hand can be read (who acts, legal actions, views) but `act` refuses it (`no_deck`)."""
        hand = cls.__new__(cls)
        setup = dict(data["setup"])
        setup.setdefault("deck", None)
        hand._set_up(**setup, sealed=True)
        hand.stacks = list(data["stacks"])
        hand.bets = list(data["bets"])
        hand.committed = list(data["committed"])
        hand.folded = list(data["folded"])
        hand.hole_cards = [list(cards) for cards in data["hole_cards"]]
        hand.board = list(data["board"])
        hand.burns = list(data["burns"])
        hand.next_card = data["next_card"]
        hand.street = data["street"]
        hand.actor = data["actor"]
        hand.current_bet = data["current_bet"]
        hand.min_raise = data["min_raise"]
        hand.bets_this_round = data["bets_this_round"]
        hand.acted = list(data["acted"])
        hand.short_all_in_total = data["short_all_in_total"]
        hand.last_aggressor = data["last_aggressor"]
        hand.must_show = list(data["must_show"])
        hand.deciding_runs = data.get("deciding_runs", False)
        hand.runs_agreed = list(data.get("runs_agreed", ()))
        hand.runs = data.get("runs", 1)
        hand.second_board = list(data.get("second_board", ()))
        hand.second_burns = list(data.get("second_burns", ()))
        hand.events = list(data["events"])
        hand.result = data["result"]
        return hand

    @classmethod
    def from_snapshot(cls, snapshot: dict[str, Any], deck: Sequence[str]) -> Hand:
        """The hand a `snapshot()` saved, with its deck back: it plays on as before."""
        _check_deck(deck)
        return cls.from_dict({**snapshot, "setup": {**snapshot["setup"], "deck": list(deck)}})

    def copy(self) -> Hand:
        """An independent hand in the same state: acting on it leaves this one as it is.

        What the hand changes as it plays is copied (its lists, and the lists inside them);
        what is fixed once dealt (the setup, the deck, the rake, each logged event) is shared,
        as nothing changes it in place but `show` after the hand, which this copy's
        `result` does not share. Cheaper than `from_dict(to_dict())`, which checks the setup
        again."""
        other = Hand.__new__(Hand)
        for name in Hand.__slots__:
            setattr(other, name, getattr(self, name))
        for name in ("stacks", "bets", "committed", "folded", "board", "burns", "acted"):
            setattr(other, name, list(getattr(self, name)))
        for name in ("runs_agreed", "second_board", "second_burns"):
            setattr(other, name, list(getattr(self, name)))
        other.must_show = list(self.must_show)
        other.hole_cards = [list(cards) for cards in self.hole_cards]
        other.events = list(self.events)
        other.result = copy.deepcopy(self.result)
        return other

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"))

    @classmethod
    def from_json(cls, text: str) -> Hand:
        return cls.from_dict(json.loads(text))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Hand):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # mutable, so unhashable (object says hashable)

    @classmethod
    def replay(cls, setup: dict[str, Any], events: Iterable[Mapping[str, Any]]) -> Hand:
        """Rebuild a hand from its inputs and its events, checking every event matches."""
        expected = list(events)
        hand = cls.start(**setup)
        for event in expected:
            if event.get("type") == "action":
                action = event["action"]
                amount = event.get("to") if action in ("bet", "raise") else None
                hand.act(event["seat"], action, amount)
            elif event.get("type") == "cards_shown" and event.get("voluntary"):
                hand.show(event["seat"])
            elif event.get("type") == "runs_answered":
                hand.answer_runs(event["seat"], event["agree"])
            elif event.get("type") == "runs_chosen" and hand.deciding_runs:
                hand.run_once()  # no answer decided it: the room's clock, or one who cannot
        if hand.events != expected:
            raise ReplayMismatch("the events do not rebuild this hand from these inputs")
        return hand

    @classmethod
    def rebuild(
        cls, setup: dict[str, Any], deck: Sequence[str], events: Iterable[Mapping[str, Any]]
    ) -> Hand:
        """`replay` from a setup stored without its deck (`setup_without_deck`) and the deck
        kept apart: the hand an event log and its deck describe."""
        return cls.replay({**setup, "deck": list(deck)}, events)
