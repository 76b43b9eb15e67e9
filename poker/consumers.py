"""The table socket (docs/protocol.md): a snapshot on connect, then each change as it happens.

Thin edge: each frame is parsed to a command (poker/commands.py, through the room's one frame
reader, config/sockets.py), the command calls its service (which owns the rules and the
transaction), and broadcasts are forwarded: the table's public frames and this user's own
private ones. A bad frame gets an error to this socket alone and changes nothing; the socket
stays open.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils.translation import gettext as _

from config.after_commit import socket_loop_remember
from config.db_pool import DatabaseBusy
from config.db_threads import in_db_thread
from config.frames import Resync, ResyncFrame, Snapshot
from config.sockets import TableSocket
from poker import owner, services
from poker.broadcast import (
    Missed,
    frames_missed,
    frames_missed_at_owner,
    group_name,
    player_group_name,
    user_group_name,
)
from poker.commands import (
    TABLE,
    Command,
    ConnectionSet,
    Sit,
)
from poker.frames import (
    ChatLine,
    ExcludedFrame,
    SnapshotFrame,
    TableClosedFrame,
    TableResyncFrame,
)
from poker.models import Table
from poker.selectors import TableSnapshot, chat_recent, table_snapshot_for
from responsible import rules as responsible

log = logging.getLogger(__name__)

CLOSE_UNAUTHENTICATED = 4401
CLOSE_EXCLUDED = 4403
CLOSE_NO_TABLE = 4404


class TableConsumer(TableSocket):
    """The reconnect limit, second tabs, the heartbeat, resync and the frames' forwarding are
    every versioned table's (config.sockets.TableSocket)."""

    protocol = TABLE

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.joined = False
        self.superseded = False
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        await self.language_activate()
        if await self.reconnect_refused(f"table-socket:{self.table_id}:{self.user.pk}"):
            return
        if not await _table_is_open(self.table_id, self.user):
            over = await _tournament_over(self.table_id)
            if over is not None:
                # A Sit & Go's table once it is over: accepted only to say so (a refused
                # handshake reaches the page as 1006, which it would retry for ever).
                await self.accept()
                await self.table_closed({"tournament": over})
                return
            await self.close(code=CLOSE_NO_TABLE)
            return
        excluded = await _exclusion_message(self.user)
        if excluded is not None:
            # A time-out or self-exclusion: accepted only to say why (like the reconnect limit).
            await self.accept()
            await self.send_error("excluded", excluded)
            await self.close(code=CLOSE_EXCLUDED)
            return
        socket_loop_remember(asyncio.get_running_loop())
        await owner.owner_start()
        self.group = group_name(self.table_id)
        self.user_group = user_group_name(self.table_id, self.user.pk)
        self.player_group = player_group_name(self.user.pk)
        await self.older_tabs_step_aside(self.user_group)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.channel_layer.group_add(self.user_group, self.channel_name)
        await self.channel_layer.group_add(self.player_group, self.channel_name)
        self.joined = True
        # The seat is marked connected before the snapshot is read, so the snapshot shows it and
        # once the page has its snapshot this socket's hello is done. Staff may delete the table
        # at any point after the check above: then the socket closes as for any missing table.
        try:
            await self.run(ConnectionSet(connected=True, socket=self.channel_name))
            await self.accept()
            await self.hello_send()
        except services.TableError as error:
            if error.code != "no_table":
                raise
            await self.close(code=CLOSE_NO_TABLE)

    async def disconnect(self, code: int) -> None:
        if not self.joined:
            return
        await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.channel_layer.group_discard(self.user_group, self.channel_name)
        await self.channel_layer.group_discard(self.player_group, self.channel_name)
        if not self.superseded:
            # The table may be gone (deleted by staff): then nobody is left to tell.
            # With every database connection busy it stays marked connected (no grace time is
            # added) until the player's next socket; their turns still time out as usual.
            with contextlib.suppress(services.TableError, DatabaseBusy):
                await self.run(ConnectionSet(connected=False, socket=self.channel_name))

    # -- from the client (config.sockets.FrameConsumer parses each frame; ping is answered there)

    async def handle(self, command: Command) -> None:
        if isinstance(command, Snapshot):
            await self.snapshot_requested()
            return
        if isinstance(command, Resync):
            await self.resync_requested(command)
            return
        await self.run(command)
        if isinstance(command, Sit):  # the new seat is live through this socket
            # The seat is taken already: a busy pool here must not answer "nothing changed".
            # The seat then counts as disconnected until this socket's next hello.
            with contextlib.suppress(DatabaseBusy):
                await self.run(ConnectionSet(connected=True, socket=self.channel_name))

    async def run(self, command: Command | ConnectionSet) -> None:
        await _call_service(command, self.table_id, self.user)

    # -- from the channel layer (the table's frames and heartbeat: config.sockets.TableSocket)

    async def player_notice(self, message: dict) -> None:
        """What concerns the player wherever they are (a seat offered at any table), sent to
        every page they have open."""
        await self.send(text_data=message["text"])

    # -- what a socket missed (docs/protocol.md "Versions and resync": TableSocket.resync_send)

    async def frames_missed(self, since: int) -> Missed | None:
        return await _frames_missed(self.table_id, self.user.pk, since)

    def frames_missed_here(self, since: int) -> Missed | None:
        if not owner.holds_here(self.table_id):
            return None
        return frames_missed_at_owner(table_id=self.table_id, user_id=self.user.pk, since=since)

    async def resync_hello(self, frame: ResyncFrame) -> TableResyncFrame:
        """A reconnecting page's resync also brings the heartbeat and the recent chat."""
        return {
            **frame,
            "heartbeat_seconds": settings.POKER_HEARTBEAT_SECONDS,
            "chat": await _chat_read(self.table_id),
        }

    async def snapshot_send(self) -> None:
        """The whole STATE now, read from the database, with the heartbeat the page expects."""
        snapshot = await _snapshot_for(self.table_id, self.user)
        frame: SnapshotFrame = {
            "type": "snapshot",
            "state": snapshot["state"],
            "log": snapshot["log"],
            "chat": snapshot["chat"],
            "heartbeat_seconds": settings.POKER_HEARTBEAT_SECONDS,
        }
        await self.send_frame(frame)

    async def table_closed(self, message: dict) -> None:
        """The Sit & Go is over and its table closed for good (after its last `update`): say
        so and close, as for a table that is gone; nobody has anything left to do there."""
        closed: TableClosedFrame = {"type": "table_closed", "tournament": message["tournament"]}
        await self.send_frame(closed)
        await self.close(code=CLOSE_NO_TABLE)

    async def table_player_excluded(self, message: dict) -> None:
        """The player started a time-out or self-exclusion: say so and close; the seat is
        already leaving after the hand (responsible.services.exclusion_start)."""
        excluded: ExcludedFrame = {"type": "excluded", "message": message["message"]}
        await self.send_frame(excluded)
        await self.close(code=CLOSE_EXCLUDED)


@sync_to_async(thread_sensitive=False)
def _frames_missed(table_id: int, user_id: int, since: int) -> Missed | None:
    return frames_missed(table_id=table_id, user_id=user_id, since=since)


@in_db_thread
def _chat_read(table_id: int) -> list[ChatLine]:
    return chat_recent(table_id=table_id)


@in_db_thread
def _table_is_open(table_id: int, user) -> bool:
    """Open tables take anyone; a closed cash table only its seated players (so they can
    leave); a closed Sit & Go's table nobody (its winner's seat has nothing to leave)."""
    table = Table.objects.filter(pk=table_id).first()
    if table is None or table.is_open:
        return table is not None
    return not table.is_tournament and table.seats.filter(player=user).exists()


@in_db_thread
def _tournament_over(table_id: int) -> int | None:
    """The Sit & Go whose table this is, if the table is closed (the Sit & Go is over)."""
    return (
        Table.objects.filter(pk=table_id, is_tournament=True, is_open=False)
        .values_list("tournament__id", flat=True)
        .first()
    )


@in_db_thread
def _exclusion_message(user) -> str | None:
    exclusion = responsible.exclusion_active(player=user)
    return None if exclusion is None else responsible.exclusion_message(exclusion)


@in_db_thread
def _snapshot_for(table_id: int, user) -> TableSnapshot:
    """A table deleted by staff is `no_table`, as for a service. Read from the database on
    the sockets' database threads, not in the table's turn at its owner: every frame carries
    the table's version, so a snapshot read beside a command is never applied out of order
    (docs/protocol.md "Versions and resync")."""
    try:
        return table_snapshot_for(table=Table(pk=table_id), player=user)
    except Table.DoesNotExist as error:
        raise services.TableError("no_table", _("There is no such table.")) from error


async def _call_service(command: Command | ConnectionSet, table_id: int, user) -> None:
    """The command runs at the table's owner (poker/owner.py): here, or in the process that
    holds the table; a refusal there is raised here all the same."""
    await owner.socket_command_run(table_id, "poker.command", command, user)
