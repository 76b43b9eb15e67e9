"""What the live Showdown table's socket sends (docs/protocol.md "Live Omaha Showdown", "Server
-> client"), each frame defined once as a TypedDict with its `type` as a `Literal`, beside the
commands it reads (showdown/commands.py): `showdown.live_selectors` builds the `state` and
`private` frames and the VIEW, the consumer the `snapshot`; the frames every socket shares
(`error`, `pong`, `heartbeat`, `resync`, `superseded`) are `config.frames`'. `ShowdownFrame` is
every frame of the socket, `SHOWDOWN_FRAMES` the same by type (tests/poker/
test_protocol_names.py and tests/poker/test_frame_types.py hold the page and the sockets to
them). Players are display names, never logins; the deck is in none of them."""

from typing import Any, Literal, NotRequired, TypedDict

from config.frames import (
    ErrorFrame,
    HeartbeatFrame,
    PongFrame,
    ResyncFrame,
    SupersededFrame,
    frames_by_type,
)

# -- VIEW


class LiveTableJson(TypedDict):
    id: int
    name: str
    seats: int
    is_open: bool
    bet_seconds: int
    action_seconds: int
    limits: dict[str, Any]  # the engine's (poker.engine.showdown), cents


class LiveSeatJson(TypedDict):
    seat: int
    player: str  # the display name
    you: bool


class LiveRoundSeat(TypedDict):
    """A seat's share of the round; its cards, decision and bet only for the recipient's own
    seat (laid over by the `private` part) or for every seat once settled."""

    seat: int
    player: str
    you: bool
    ante: int
    hole_card_bonus: int
    final_hand_bonus: int
    decided: bool
    hole: NotRequired[list[str]]
    decision: NotRequired[str | None]
    bet: NotRequired[int]
    result: NotRequired[dict[str, Any]]  # once settled: the engine's seat result
    net: NotRequired[int | None]


class LiveRoundJson(TypedDict):
    id: int
    phase: str  # "betting", "deciding", "settled"
    deadline: str | None  # ISO 8601; null once settled
    board: list[str]  # [] until settled
    seats: list[LiveRoundSeat]
    payout_cap: dict[str, Any] | None  # once settled: owed, paid, limit, applied
    commitment: str | None  # from the deal on


class LiveYou(TypedDict):
    player: str
    seat: int | None
    wallet: int


class LiveView(TypedDict):
    """VIEW: the table as one player sees it; PUBLIC (`you` null, every `you` false) for all."""

    version: int
    table: LiveTableJson
    seats: list[LiveSeatJson]
    round: LiveRoundJson | None
    you: LiveYou | None


class LiveCards(TypedDict):
    """A seat's own part of a round: its hole cards ([] before the deal), decision, bet."""

    hole: list[str]
    decision: str | None
    bet: int


class LiveHand(TypedDict):
    """HAND: the player's seat in the latest round, with its `LiveCards`."""

    round: int
    seat: int
    hole: list[str]  # [] before the deal
    decision: str | None
    bet: int


class LiveOwnPart(TypedDict):
    """A player's own part of a change: the `private` frame but its `type` and `version`."""

    you: LiveYou
    hand: LiveHand | None


# -- the frames


class StateFrame(TypedDict):
    """The public part of a change, the same to every socket at the table."""

    type: Literal["state"]
    version: int
    state: LiveView


class LivePrivateFrame(TypedDict):
    """A player's own part of a change, to their sockets alone, just before its `state`."""

    type: Literal["private"]
    version: int
    you: LiveYou
    hand: LiveHand | None


class LiveSnapshotFrame(TypedDict):
    type: Literal["snapshot"]
    version: int
    state: LiveView
    heartbeat_seconds: float  # settings.POKER_HEARTBEAT_SECONDS


ShowdownFrame = (
    StateFrame
    | LivePrivateFrame
    | LiveSnapshotFrame
    | ResyncFrame
    | HeartbeatFrame
    | ErrorFrame
    | PongFrame
    | SupersededFrame
)
SHOWDOWN_FRAMES: dict[str, type] = frames_by_type(ShowdownFrame)
# The frames numbered with the table's version, kept in the frame log and sent again in `resync`.
SHOWDOWN_VERSIONED_FRAMES: dict[str, type] = {"state": StateFrame, "private": LivePrivateFrame}
