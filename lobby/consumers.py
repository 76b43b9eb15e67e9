"""The lobby socket: live lobby updates (tables, seats, waiting lists) for everyone, visitors
included; a signed-in player's sockets also get what concerns them wherever they are (a seat
offered from a waiting list).

It answers `ping` (config.sockets.FrameConsumer does); any other frame gets an error frame and
changes nothing.
"""

from typing import Any

from config.sockets import FrameConsumer
from lobby.commands import LOBBY
from lobby.frames import WelcomeFrame
from poker.broadcast import LOBBY_GROUP, player_group_name
from poker.frames import LobbyUpdateFrame


class LobbyConsumer(FrameConsumer):
    protocol = LOBBY
    joined_groups: list[str] = []

    async def connect(self) -> None:
        user = self.scope.get("user")
        signed_in = user is not None and user.is_authenticated
        await self.language_activate()
        self.joined_groups = [LOBBY_GROUP] + ([player_group_name(user.pk)] if signed_in else [])
        for group in self.joined_groups:
            await self.channel_layer.group_add(group, self.channel_name)
        await self.accept()
        welcome: WelcomeFrame = {
            "type": "welcome",
            "username": user.get_username() if signed_in else None,
        }
        await self.send_frame(welcome)

    async def disconnect(self, code: int) -> None:
        for group in self.joined_groups:
            await self.channel_layer.group_discard(group, self.channel_name)

    async def handle(self, command: Any) -> None:
        """Never called: `ping`, the lobby's one frame, is answered by the base consumer."""
        raise AssertionError(f"the lobby parsed {command!r}, which it has no use for")

    async def lobby_update(self, event: LobbyUpdateFrame) -> None:
        """Relay a lobby change broadcast by a service after its transaction commits
        (poker.broadcast.send_lobby: the channel-layer message is the frame)."""
        await self.send_frame(event)

    async def player_notice(self, message: dict) -> None:
        """What concerns this player wherever they are (a seat offered), already JSON."""
        await self.send(text_data=message["text"])
