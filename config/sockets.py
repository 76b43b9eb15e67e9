"""The base of the room's sockets (table, live Showdown, lobby): one way to read a frame, one
error frame, one language (docs/protocol.md "Error frames").

A consumer names its `protocol` (config.frames) and handles the commands it parses to; a
frame the protocol refuses, and any `Refused` its handler raises, becomes the one error frame
to this socket alone, and the socket stays open. A bug in a handler is logged and answered as
`server_error`: it must not cost the player their socket.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils.translation import gettext as _

from config.errors import Refused
from config.frames import Ping, Protocol, Refusal, parse_frame, refusal_for
from config.i18n import socket_language_activate

log = logging.getLogger(__name__)


class FrameConsumer(AsyncWebsocketConsumer):
    protocol: Protocol

    async def language_activate(self) -> None:
        """Refusals in the player's language from now on (call it early in `connect`)."""
        await socket_language_activate(self.scope)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        command = parse_frame(text_data, self.protocol)  # a binary frame is refused too
        if isinstance(command, Refusal):
            await self.send_frame(command.frame())
            return
        try:
            if isinstance(command, Ping):
                await self.send_frame({"type": "pong", "echo": command.echo})
            else:
                await self.handle(command)
        except Refused as error:  # a service saying no: nothing changed
            await self.send_frame(refusal_for(error, command).frame())
        except Exception:
            user = getattr(self.scope.get("user"), "pk", None)
            log.exception("%s: a frame from user %s failed", self.scope.get("path"), user)
            fault = Refused("server_error", _("Something went wrong on our side; nothing changed."))
            await self.send_frame(refusal_for(fault, command).frame())

    async def handle(self, command: Any) -> None:
        """Carry out one parsed command (each socket's own)."""
        raise NotImplementedError

    async def send_frame(self, frame: dict[str, Any]) -> None:
        await self.send(text_data=json.dumps(frame, separators=(",", ":")))

    async def send_error(self, code: str, message: str) -> None:
        """An error frame not answering any frame (a refused connection says why)."""
        await self.send_frame(Refusal(code, message).frame())
