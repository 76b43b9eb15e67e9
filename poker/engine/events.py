"""A hand's events, each defined once as a TypedDict: what the engine appends to `Hand.events`
(poker/engine/hand.py, checked by mypy against these), the hand log stores (`HandEvent.kind`
and `payload`), `update` frames carry (docs/protocol.md "Events") and the replayer and hand
histories read. Every event is a plain JSON object whose keys come in the order declared here
(the engine builds them in that order; the hand log, histories and frames are byte for byte
what they were as untyped dicts). tests/poker/test_protocol_names.py checks the types and their
fields against the engine's code and the protocol's page; the room's own events at a table (a
player sitting down, a timeout, ...) are `poker.services.events.TableEvent`.

No `from __future__ import annotations` here: with it, Python 3.11 counts a NotRequired field as
required in a TypedDict's `__required_keys__`, which the tests read."""

from typing import Any, Literal, NotRequired, TypedDict, get_args, get_type_hints

Street = Literal["flop", "turn", "river"]
Blind = Literal["small", "big", "extra big"]
Action = Literal["fold", "check", "call", "bet", "raise"]


class HandStarted(TypedDict):
    type: Literal["hand_started"]
    game: str
    structure: str
    button: int
    seats: list[list[int]]  # [seat, starting stack] per seat dealt in
    small_blind: int
    big_blind: int
    small_bet: int | None  # fixed limit only
    big_bet: int | None
    ante: NotRequired[int]  # only when the hand has antes (a Sit & Go's level)


class AntePosted(TypedDict):
    """Each player's ante, before the blinds: in the pot, not in the player's bet."""

    type: Literal["ante_posted"]
    seat: int
    amount: int
    all_in: bool


class BlindPosted(TypedDict):
    type: Literal["blind_posted"]
    seat: int
    blind: Blind
    amount: int
    all_in: bool


class HoleCardsDealt(TypedDict):
    type: Literal["hole_cards_dealt"]
    hole_cards: list[list[Any]]  # [seat, cards] per seat dealt in: [int, list[str]]


class ActionTaken(TypedDict):
    """A check or fold has `seat` and `action` only; a call, bet or raise all the rest."""

    type: Literal["action"]
    seat: int
    action: Action
    to: NotRequired[int]
    added: NotRequired[int]
    all_in: NotRequired[bool]


class UncalledBetReturned(TypedDict):
    type: Literal["uncalled_bet_returned"]
    seat: int
    amount: int


class StreetDealt(TypedDict):
    """`run` (1 or 2) only when the board is run twice (docs/rules.md "Run it twice")."""

    type: Literal["street_dealt"]
    street: Street
    burn: str  # never in a frame (poker.engine.views.redact_event)
    cards: list[str]
    run: NotRequired[int]


class RunsAnswered(TypedDict):
    """An asked player's answer to running the board twice; `agree` is in the hand log only,
    never in a frame (poker.engine.views.redact_event)."""

    type: Literal["runs_answered"]
    seat: int
    agree: bool


class RunsChosen(TypedDict):
    """At a table offering run it twice: how many times the rest of the board is dealt."""

    type: Literal["runs_chosen"]
    runs: int


class ShowdownStarted(TypedDict):
    type: Literal["showdown"]
    order: list[int]


class RunHands(TypedDict):
    """A shown hand's names on one board of a board run twice."""

    high: str
    low: str | None


class CardsShown(TypedDict):
    """At the showdown with `high` and `low` (the hands' names; on the first board when it ran
    twice, `runs` naming them on each board); shown by choice after the hand with
    `voluntary: true` instead."""

    type: Literal["cards_shown"]
    seat: int
    cards: list[str]
    voluntary: NotRequired[bool]
    high: NotRequired[str]
    low: NotRequired[str | None]
    runs: NotRequired[list[RunHands]]


class CardsMucked(TypedDict):
    type: Literal["cards_mucked"]
    seat: int


class PotShare(TypedDict):
    seat: int
    amount: int


class PotRun(TypedDict):
    """One run's half of a pot run twice, and how it was split on that run's board."""

    amount: int
    high: list[PotShare]
    low: list[PotShare]


class PotResult(TypedDict):
    """One pot of `Hand.result["pots"]`: its `pot_awarded` event but `type` and `pot`. When the
    board ran twice, `high` and `low` total both runs and `runs` has each run's half."""

    amount: int
    eligible: list[int]
    rake: int
    high: list[PotShare]
    low: list[PotShare]
    runs: NotRequired[list[PotRun]]


class PotAwarded(TypedDict):
    type: Literal["pot_awarded"]
    pot: int  # 0 is the main pot
    amount: int
    eligible: list[int]
    rake: int
    high: list[PotShare]
    low: list[PotShare]
    runs: NotRequired[list[PotRun]]


class HandEnded(TypedDict):
    type: Literal["hand_ended"]
    rake: int
    stacks: list[list[int]]  # [seat, final stack] per seat dealt in


HandEvent = (
    HandStarted
    | AntePosted
    | BlindPosted
    | HoleCardsDealt
    | ActionTaken
    | UncalledBetReturned
    | StreetDealt
    | RunsAnswered
    | RunsChosen
    | ShowdownStarted
    | CardsShown
    | CardsMucked
    | PotAwarded
    | HandEnded
)


def event_type(definition: type) -> str:
    """The `type` a TypedDict of an event declares (its one Literal value)."""
    (name,) = get_args(get_type_hints(definition)["type"])
    return str(name)


def event_fields(definition: type) -> list[str]:
    """An event's fields but `type`, in their declared order."""
    return [name for name in get_type_hints(definition) if name != "type"]


HAND_EVENTS: dict[str, type] = {event_type(each): each for each in get_args(HandEvent)}
HAND_EVENT_TYPES: frozenset[str] = frozenset(HAND_EVENTS)
