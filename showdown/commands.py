"""The live Showdown socket's frames as typed commands (docs/protocol.md "Live Omaha
Showdown").

`parse_showdown_frame(text)` is this socket's `config.frames.parse_frame`: a command below, or
the `Refusal` that answers the frame. A command's fields are its `showdown.live` service's
keyword arguments (the consumer adds the table and the player; `key`, the client's
idempotency key, becomes the service's `idempotency_key`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.utils.translation import gettext as _

from config.frames import (
    BAD_FIELD,
    FrameRefused,
    Ping,
    Protocol,
    Resync,
    Snapshot,
    cents,
    key,
    parse_frame,
    unknown_at_table,
    whole,
)

DECISIONS = ("fold", "call", "raise")


@dataclass(frozen=True)
class TakeSeat:
    """`sit`: a free seat, 1 to the table's seats."""

    seat: int


@dataclass(frozen=True)
class LeaveSeat:
    """`leave`."""


@dataclass(frozen=True)
class PlaceWagers:
    """`wager`: the ante and the two side bets (absent or 0 for none), once per round."""

    ante: int
    hole_card_bonus: int
    final_hand_bonus: int
    key: str

    @classmethod
    def parse(cls, frame: dict[str, Any]) -> PlaceWagers:
        return cls(
            ante=cents(frame, "ante"),
            hole_card_bonus=_side_bet(frame, "hole_card_bonus"),
            final_hand_bonus=_side_bet(frame, "final_hand_bonus"),
            key=key(frame),
        )


@dataclass(frozen=True)
class Decide:
    """`decide`: fold, call or raise the dealt hand."""

    decision: str
    key: str

    @classmethod
    def parse(cls, frame: dict[str, Any]) -> Decide:
        decision = frame.get("decision")
        if decision not in DECISIONS:
            raise FrameRefused(BAD_FIELD, _('decision must be "fold", "call" or "raise".'))
        return cls(decision, key(frame))


@dataclass(frozen=True)
class ConnectionSet:
    """Not a frame: the socket opening or closing (a seat with none open is away: the lobby
    counts it apart, and the table stands it up at its limit)."""

    connected: bool
    socket: str


Command = TakeSeat | LeaveSeat | PlaceWagers | Decide | Ping | Snapshot | Resync


def _side_bet(frame: dict[str, Any], name: str) -> int:
    return 0 if frame.get(name) is None else cents(frame, name, minimum=0)


SHOWDOWN = Protocol(
    commands={
        "sit": lambda frame: TakeSeat(
            whole(
                frame,
                "seat",
                message=lambda value: (
                    _("seat must be a whole number, not %(value)s.") % {"value": value}
                ),
            )
        ),
        "leave": lambda frame: LeaveSeat(),
        "wager": PlaceWagers.parse,
        "decide": Decide.parse,
        "snapshot": Snapshot.parse,
        "resync": Resync.parse,
        "ping": Ping.parse,
    },
    unknown=unknown_at_table,
)


def parse_showdown_frame(raw: str | None) -> Any:
    """A live Showdown command, or the `Refusal` answering the frame."""
    return parse_frame(raw, SHOWDOWN)
