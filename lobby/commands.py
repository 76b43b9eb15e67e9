"""The lobby socket's frames (docs/protocol.md "The lobby socket"): it only listens, so `ping`
is the one frame it answers; `parse_lobby_frame(text)` is its `config.frames.parse_frame`."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from config.frames import Ping, Protocol, parse_frame
from config.inputs import shown


def _unknown(kind: str) -> str:
    return _("The lobby does not know %(kind)s frames.") % {"kind": shown(kind)}


LOBBY = Protocol(commands={"ping": Ping.parse}, unknown=_unknown)


def parse_lobby_frame(raw: str | None) -> Any:
    """A `Ping`, or the `Refusal` answering the frame."""
    return parse_frame(raw, LOBBY)
