"""The table socket's frames as typed commands (docs/protocol.md "Client -> server").

`parse_table_frame(text)` is the table's `config.frames.parse_frame`: a command below, or the
`Refusal` that answers the frame. A command's fields are its service's keyword arguments (the
consumer adds the table and the player; `key`, the client's idempotency key, becomes the
service's `idempotency_key`). Fields a frame names that its command has none for (a forged
`seat` or `player` on an `act`) are ignored: the server acts only for the socket's own user.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from django.utils.translation import gettext as _

from config.frames import (
    Ping,
    Protocol,
    Resync,
    Snapshot,
    cents,
    flag,
    key,
    parse_frame,
    text,
    unknown_at_table,
    whole,
)

MAX_SEQ = 10**11  # a client counter larger than this is a bad frame, not a long session


@dataclass(frozen=True)
class Act:
    """`act`: an action for `turn`, with the client's `seq` (echoed in an error)."""

    action: str
    amount: int | None
    turn: int
    seq: int

    @classmethod
    def parse(cls, frame: dict[str, Any]) -> Act:
        action = text(frame, "action", _('action must be a string such as "call".'))
        amount = None if frame.get("amount") is None else cents(frame, "amount")
        turn = whole(
            frame,
            "turn",
            minimum=1,
            message=lambda value: (
                _("turn must be a positive whole number, not %(turn)s.") % {"turn": value}
            ),
        )
        seq = whole(
            frame,
            "seq",
            minimum=1,
            maximum=MAX_SEQ,
            message=lambda value: (
                _("seq must be a positive whole number, not %(seq)s.") % {"seq": value}
            ),
        )
        return cls(action, amount, turn=turn, seq=seq)


@dataclass(frozen=True)
class Sit:
    """`sit`: a seat, a buy-in, and post a big blind now or wait for it."""

    money_kind: ClassVar[str] = "sit"
    seat_number: int
    buy_in: int
    post_big_blind: bool
    key: str | None

    @classmethod
    def parse(cls, frame: dict[str, Any]) -> Sit:
        return cls(
            seat_number=whole(frame, "seat"),
            buy_in=cents(frame, "buy_in"),
            post_big_blind=flag(frame, "post_big_blind"),
            key=key(frame, optional=True),
        )


@dataclass(frozen=True)
class SitOut:
    """`sit_out`."""


@dataclass(frozen=True)
class SitIn:
    """`sit_in`: one who missed the big blind posts it now or waits for it."""

    post_big_blind: bool


@dataclass(frozen=True)
class BigBlindChoice:
    """`post_big_blind` (post_now) and `wait_big_blind`."""

    post_now: bool


@dataclass(frozen=True)
class TopUp:
    """`top_up`: chips between hands."""

    money_kind: ClassVar[str] = "top-up"
    amount: int
    key: str | None

    @classmethod
    def parse(cls, frame: dict[str, Any]) -> TopUp:
        return cls(cents(frame, "amount"), key(frame, optional=True))


@dataclass(frozen=True)
class Leave:
    """`leave`."""


@dataclass(frozen=True)
class SeatOptions:
    """`seat_options`: turn any of the player's seat options on or off (absent: unchanged)."""

    sit_out_next_big_blind: bool | None
    leave_after_hand: bool | None
    auto_top_up: bool | None

    @classmethod
    def parse(cls, frame: dict[str, Any]) -> SeatOptions:
        names = ("sit_out_next_big_blind", "leave_after_hand", "auto_top_up")
        return cls(*(flag(frame, name) if name in frame else None for name in names))


@dataclass(frozen=True)
class Chat:
    """`chat`: a line to the table (the service checks the text)."""

    text: Any


@dataclass(frozen=True)
class ShowCards:
    """`show_cards`: between hands, show the cards nobody saw in the last hand."""


@dataclass(frozen=True)
class RunsAnswer:
    """`runs_answer`: an asked player's yes or no to running the board twice."""

    agree: bool

    @classmethod
    def parse(cls, frame: dict[str, Any]) -> RunsAnswer:
        if "agree" not in frame:
            return cls(flag({"agree": None}, "agree"))  # refused: agree must be true or false
        return cls(flag(frame, "agree"))


@dataclass(frozen=True)
class WaitingJoin:
    """`waiting_join`: join this table's waiting list."""


@dataclass(frozen=True)
class WaitingLeave:
    """`waiting_leave`: leave the list, or decline the seat it offers."""


@dataclass(frozen=True)
class ConnectionSet:
    """Not a frame: the socket opening or closing (it marks the seat connected or not)."""

    connected: bool
    socket: str


Command = (
    Act
    | Sit
    | SitOut
    | SitIn
    | BigBlindChoice
    | TopUp
    | Leave
    | SeatOptions
    | Chat
    | ShowCards
    | RunsAnswer
    | WaitingJoin
    | WaitingLeave
    | Ping
    | Snapshot
    | Resync
)


TABLE = Protocol(
    commands={
        "act": Act.parse,
        "sit": Sit.parse,
        "sit_out": lambda frame: SitOut(),
        "sit_in": lambda frame: SitIn(flag(frame, "post_big_blind")),
        "post_big_blind": lambda frame: BigBlindChoice(post_now=True),
        "wait_big_blind": lambda frame: BigBlindChoice(post_now=False),
        "top_up": TopUp.parse,
        "leave": lambda frame: Leave(),
        "show_cards": lambda frame: ShowCards(),
        "runs_answer": RunsAnswer.parse,
        "seat_options": SeatOptions.parse,
        "chat": lambda frame: Chat(frame.get("text")),
        "waiting_join": lambda frame: WaitingJoin(),
        "waiting_leave": lambda frame: WaitingLeave(),
        "ping": Ping.parse,
        "snapshot": Snapshot.parse,
        "resync": Resync.parse,
    },
    unknown=unknown_at_table,
)


def parse_table_frame(raw: str | None) -> Any:
    """A table command, or the `Refusal` answering the frame."""
    return parse_frame(raw, TABLE)
