"""The lobby socket: live lobby updates (tables, seats, waiting lists) for everyone, visitors
included; a signed-in player's sockets also get what concerns them wherever they are (a seat
offered from a waiting list).

Frames are JSON objects with a "type"; anything else gets an error frame and changes nothing.
"""

import json

from channels.generic.websocket import AsyncWebsocketConsumer
from django.utils.translation import gettext as _

from config.channel_health import GroupRejoinMixin
from config.errors import Refused
from config.i18n import socket_language_activate
from config.inputs import parse_json_object
from poker.broadcast import LOBBY_GROUP, player_group_name

MAX_FRAME_BYTES = 4096  # of UTF-8, as sent on the wire (not characters)


class LobbyConsumer(GroupRejoinMixin, AsyncWebsocketConsumer):
    joined_groups: list[str] = []

    async def connect(self) -> None:
        user = self.scope.get("user")
        signed_in = user is not None and user.is_authenticated
        await socket_language_activate(self.scope)  # refusals in the player's language
        self.joined_groups = [LOBBY_GROUP] + ([player_group_name(user.pk)] if signed_in else [])
        for group in self.joined_groups:
            await self.channel_layer.group_add(group, self.channel_name)
        self.groups_rejoin_start(self.joined_groups)
        await self.accept()
        await self.send_frame(
            {"type": "welcome", "username": user.get_username() if signed_in else None}
        )

    async def disconnect(self, code: int) -> None:
        await self.groups_rejoin_stop()
        for group in self.joined_groups:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        if text_data is None or len(text_data.encode("utf-8", "surrogatepass")) > MAX_FRAME_BYTES:
            await self.send_error("bad_frame", _("Send one JSON text frame of at most 4 KiB."))
            return
        try:
            frame = parse_json_object(text_data, what="frame")
        except Refused as error:  # not JSON, not an object, or nested absurdly deep
            await self.send_error("bad_frame", error.message)
            return
        if not isinstance(frame.get("type"), str):
            await self.send_error("bad_frame", _('A frame is a JSON object with a string "type".'))
            return
        if frame["type"] == "ping":
            await self.send_frame({"type": "pong", "echo": frame.get("echo")})
            return
        await self.send_error(
            "unknown_type",
            _("The lobby does not know %(kind)s frames.") % {"kind": repr(frame["type"])},
        )

    async def lobby_update(self, event: dict) -> None:
        """Relay a lobby change broadcast by a service after its transaction commits."""
        await self.send_frame({"type": "lobby.update", "update": event["update"]})

    async def player_notice(self, message: dict) -> None:
        """What concerns this player wherever they are (a seat offered), already JSON."""
        await self.send(text_data=message["text"])

    async def send_frame(self, frame: dict) -> None:
        await self.send(text_data=json.dumps(frame, separators=(",", ":")))

    async def send_error(self, code: str, message: str) -> None:
        await self.send_frame({"type": "error", "code": code, "message": message})
