"""The live Showdown table's socket (docs/protocol.md, "Live Omaha Showdown").

Thin edge: each frame is parsed to a command (showdown/commands.py, through the room's one
frame reader, config/sockets.py), which calls its `showdown.live` service
(which owns the rules, the lock and the transaction) and, whenever the table changes, reads
this user's own view (`live_table_view`): so a player's hole cards reach only that player's
sockets before the round settles, and the deck reaches nobody. A bad frame gets an error
frame to this socket alone and changes nothing; the socket stays open.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from channels.db import database_sync_to_async

from config.db_threads import in_db_thread
from config.frames import Snapshot
from config.sockets import FrameConsumer
from poker.broadcast import remember_socket_loop
from showdown import live
from showdown.commands import SHOWDOWN, Command, Decide, LeaveSeat, PlaceWagers, TakeSeat
from showdown.live_selectors import live_table_view

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NO_TABLE = 4404

# Command -> the `showdown.live` service it calls as service(player=, table_id=, **its fields).
SERVICES: dict[type, Callable[..., Any]] = {
    TakeSeat: live.live_seat_take,
    LeaveSeat: live.live_seat_leave,
    PlaceWagers: live.live_wagers_place,
    Decide: live.live_decide,
}


class LiveShowdownConsumer(FrameConsumer):
    protocol = SHOWDOWN

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        await self.language_activate()
        view = await _view(self.table_id, self.user)
        if view is None:
            await self.close(code=CLOSE_NO_TABLE)
            return
        remember_socket_loop(asyncio.get_running_loop())
        self.group = live.group_name(self.table_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        await self.send_frame({"type": "snapshot", "state": view})

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def handle(self, command: Command) -> None:
        if not isinstance(command, Snapshot):  # a snapshot is just the view below
            arguments = vars(command).copy()
            if "key" in arguments:
                arguments["idempotency_key"] = f"live-{self.table_id}-{arguments.pop('key')}"
            service = SERVICES[type(command)]
            await in_db_thread(service)(player=self.user, table_id=self.table_id, **arguments)
        # A replayed frame changes nothing and so broadcasts nothing: answer it with the view.
        await self.showdown_changed({})

    async def showdown_changed(self, message: dict) -> None:
        """The table changed (after commit): this user's own view, read now."""
        view = await _view(self.table_id, self.user)
        if view is not None:
            await self.send_frame({"type": "state", "state": view})


@database_sync_to_async
def _view(table_id: int, user) -> dict | None:
    return live_table_view(table_id=table_id, user=user)
