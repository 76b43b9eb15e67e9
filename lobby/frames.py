"""What the lobby socket sends (docs/protocol.md "The lobby socket"), each frame defined once as a
TypedDict with its `type` as a `Literal`, beside the one command it reads (lobby/commands.py).
Its own frame is `welcome`; `lobby.update` and the seat offers are the tables'
(`poker.frames`), `error` and `pong` every socket's (`config.frames`). `LobbyFrame` is every
frame of the socket, `LOBBY_FRAMES` the same by type (tests/poker/test_protocol_names.py and
tests/poker/test_frame_types.py hold the page and the socket to them)."""

from typing import Literal, TypedDict

from config.frames import ErrorFrame, PongFrame, frames_by_type
from poker.frames import (
    LobbyUpdateFrame,
    SeatOfferEndedFrame,
    SeatOfferFrame,
    SessionLimitFrame,
)


class WelcomeFrame(TypedDict):
    """The socket's first frame: who it belongs to (null: a visitor)."""

    type: Literal["welcome"]
    username: str | None


LobbyFrame = (
    WelcomeFrame
    | LobbyUpdateFrame
    | SeatOfferFrame
    | SeatOfferEndedFrame
    | SessionLimitFrame
    | PongFrame
    | ErrorFrame
)
LOBBY_FRAMES: dict[str, type] = frames_by_type(LobbyFrame)
