"""The room's events at a table, each defined once as a TypedDict, beside the engine's hand
events (`poker.engine.events.HandEvent`): what a service appends to its change with
`TableChange.event(...)` (mypy checks each call's fields against these), what `update` frames
carry (docs/protocol.md "Events", whose table names each event's fields exactly as declared
here: tests/poker/test_protocol_names.py) and what `static/js/table_state.js` reads.

A service builds one by calling its class, type first (a TypedDict's call is a plain dict with
the keys in the order given; `TableChange.event` puts `type` first whatever the order):

    change.event(PlayerSatOut(type="player_sat_out", seat=seat.number, reason="asked"))

`hand_commitment` goes in a frame of its own before the deal (poker/services/dealing.py)."""

from typing import Literal, NotRequired, TypedDict, get_args

from poker.engine.events import event_type
from poker.frames import PlayerJson


class PlayerSat(TypedDict):
    type: Literal["player_sat"]
    seat: int
    player: PlayerJson
    status: str


class ButtonDrawn(TypedDict):
    type: Literal["button_drawn"]
    cards: dict[str, str]  # {"<seat>": card}, the high-card draw at a fresh table
    button: int


class PlayerLeaving(TypedDict):
    type: Literal["player_leaving"]
    seat: int


class PlayerLeft(TypedDict):
    type: Literal["player_left"]
    seat: int
    player: PlayerJson
    # "left", "sit_out_limit", "removed" (by staff), "table_closed", "session_limit"
    reason: str  # (Seat.leave_reason)


class PlayerSatOut(TypedDict):
    type: Literal["player_sat_out"]
    seat: int
    reason: Literal["asked", "timeout", "no_chips", "big_blind", "excluded"]


class PlayerSatIn(TypedDict):
    type: Literal["player_sat_in"]
    seat: int
    status: str


class BigBlindChoice(TypedDict):
    type: Literal["big_blind_choice"]
    seat: int
    status: str
    posts_big_blind: bool


class PlayerToppedUp(TypedDict):
    type: Literal["player_topped_up"]
    seat: int
    amount: int
    auto: NotRequired[Literal[True]]  # the player's auto top-up or re-buy after a hand


class PlayerConnection(TypedDict):
    type: Literal["player_connection"]
    seat: int
    connected: bool


class TimedOut(TypedDict):
    type: Literal["timeout"]
    seat: int
    hand_id: int
    action: str  # the check or fold played for the player


class HandCancelled(TypedDict):
    type: Literal["hand_cancelled"]
    hand_id: int
    reason: str  # a sentence for people
    code: str


class HandCommitment(TypedDict):
    type: Literal["hand_commitment"]
    hand_number: int
    commitment: str
    seats: list[int]
    server_seed_hash: str
    next_server_seed_hash: str


class BreakStarted(TypedDict):
    """A Sit & Go's break: no new hand before `until` (ISO 8601); `level` starts after it."""

    type: Literal["break_started"]
    until: str
    level: int


class BreakEnded(TypedDict):
    type: Literal["break_ended"]
    level: int  # the level now in force


class HandRevealed(TypedDict):
    type: Literal["hand_revealed"]
    hand_id: int
    url: str


TableEvent = (
    PlayerSat
    | ButtonDrawn
    | PlayerLeaving
    | PlayerLeft
    | PlayerSatOut
    | PlayerSatIn
    | BigBlindChoice
    | PlayerToppedUp
    | PlayerConnection
    | TimedOut
    | HandCancelled
    | HandCommitment
    | HandRevealed
    | BreakStarted
    | BreakEnded
)

TABLE_EVENTS: dict[str, type] = {event_type(each): each for each in get_args(TableEvent)}
TABLE_EVENT_TYPES: frozenset[str] = frozenset(TABLE_EVENTS)
