"""The table socket (docs/protocol.md): a snapshot on connect, then each change as it happens.

Thin edge: it checks the frame's shape, calls a service (which owns the rules and the
transaction) and forwards broadcasts, keeping only this user's frame. A bad frame gets an
error to this socket alone and changes nothing; the socket stays open.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from typing import Any

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings

from config.channel_health import GroupRejoinMixin
from config.db_pool import DatabaseBusy, refuse_when_pool_exhausted
from config.errors import Refused
from config.inputs import parse_cents, parse_idempotency_key, parse_json_object
from config.ratelimit import rate_limit_hit
from poker import services
from poker.broadcast import group_name, remember_socket_loop, user_group_name
from poker.models import Table
from poker.selectors import table_state_for
from responsible import rules as responsible

log = logging.getLogger(__name__)

CLOSE_UNAUTHENTICATED = 4401
CLOSE_EXCLUDED = 4403
CLOSE_NO_TABLE = 4404
CLOSE_SUPERSEDED = 4409
CLOSE_TOO_MANY_RECONNECTS = 4429
MAX_FRAME_BYTES = 4096  # of UTF-8, as sent on the wire (not characters)
SNAPSHOT_MIN_SECONDS = 1.0  # a page may ask for a snapshot this often (each reads the database)


class FrameError(Refused):
    """A frame of the wrong shape, refused before any service sees it."""


def _int_field(frame: dict, name: str, *, amount: bool = False, nullable: bool = False) -> Any:
    value = frame.get(name)
    if value is None and nullable:
        return None
    if amount:
        return parse_cents(value, field=name, error=FrameError)
    if not isinstance(value, int) or isinstance(value, bool):
        raise FrameError("bad_field", f"{name} must be a whole number, not {value!r}.")
    return value


def _bool_field(frame: dict, name: str) -> bool:
    value = frame.get(name, False)
    if not isinstance(value, bool):
        raise FrameError("bad_field", f"{name} must be true or false, not {value!r}.")
    return value


class TableConsumer(GroupRejoinMixin, AsyncWebsocketConsumer):
    snapshot_asked_at = float("-inf")  # loop time of the last snapshot the page asked for

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.joined = False
        self.superseded = False
        self.you: dict | None = None
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        if not await _reconnect_allowed(self.table_id, self.user.pk):
            # Accepted only to say why (a close before accepting reaches a browser as 1006);
            # it joins nothing and touches no seat, so the table hears nothing of it.
            await self.accept()
            await self.send_error(
                "too_many_reconnects",
                "This table was opened too many times in a short while; wait a minute and "
                "reload the page.",
                None,
            )
            await self.close(code=CLOSE_TOO_MANY_RECONNECTS)
            return
        if not await _table_is_open(self.table_id, self.user):
            await self.close(code=CLOSE_NO_TABLE)
            return
        excluded = await _exclusion_message(self.user)
        if excluded is not None:
            # A time-out or self-exclusion: accepted only to say why (like the reconnect limit).
            await self.accept()
            await self.send_error("excluded", excluded, None)
            await self.close(code=CLOSE_EXCLUDED)
            return
        remember_socket_loop(asyncio.get_running_loop())
        self.group = group_name(self.table_id)
        self.user_group = user_group_name(self.table_id, self.user.pk)
        # Older sockets of this player at this table step aside before this one joins.
        await self.channel_layer.group_send(
            self.user_group, {"type": "table.supersede", "channel": self.channel_name}
        )
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.channel_layer.group_add(self.user_group, self.channel_name)
        self.joined = True
        self.groups_rejoin_start([self.group, self.user_group])
        await self.accept()
        await self.snapshot_send()
        await self.call("table_connection_set", connected=True, socket=self.channel_name)

    async def disconnect(self, code: int) -> None:
        if not self.joined:
            return
        await self.groups_rejoin_stop()
        await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.channel_layer.group_discard(self.user_group, self.channel_name)
        if not self.superseded:
            # The table may be gone (deleted by staff): then nobody is left to tell.
            # With every database connection busy it stays marked connected (no grace time is
            # added) until the player's next socket; their turns still time out as usual.
            with contextlib.suppress(services.TableError, DatabaseBusy):
                await self.call("table_connection_set", connected=False, socket=self.channel_name)

    # -- from the client

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        seq = None
        try:
            if text_data is None or _utf8_size(text_data) > MAX_FRAME_BYTES:
                raise FrameError("bad_frame", "Send one JSON text frame of at most 4 KiB.")
            try:
                frame = parse_json_object(text_data, what="frame")
            except Refused as error:  # not JSON, not an object, or nested absurdly deep
                raise FrameError("bad_frame", error.message) from error
            if not isinstance(frame.get("type"), str):
                raise FrameError("bad_frame", 'A frame is a JSON object with a string "type".')
            if frame["type"] == "act" and _is_int(frame.get("seq")):
                seq = frame["seq"]
            await self.handle(frame)
        except Refused as error:  # a bad frame, or a table or cashier service saying no
            await self.send_error(error.code, error.message, seq)
        except Exception:  # a bug must not cost the player their socket
            log.exception("table %s: frame from user %s failed", self.table_id, self.user.pk)
            await self.send_error(
                "server_error", "Something went wrong on our side; nothing changed.", seq
            )

    async def handle(self, frame: dict) -> None:
        kind = frame["type"]
        if kind == "ping":
            await self.send_frame({"type": "pong", "echo": frame.get("echo")})
        elif kind == "act":
            action = frame.get("action")
            if not isinstance(action, str):
                raise FrameError("bad_field", 'action must be a string such as "call".')
            amount = frame.get("amount")
            if amount is not None:
                amount = _int_field(frame, "amount", amount=True)
            await self.call(
                "table_act",
                action=action,
                amount=amount,
                turn=_int_field(frame, "turn"),
                seq=_int_field(frame, "seq"),
            )
        elif kind == "sit":
            await self.call(
                "table_sit",
                seat_number=_int_field(frame, "seat"),
                buy_in=_int_field(frame, "buy_in", amount=True),
                post_big_blind=_bool_field(frame, "post_big_blind"),
                idempotency_key=self.idempotency_key(frame, "sit"),
            )
            await self.call("table_connection_set", connected=True, socket=self.channel_name)
        elif kind == "sit_out":
            await self.call("table_sit_out")
        elif kind == "sit_in":
            await self.call("table_sit_in", post_big_blind=_bool_field(frame, "post_big_blind"))
        elif kind == "post_big_blind":
            await self.call("table_big_blind_choose", post_now=True)
        elif kind == "wait_big_blind":
            await self.call("table_big_blind_choose", post_now=False)
        elif kind == "top_up":
            await self.call(
                "table_top_up",
                amount=_int_field(frame, "amount", amount=True),
                idempotency_key=self.idempotency_key(frame, "top-up"),
            )
        elif kind == "leave":
            await self.call("table_leave")
        elif kind == "snapshot":
            await self.snapshot_requested()
        else:
            raise FrameError("unknown_type", f"The table does not know {kind!r} frames.")

    def idempotency_key(self, frame: dict, kind: str) -> str:
        """The client's `key` (so a resent frame moves money once), else a fresh one."""
        key = frame.get("key")
        if key is None:
            return f"{kind}-{uuid.uuid4()}"
        key = parse_idempotency_key(key, field="key", min_length=8, max_length=64, error=FrameError)
        return f"{kind}-{self.table_id}-{key}"

    async def call(self, name: str, **kwargs: Any) -> None:
        await _call_service(name, self.table_id, self.user, kwargs)

    # -- from the channel layer

    async def table_update(self, message: dict) -> None:
        """A change broadcast after commit: forward this user's frame, or the public one."""
        frame = message["frames"].get(str(self.user.pk))
        if frame is not None:
            self.you = frame["state"]["you"]
        else:
            frame = message["public"]
            frame = {**frame, "state": {**frame["state"], "you": self.you}}
        await self.send_frame(frame)

    async def table_heartbeat(self, message: dict) -> None:
        """The room's periodic beat through the table's group (docs/protocol.md): it proves
        this socket is still in the group and tells the page which version is current."""
        await self.send_frame({"type": "heartbeat", "version": message["version"]})

    # -- a silent socket heals (config/channel_health.py)

    async def snapshot_send(self) -> None:
        """The whole STATE now, read from the database, with the heartbeat the page expects."""
        state = await _state_for(self.table_id, self.user)
        self.you = state["you"]
        frame = {
            "type": "snapshot",
            "state": state,
            "heartbeat_seconds": settings.POKER_HEARTBEAT_SECONDS,
        }
        await self.send_frame(frame)

    async def snapshot_requested(self) -> None:
        """A page that heard no heartbeat, or a newer version than it shows, asks again: join
        the groups again at once (the channel layer may have lost them) and answer."""
        now = asyncio.get_running_loop().time()
        if now - self.snapshot_asked_at < SNAPSHOT_MIN_SECONDS:
            raise FrameError("too_soon", "Ask for a snapshot at most once a second.")
        self.snapshot_asked_at = now
        if not self.superseded:
            await self.groups_rejoin()
        await self.snapshot_send()

    async def table_supersede(self, message: dict) -> None:
        if message["channel"] == self.channel_name:
            return
        self.superseded = True
        await self.send_frame({"type": "superseded"})
        await self.close(code=CLOSE_SUPERSEDED)

    async def table_player_excluded(self, message: dict) -> None:
        """The player started a time-out or self-exclusion: say so and close; the seat is
        already leaving after the hand (responsible.services.exclusion_start)."""
        await self.send_frame({"type": "excluded", "message": message["message"]})
        await self.close(code=CLOSE_EXCLUDED)

    async def send_frame(self, frame: dict) -> None:
        await self.send(text_data=json.dumps(frame, separators=(",", ":")))

    async def send_error(self, code: str, message: str, seq: int | None) -> None:
        await self.send_frame({"type": "error", "code": code, "message": message, "seq": seq})


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _utf8_size(text: str) -> int:
    """Bytes on the wire: "€" is one character but three bytes."""
    return len(text.encode("utf-8", "surrogatepass"))


@sync_to_async
def _reconnect_allowed(table_id: int, user_id: int) -> bool:
    """Count this socket against the player's reconnects to this table (all processes)."""
    return rate_limit_hit(
        key=f"table-socket:{table_id}:{user_id}",
        limit=settings.POKER_RECONNECT_LIMIT,
        window_seconds=settings.POKER_RECONNECT_WINDOW_SECONDS,
    )


@database_sync_to_async
def _table_is_open(table_id: int, user) -> bool:
    """Open tables take anyone; a closed one only its seated players (so they can leave)."""
    table = Table.objects.filter(pk=table_id).first()
    return table is not None and (table.is_open or table.seats.filter(player=user).exists())


@database_sync_to_async
def _exclusion_message(user) -> str | None:
    exclusion = responsible.exclusion_active(player=user)
    return None if exclusion is None else responsible.exclusion_message(exclusion)


@database_sync_to_async
def _state_for(table_id: int, user) -> dict:
    return table_state_for(table=Table(pk=table_id), player=user)


@database_sync_to_async
def _call_service(name: str, table_id: int, user, kwargs: dict) -> None:
    """No free database connection in time is a refusal (`busy`), answered like any other."""
    with refuse_when_pool_exhausted():
        getattr(services, name)(table=table_id, player=user, **kwargs)
