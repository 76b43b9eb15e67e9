"""The base of the room's sockets (table, live Showdown, lobby): one way to read a frame, one
error frame, one language (docs/protocol.md "Error frames").

`TableSocket` is the base of the sockets at a table whose owner numbers its changes (poker
tables and live Showdown tables, poker/owner.py): the reconnect limit, one socket per player
and table (a second tab supersedes the first), the heartbeat, the frames forwarded as they
were built, and `resync since=<version>` (docs/protocol.md "Versions and resync").

A consumer names its `protocol` (config.frames) and handles the commands it parses to; a
frame the protocol refuses, and any `Refused` its handler raises, becomes the one error frame
to this socket alone, and the socket stays open. A bug in a handler is logged and answered as
`server_error`: it must not cost the player their socket.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import parse_qs

from asgiref.sync import sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import gettext as _

from config.errors import Refused
from config.frame_log import Missed
from config.frames import (
    HeartbeatFrame,
    Ping,
    PongFrame,
    Protocol,
    Refusal,
    ResyncFrame,
    SupersededFrame,
    parse_frame,
    refusal_for,
)
from config.i18n import socket_language_activate
from config.ratelimit import rate_limit_hit

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
                pong: PongFrame = {"type": "pong", "echo": command.echo}
                await self.send_frame(pong)
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

    async def send_frame(self, frame: Mapping[str, Any]) -> None:
        """One frame (a TypedDict of config.frames or of the socket's own frames), as JSON."""
        await self.send(text_data=json.dumps(frame, separators=(",", ":")))

    async def send_error(self, code: str, message: str) -> None:
        """An error frame not answering any frame (a refused connection says why)."""
        await self.send_frame(Refusal(code, message).frame())


CLOSE_SUPERSEDED = 4409
CLOSE_TOO_MANY_RECONNECTS = 4429
SNAPSHOT_MIN_SECONDS = 1.0  # a page may ask for a snapshot this often (each reads the database)
# A resync that finds a later version kept but not the next one (a change committed by another
# process, its frames not kept yet) reads the log again this often, this many times, before it
# answers with a snapshot.
RESYNC_HOLE_WAIT_SECONDS = 0.02
RESYNC_HOLE_TRIES = 10


def since_of(scope) -> int | None:
    """The `since` of a reconnecting page's socket address (`?since=<version>`), or None (a
    page opening afresh, or anything that is not a version: it gets a snapshot)."""
    values = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("since", [])
    if len(values) != 1 or not re.fullmatch(r"[0-9]{1,16}", values[0]):
        return None
    return int(values[0])


@sync_to_async
def reconnect_allowed(key: str) -> bool:
    """Count this socket against the player's reconnects to this table (all processes)."""
    return rate_limit_hit(
        key=key,
        limit=settings.POKER_RECONNECT_LIMIT,
        window_seconds=settings.POKER_RECONNECT_WINDOW_SECONDS,
    )


class TableSocket(FrameConsumer):
    """A socket at a table with versioned frames. A subclass reads what its socket missed
    (`frames_missed`) and its whole state (`snapshot_send`); the channel-layer messages it
    gets are the room's (poker.broadcast.frames_send and send_heartbeats)."""

    snapshot_asked_at = float("-inf")  # loop time of the last snapshot the page asked for
    superseded = False
    resync_answering: asyncio.Task | None = None  # the page's `resync` being answered
    resyncs_coalesced = 0  # `resync` frames that came while one was being answered
    resyncs_from_memory = 0  # answered from the frames this process sent (`frames_missed_here`)

    async def reconnect_refused(self, key: str) -> bool:
        """Count this socket (`key`: the player and table); past the limit it is accepted only
        to say why (a close before accepting reaches a browser as 1006), then closed. It joins
        nothing and touches no seat, so the table hears nothing of it."""
        if await reconnect_allowed(key):
            return False
        await self.accept()
        await self.send_error(
            "too_many_reconnects",
            _(
                "This table was opened too many times in a short while; wait "
                "a minute and reload the page."
            ),
        )
        await self.close(code=CLOSE_TOO_MANY_RECONNECTS)
        return True

    async def older_tabs_step_aside(self, user_group: str) -> None:
        """Older sockets of this player at this table close (`superseded`) before this one
        joins the player's group."""
        await self.channel_layer.group_send(
            user_group, {"type": "table.supersede", "channel": self.channel_name}
        )

    async def hello_send(self) -> None:
        """The socket's first frame: a snapshot, or what a page reconnecting with `?since=`
        missed (a snapshot when that is gone)."""
        since = since_of(self.scope)
        if since is None:
            await self.snapshot_send()
        else:
            await self.resync_send(since, hello=True)

    async def frames_missed(self, since: int) -> Missed | None:
        raise NotImplementedError

    def frames_missed_here(self, since: int) -> Missed | None:
        """What this socket missed after `since`, from the frames this process sent itself
        when the table's owner is this process (config.frame_log.frames_missed_here: no I/O,
        run on the loop); None: ask the log (`frames_missed`)."""
        return None

    async def snapshot_send(self) -> None:
        """The whole state now, with `heartbeat_seconds`."""
        raise NotImplementedError

    async def resync_hello(self, frame: ResyncFrame) -> ResyncFrame:
        """A reconnecting page's resync, with what it adds to tell the page what a snapshot
        would have."""
        return {**frame, "heartbeat_seconds": settings.POKER_HEARTBEAT_SECONDS}

    async def resync_send(self, since: int, *, hello: bool = False) -> None:
        """The frames this socket missed after `since`, from the frame log, in one `resync`
        frame (its own private parts only: the log is read for this socket's user); a snapshot
        when the log no longer holds them. `hello`: a page reconnecting (`resync_hello`).
        On the process of the table's owner the frames it sent itself answer first."""
        missed = self.frames_missed_here(since)
        if missed is not None:
            self.resyncs_from_memory += 1
        else:
            missed = await self.frames_missed(since)
        for _try in range(RESYNC_HOLE_TRIES):
            if missed is None or missed.complete or missed.frames:
                break
            await asyncio.sleep(RESYNC_HOLE_WAIT_SECONDS)
            missed = await self.frames_missed(since)
        if missed is None or not (missed.complete or missed.frames):
            # Gone: the whole state, though not more often than a page may ask for it.
            loop = asyncio.get_running_loop()
            wait = self.snapshot_asked_at + SNAPSHOT_MIN_SECONDS - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            self.snapshot_asked_at = loop.time()
            await self.snapshot_send()
            return
        frame: ResyncFrame = {
            "type": "resync",
            "since": since,
            "frames": [json.loads(text) for text in missed.frames],
        }
        if hello:
            frame = await self.resync_hello(frame)
        await self.send_frame(frame)

    async def resync_requested(self, command: Any) -> None:
        """The page's `resync` (`command.since`), answered beside the socket's other frames (the
        table's frames go on reaching the page meanwhile). At most one is answered at a time: one
        that comes while another is being answered is folded into that answer, which holds
        every frame after the older `since` to the newest kept, and costs no read of its own (a
        page sends one at a time; docs/protocol.md "Versions and resync")."""
        if self.resync_answering is not None and not self.resync_answering.done():
            self.resyncs_coalesced += 1
            return
        self.resync_answering = asyncio.create_task(self._resync_answer(command))

    async def _resync_answer(self, command: Any) -> None:
        try:
            await self.resync_send(command.since)
        except Refused as error:
            await self.send_frame(refusal_for(error, command).frame())
        except Exception:
            user = getattr(self.scope.get("user"), "pk", None)
            log.exception("%s: a resync for user %s failed", self.scope.get("path"), user)
            fault = Refused("server_error", _("Something went wrong on our side; nothing changed."))
            with contextlib.suppress(Exception):  # the socket may have closed meanwhile
                await self.send_frame(refusal_for(fault, command).frame())

    async def websocket_disconnect(self, message: dict) -> None:
        if self.resync_answering is not None:
            self.resync_answering.cancel()
        await super().websocket_disconnect(message)

    async def snapshot_requested(self) -> None:
        """The whole state again, at most once a second."""
        now = asyncio.get_running_loop().time()
        if now - self.snapshot_asked_at < SNAPSHOT_MIN_SECONDS:
            raise Refused("too_soon", _("Ask for a snapshot at most once a second."))
        self.snapshot_asked_at = now
        await self.snapshot_send()

    # -- from the channel layer

    async def table_update(self, message: dict) -> None:
        """A change broadcast after commit to the table's group: the public frame, already
        JSON (poker.broadcast.frames_send), forwarded as it is."""
        await self.send(text_data=message["text"])

    async def table_private(self, message: dict) -> None:
        """This player's own part of a change, sent to their group alone."""
        await self.send(text_data=message["text"])

    async def table_heartbeat(self, message: dict) -> None:
        """The room's periodic beat through the table's group (docs/protocol.md): it proves
        this socket is still in the group and tells the page which version is current."""
        beat: HeartbeatFrame = {"type": "heartbeat", "version": message["version"]}
        await self.send_frame(beat)

    async def table_supersede(self, message: dict) -> None:
        if message["channel"] == self.channel_name:
            return
        self.superseded = True
        superseded: SupersededFrame = {"type": "superseded"}
        await self.send_frame(superseded)
        await self.close(code=CLOSE_SUPERSEDED)
