"""The one reader of a client's socket frame, shared by the table, live Showdown and lobby
sockets (docs/protocol.md "Error frames").

`parse_frame` takes the raw text a socket received and returns a typed command (a frozen
dataclass of the socket's `Protocol`) or a `Refusal`; it never raises for anything a client
can send. A refusal has one shape on every socket: `code` for programs, `message` in the
active language for people, and the frame's own `seq` and `key` echoed so the client can tell
which frame it answers. Nothing here touches the database, the channel layer or a socket: the
sockets' consumers (config/sockets.py) call it and send `Refusal.frame()`.

What the sockets send back is typed too, one TypedDict per frame with its `type` as a
`Literal`: the frames every socket shares are here (`ErrorFrame`,
`PongFrame`, `HeartbeatFrame`, `ResyncFrame`, `SupersededFrame`); each socket's own are beside
its commands (`poker.frames`, `showdown.frames`, `lobby.frames`, each with the map of its
socket's frames by type). tests/poker/test_protocol_names.py holds docs/protocol.md to them and
tests/poker/test_frame_types.py holds the frames the sockets really send to them.

The field readers below raise `FrameRefused`; a protocol's command parsers use them, so one
rule and one code hold per kind of field on every socket: a whole number or a flag of the
wrong kind is `bad_field`, money is `bad_amount` (config.inputs.parse_cents), an idempotency
key is `bad_idempotency_key` or `missing_idempotency_key`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import (
    Any,
    Literal,
    NotRequired,
    TypedDict,
    TypeGuard,
    get_args,
    get_origin,
    get_type_hints,
)

from django.utils.translation import gettext as _

from config.errors import Refused
from config.inputs import parse_cents, parse_idempotency_key, parse_json_object, shown

MAX_FRAME_BYTES = 4096  # of UTF-8, as sent on the wire (not characters)
KEY_MIN_LENGTH = 8
KEY_MAX_LENGTH = 64
BAD_FRAME = "bad_frame"
UNKNOWN_TYPE = "unknown_type"
BAD_FIELD = "bad_field"


class FrameRefused(Refused):
    """A frame of the wrong shape, refused before any service sees it."""


# -- the frames every socket sends (docs/protocol.md "Server -> client", "Error frames")


class ErrorFrame(TypedDict):
    """A refused frame or command, to its sender alone; nothing changed."""

    type: Literal["error"]
    code: str
    message: str
    seq: int | None  # the refused frame's, when an integer
    key: str | None  # the refused frame's, when a string (its first 64 characters)


class PongFrame(TypedDict):
    type: Literal["pong"]
    echo: Any  # the `ping`'s, any JSON value


class HeartbeatFrame(TypedDict):
    """Through the table's group every `heartbeat_seconds`: the table's current version."""

    type: Literal["heartbeat"]
    version: int


class ResyncFrame(TypedDict):
    """The versioned frames a socket missed after `since`, as they were sent, oldest first."""

    type: Literal["resync"]
    since: int
    frames: list[dict[str, Any]]  # each one of the socket's own versioned frames
    heartbeat_seconds: NotRequired[float]  # a page reconnecting with `?since=`


class SupersededFrame(TypedDict):
    """To an older socket of the same player at the same table, before it closes (4409)."""

    type: Literal["superseded"]


def frame_type(definition: type) -> str:
    """The `type` a frame's TypedDict declares (its one Literal value)."""
    (name,) = get_args(get_type_hints(definition)["type"])
    return str(name)


def frame_fields(definition: type) -> dict[str, bool]:
    """{field: whether every frame of this type has it} of a frame's TypedDict, `type` aside,
    in declared order. Read from the annotations, not `__required_keys__`, which counts a
    NotRequired field as required in a module with `from __future__ import annotations`."""
    hints = get_type_hints(definition, include_extras=True)
    return {
        name: get_origin(hint) is not NotRequired for name, hint in hints.items() if name != "type"
    }


def frames_by_type(union: Any) -> dict[str, type]:
    """{type: TypedDict} of a socket's frames (a union of TypedDicts)."""
    return {frame_type(each): each for each in get_args(union)}


@dataclass(frozen=True)
class Refusal:
    """A refused frame or command: the one error frame of every socket. Nothing changed."""

    code: str
    message: str
    seq: int | None = None
    key: str | None = None

    def frame(self) -> ErrorFrame:
        return {
            "type": "error",
            "code": self.code,
            "message": self.message,
            "seq": self.seq,
            "key": self.key,
        }


@dataclass(frozen=True)
class Ping:
    """`ping`: answered with `pong` and the same `echo` (any JSON value)."""

    echo: Any = None

    @classmethod
    def parse(cls, frame: Mapping[str, Any]) -> Ping:
        return cls(frame.get("echo"))


@dataclass(frozen=True)
class Snapshot:
    """`snapshot`: the socket's whole state again (and its groups joined again)."""

    @classmethod
    def parse(cls, frame: Mapping[str, Any]) -> Snapshot:
        return cls()


@dataclass(frozen=True)
class Resync:
    """`resync`: the frames this socket missed after version `since` (docs/protocol.md
    "Versions and resync"), or a snapshot when they are gone."""

    since: int

    MAX = 2**53  # a version past this is no table's (and no JavaScript number's)

    @classmethod
    def parse(cls, frame: Mapping[str, Any]) -> Resync:
        return cls(whole(frame, "since", minimum=0, maximum=cls.MAX))


CommandParser = Callable[[dict[str, Any]], Any]


@dataclass(frozen=True)
class Protocol:
    """What one socket accepts: frame type -> the parser of its command, and how the socket
    says it does not know a type (the table and the lobby word it differently)."""

    commands: Mapping[str, CommandParser]
    unknown: Callable[[str], str]


def unknown_at_table(kind: str) -> str:
    """How a table (poker or live Showdown) says it does not know a frame type."""
    return _("The table does not know %(kind)s frames.") % {"kind": shown(kind)}


def parse_frame(raw: str | None, protocol: Protocol) -> Any:
    """The command `raw` (a text frame; None for a binary one) asks for, or the `Refusal` that
    answers it: never an exception, whatever a client sends."""
    frame: dict[str, Any] = {}
    try:
        frame = read_frame(raw)
        kind = frame["type"]
        parser = protocol.commands.get(kind)
        if parser is None:
            raise FrameRefused(UNKNOWN_TYPE, protocol.unknown(kind))
        return parser(frame)
    except Refused as error:
        return refusal_for(error, frame)


def read_frame(raw: str | None) -> dict[str, Any]:
    """One JSON object of at most 4 KiB of UTF-8 with a string `type`, else `bad_frame`."""
    if raw is None or _utf8_size(raw) > MAX_FRAME_BYTES:
        raise FrameRefused(BAD_FRAME, _("Send one JSON text frame of at most 4 KiB."))
    try:
        frame = parse_json_object(raw, what="frame")
    except Refused as error:  # not JSON, not an object, or nested absurdly deep
        raise FrameRefused(BAD_FRAME, error.message) from error
    if not isinstance(frame.get("type"), str):
        raise FrameRefused(BAD_FRAME, _('A frame is a JSON object with a string "type".'))
    return frame


def refusal_for(error: Refused, frame: Mapping[str, Any] | Any = None) -> Refusal:
    """`error` as the error frame answering `frame` (a command or the raw frame): its `seq`
    and `key` echoed when they are an integer and a string."""
    if isinstance(frame, Mapping):
        seq, key = frame.get("seq"), frame.get("key")
    else:
        seq, key = getattr(frame, "seq", None), getattr(frame, "key", None)
    return Refusal(
        code=error.code,
        message=error.message,
        seq=seq if is_whole(seq) else None,
        key=key[:KEY_MAX_LENGTH] if isinstance(key, str) else None,
    )


# -- field readers for the protocols' command parsers


def is_whole(value: Any) -> TypeGuard[int]:
    """An integer, and not a bool (True is 1 to Python, never to a player)."""
    return isinstance(value, int) and not isinstance(value, bool)


def whole(
    frame: Mapping[str, Any],
    name: str,
    *,
    minimum: int | None = None,
    maximum: int | None = None,
    message: Callable[[str], str] | None = None,
) -> int:
    """A whole number from `minimum` to `maximum` when given; `message(shown value)` words the
    refusal when the field has its own sentence."""
    value = frame.get(name)
    if (
        not is_whole(value)
        or (minimum is not None and value < minimum)
        or (maximum is not None and value > maximum)
    ):
        if message is not None:
            raise FrameRefused(BAD_FIELD, message(shown(value)))
        raise FrameRefused(
            BAD_FIELD,
            _("%(name)s must be a whole number, not %(value)s.")
            % {"name": name, "value": shown(value)},
        )
    return value


def flag(frame: Mapping[str, Any], name: str) -> bool:
    """true or false; absent is false."""
    value = frame.get(name, False)
    if not isinstance(value, bool):
        raise FrameRefused(
            BAD_FIELD,
            _("%(name)s must be true or false, not %(value)s.")
            % {"name": name, "value": shown(value)},
        )
    return value


def text(frame: Mapping[str, Any], name: str, message: str) -> str:
    value = frame.get(name)
    if not isinstance(value, str):
        raise FrameRefused(BAD_FIELD, message)
    return value


def cents(frame: Mapping[str, Any], name: str, *, minimum: int = 1) -> int:
    """An amount of whole cents from `minimum` to 10^11 (`bad_amount`)."""
    return parse_cents(frame.get(name), field=name, minimum=minimum, error=FrameRefused)


def key(frame: Mapping[str, Any], *, optional: bool = False) -> str | None:
    """The client's idempotency key: 8-64 printable characters (absent is None if `optional`)."""
    if optional and frame.get("key") is None:
        return None
    return parse_idempotency_key(
        frame.get("key"),
        field="key",
        min_length=KEY_MIN_LENGTH,
        max_length=KEY_MAX_LENGTH,
        error=FrameRefused,
    )


def _utf8_size(text: str) -> int:
    """Bytes on the wire: "€" is one character but three bytes."""
    return len(text.encode("utf-8", "surrogatepass"))
