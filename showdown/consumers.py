"""The live Showdown table's socket (docs/protocol.md "Live Omaha Showdown").

Thin edge, as the poker table's: each frame is parsed to a command (showdown/commands.py,
through the room's one frame reader, config/sockets.py) and sent to the table's owner
(poker/owner.py: here, or the process holding the table's lease), which calls its
`showdown.live` service (the rules, the lock and the transaction). The change's frames are
built there once and reach the sockets through the channel layer: the public `state` frame
through the table's group, each player's own part (`private`: their hole cards) through that
player's group alone, so a player's hole cards reach only that player's sockets before the
round settles, and the deck reaches nobody. The reconnect limit, a second tab superseding the
first, the heartbeat and `resync since=<version>` are every versioned table's
(config.sockets.TableSocket). A bad frame gets an error frame to this socket alone and
changes nothing; the socket stays open.
"""

from __future__ import annotations

import asyncio
import contextlib

from asgiref.sync import sync_to_async
from django.conf import settings

from config.after_commit import socket_loop_remember
from config.db_pool import DatabaseBusy
from config.db_threads import in_db_thread
from config.frame_log import Missed, frames_missed_here, frames_missed_in
from config.frames import Resync, Snapshot
from config.sockets import TableSocket
from poker import owner
from showdown import live
from showdown.commands import SHOWDOWN, Command, ConnectionSet, TakeSeat
from showdown.frames import LiveSnapshotFrame, LiveView
from showdown.live_selectors import live_table_view
from showdown.models import LiveSeat, ShowdownTable
from showdown.services import ShowdownRefused

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NO_TABLE = 4404


class LiveShowdownConsumer(TableSocket):
    protocol = SHOWDOWN

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.joined = False
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        await self.language_activate()
        if await self.reconnect_refused(f"showdown-socket:{self.table_id}:{self.user.pk}"):
            return
        if not await _table_is_live(self.table_id):
            await self.close(code=CLOSE_NO_TABLE)
            return
        socket_loop_remember(asyncio.get_running_loop())
        await owner.owner_start()
        self.group = live.group_name(self.table_id)
        self.user_group = live.user_group_name(self.table_id, self.user.pk)
        await self.older_tabs_step_aside(self.user_group)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.channel_layer.group_add(self.user_group, self.channel_name)
        self.joined = True
        await self.accept()
        await self.hello_send()
        # A seated player's page is open: their seat is no longer away (the lobby counts it).
        await self.connection_set(True)

    async def disconnect(self, code: int) -> None:
        if not self.joined:
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.channel_layer.group_discard(self.user_group, self.channel_name)
        if not self.superseded:  # a newer tab of the player's is open
            await self.connection_set(False)

    async def connection_set(self, connected: bool) -> None:
        """Mark the player's seat (if any) as having this socket open, or none, at the
        table's owner. With the database busy, or the table gone, it stays as it was until
        the next socket's: the away limit then runs from the last mark."""
        with contextlib.suppress(ShowdownRefused, DatabaseBusy):
            if not await _is_seated(self.table_id, self.user.pk):
                return  # a watcher: nothing for the owner to do
            await _command_run(
                ConnectionSet(connected=connected, socket=self.channel_name),
                self.table_id,
                self.user,
            )

    async def handle(self, command: Command) -> None:
        if isinstance(command, Snapshot):
            await self.snapshot_requested()
        elif isinstance(command, Resync):
            await self.resync_requested(command)
        else:
            await _command_run(command, self.table_id, self.user)
            if isinstance(command, TakeSeat):  # the new seat is open through this socket
                await self.connection_set(True)

    async def frames_missed(self, since: int) -> Missed | None:
        return await _frames_missed(self.table_id, self.user.pk, since)

    def frames_missed_here(self, since: int) -> Missed | None:
        if not owner.holds_here(self.table_id, "showdown"):
            return None
        return frames_missed_here(
            public=live.group_name(self.table_id),
            private=live.user_group_name(self.table_id, self.user.pk),
            since=since,
        )

    async def snapshot_send(self) -> None:
        """This player's view now (the public view with their own part), with the heartbeat
        the page expects."""
        view = await _view(self.table_id, self.user)
        if view is None:
            await self.close(code=CLOSE_NO_TABLE)
            return
        frame: LiveSnapshotFrame = {
            "type": "snapshot",
            "version": view["version"],
            "state": view,
            "heartbeat_seconds": settings.POKER_HEARTBEAT_SECONDS,
        }
        await self.send_frame(frame)


@in_db_thread
def _table_is_live(table_id: int) -> bool:
    return ShowdownTable.objects.filter(pk=table_id, seats__gt=1).exists()


@in_db_thread
def _is_seated(table_id: int, user_id: int) -> bool:
    return LiveSeat.objects.filter(table_id=table_id, player_id=user_id).exists()


@sync_to_async(thread_sensitive=False)
def _frames_missed(table_id: int, user_id: int, since: int) -> Missed | None:
    return frames_missed_in(
        public=live.group_name(table_id),
        private=live.user_group_name(table_id, user_id),
        since=since,
    )


@in_db_thread
def _view(table_id: int, user) -> LiveView | None:
    """Read on the sockets' database threads, not in the table's turn at its owner, as a
    poker table's snapshot: every frame carries the table's version."""
    return live_table_view(table_id=table_id, user=user)


async def _command_run(command: Command | ConnectionSet, table_id: int, user) -> None:
    """The command runs at the table's owner (poker/owner.py): here, or in the process that
    holds the table; a refusal there is raised here all the same."""
    await owner.socket_command_run(table_id, "showdown.command", command, user)
