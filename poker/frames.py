"""What a poker table's socket sends (docs/protocol.md "Server -> client"), each frame defined
once as a TypedDict with its `type` as a `Literal`, beside the commands it reads
(poker/commands.py): `poker.broadcast` builds the `update` and `private` frames, the consumer
the `snapshot` (its STATE from `poker.selectors`), the services the `chat` and seat-offer
frames; the frames every socket shares (`error`, `pong`, `heartbeat`, `resync`, `superseded`)
are `config.frames`'. `TableFrame` is every frame of the table socket, `TABLE_FRAMES` the same
by type: tests/poker/test_protocol_names.py holds docs/protocol.md's table of them, field for
field, and tests/poker/test_frame_types.py the frames the sockets really send.

The events in an `update` (and a snapshot's `log`) are `poker.engine.events.HandEvent` (each
with `hand_id`) and `poker.services.events.TableEvent`; they stay plain dicts here, as this
module sits below the services. Nothing here touches the database: plain types only, read by
the selectors, the broadcast, the services and the consumers alike (and bench/mirror.py).
"""

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict

from config.frames import (
    ErrorFrame,
    HeartbeatFrame,
    PongFrame,
    ResyncFrame,
    SupersededFrame,
    frames_by_type,
)
from poker.engine.reading import HandReading


class PlayerJson(TypedDict):
    """How a player appears at a table and in its events: never the username or email."""

    id: int
    display_name: str


# -- STATE (docs/protocol.md "STATE"), the snapshot's; `update` and `private` frames carry parts


class TournamentPlaceJson(TypedDict):
    player: PlayerJson
    place: int
    prize: int  # cents


class TournamentJson(TypedDict):
    """A Sit & Go's clock and places, at its table only (public: the tournament's page shows
    the same)."""

    id: int
    level: int  # 1-based
    levels: int
    small_blind: int
    big_blind: int
    ante: int
    next_level_at: str | None  # ISO time; None at the last level
    next_small_blind: int | None
    next_big_blind: int | None
    small_bet: int | None  # at fixed limit the level's bets; None at pot limit
    big_bet: int | None
    next_small_bet: int | None
    next_big_bet: int | None
    entrants: int
    players_left: int
    places: list[TournamentPlaceJson]  # those out, and everyone once it is finished


class TableJson(TypedDict):
    id: int
    name: str
    game: str
    structure: str
    stakes_label: str
    small_blind: int
    big_blind: int
    small_bet: int | None
    big_bet: int | None
    max_seats: int
    min_buy_in: int
    max_buy_in: int
    action_seconds: int
    countdown_seconds: int
    time_bank_seconds: int
    tournament: NotRequired[TournamentJson]  # at a Sit & Go's table only
    break_until: NotRequired[str | None]  # at a Sit & Go's table: its break's end, or null


class SeatJson(TypedDict):
    seat: int
    player: PlayerJson | None
    stack: int
    status: str  # "empty", "playing", "sitting_out", "waiting_big_blind"
    connected: bool
    sat_out_at: str | None  # ISO 8601, while sitting out


class BuyInRule(TypedDict):
    """Why ratholing moved a player's buy-in range."""

    rule: str  # "at_least_left_with", "up_to_left_with", "exactly_left_with"
    left_with: int | None  # set whenever `rule` is (cashier.ratholing.BuyInTerms)
    until: str | None


class WaitingPlace(TypedDict):
    position: int  # 1 is next
    offer_expires_at: str | None


class SeatOptionsJson(TypedDict):
    sit_out_next_big_blind: bool
    leave_after_hand: bool
    auto_top_up: bool


class YouJson(TypedDict):
    """The recipient's own part of STATE (a spectator's has `seat` and `status` null)."""

    seat: int | None
    wallet: int
    buy_in_range: list[int] | None  # [min, max], when not seated
    buy_in_rule: BuyInRule | None
    sitting_out: bool
    status: str | None
    posts_big_blind: bool
    last_seq: int
    waiting: WaitingPlace | None
    time_bank: int | None
    options: SeatOptionsJson | None


class WaitingJson(TypedDict):
    """The table's waiting list as everyone sees it."""

    count: int
    offered: int


# The running hand as a recipient sees it: `poker.engine.views.view_for` and its row's `id`,
# `number`, `turn`, `deadline`, `countdown_at`, `time_bank_from` (docs/protocol.md "STATE").
HandJson = dict[str, Any]
# The last ended hand's summary (`poker.selectors.result_json`).
ResultJson = dict[str, Any]


class TableState(TypedDict):
    """STATE: the table as one recipient sees it (in `snapshot` frames)."""

    version: int
    table: TableJson
    seats: list[SeatJson]
    you: YouJson | None
    hand: HandJson | None
    last_result: ResultJson | None
    waiting: WaitingJson | None
    next_server_seed_hash: str | None


class PrivateHand(TypedDict):
    """A player's own part of the running hand, for the hand id and turn it was made for."""

    id: int
    turn: int
    seat: int
    cards: list[str]
    reading: HandReading | None  # from the flop on, while in the hand (poker.engine.reading)
    legal_actions: dict[str, Any] | None  # when this seat is to act at `turn`


class ChatLine(TypedDict):
    id: int
    seat: int
    player: PlayerJson
    text: str
    at: str  # ISO 8601


# -- the frames


class UpdateFrame(TypedDict):
    """The public part of a change, the same to every socket at the table: `hand` whole, or
    after betting `hand_changes` only and none of the fields that betting cannot move."""

    type: Literal["update"]
    version: int
    events: Sequence[Mapping[str, Any]]  # HandEvent (with `hand_id`), TableEvent: redacted
    hand: NotRequired[HandJson | None]
    hand_changes: NotRequired[HandJson]
    seats: NotRequired[list[SeatJson]]
    last_result: NotRequired[ResultJson | None]
    waiting: NotRequired[WaitingJson | None]
    next_server_seed_hash: NotRequired[str | None]
    tournament: NotRequired[TournamentJson]  # at a Sit & Go's table, as STATE's table.tournament


class PrivateFrame(TypedDict):
    """A player's own part of a change, to their sockets alone, just before its `update`."""

    type: Literal["private"]
    version: int
    you: YouJson
    hand: PrivateHand | None


class SnapshotFrame(TypedDict):
    type: Literal["snapshot"]
    state: TableState
    log: list[dict[str, Any]]  # the running hand's events so far, as `update` frames carry them
    chat: list[ChatLine]
    heartbeat_seconds: float  # settings.POKER_HEARTBEAT_SECONDS


class TableResyncFrame(ResyncFrame):
    """A table's `resync`: a page reconnecting with `?since=` also gets the recent chat."""

    chat: NotRequired[list[ChatLine]]


class ChatFrame(TypedDict):
    type: Literal["chat"]
    message: ChatLine


class ChatRemovedFrame(TypedDict):
    type: Literal["chat_removed"]
    id: int


class TableClosedFrame(TypedDict):
    """A Sit & Go's table closed for good (the tournament is over): after the last `update`,
    then the socket closes (4404)."""

    type: Literal["table_closed"]
    tournament: int


class ExcludedFrame(TypedDict):
    """The player started a time-out or self-exclusion, or was suspended: the socket closes."""

    type: Literal["excluded"]
    message: str


class SeatOfferFrame(TypedDict):
    """To every page the player has open (table and lobby sockets)."""

    type: Literal["seat_offer"]
    table: int
    table_name: str
    expires_at: str  # ISO 8601
    seconds_left: int


class SessionLimitFrame(TypedDict):
    """To every page the player has open: their session limit is reached; they leave every
    table after the hand they are in (responsible.services.session_limit_reach)."""

    type: Literal["session_limit"]
    message: str


SeatOfferEndReason = Literal["taken", "declined", "expired", "closed", "removed", "withdrawn"]


class SeatOfferEndedFrame(TypedDict):
    type: Literal["seat_offer_ended"]
    table: int
    reason: SeatOfferEndReason


class LobbyTableUpdate(TypedDict):
    table: int
    seats_taken: int
    seats_playing: int  # of those, the players who can play (poker.selectors.seats_playing)
    # "showdown" for a live Omaha Showdown table (its ids are its own); absent: a cash table
    kind: NotRequired[Literal["showdown"]]


class LobbyUpdateFrame(TypedDict):
    """A table's seats, waiting list or opening changed (the lobby socket's; its channel-layer
    message is the same dict)."""

    type: Literal["lobby.update"]
    update: LobbyTableUpdate


TableFrame = (
    UpdateFrame
    | PrivateFrame
    | SnapshotFrame
    | TableResyncFrame
    | HeartbeatFrame
    | ChatFrame
    | ChatRemovedFrame
    | ErrorFrame
    | PongFrame
    | SupersededFrame
    | ExcludedFrame
    | TableClosedFrame
    | SeatOfferFrame
    | SeatOfferEndedFrame
    | SessionLimitFrame
)
TABLE_FRAMES: dict[str, type] = frames_by_type(TableFrame)
# The frames numbered with the table's version, kept in the frame log and sent again in `resync`.
TABLE_VERSIONED_FRAMES: dict[str, type] = {"update": UpdateFrame, "private": PrivateFrame}
