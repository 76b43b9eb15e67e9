"""The table socket (docs/protocol.md): a snapshot on connect, then each change as it happens.

Thin edge: it checks the frame's shape, calls a service (which owns the rules and the
transaction) and forwards broadcasts: the table's public frames and this user's own private
ones. A bad frame gets an error to this socket alone and changes nothing; the socket stays
open.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncWebsocketConsumer
from django.conf import settings
from django.utils.translation import gettext as _

from config.channel_health import GroupRejoinMixin
from config.db_pool import DatabaseBusy, refuse_when_pool_exhausted
from config.db_threads import in_db_thread
from config.errors import Refused
from config.i18n import socket_language_activate
from config.inputs import parse_cents, parse_idempotency_key, parse_json_object
from config.ratelimit import rate_limit_hit
from poker import services
from poker.broadcast import (
    group_name,
    player_group_name,
    remember_socket_loop,
    user_group_name,
)
from poker.models import Table
from poker.selectors import table_snapshot_for
from responsible import rules as responsible

log = logging.getLogger(__name__)
T = TypeVar("T")

CLOSE_UNAUTHENTICATED = 4401
CLOSE_EXCLUDED = 4403
CLOSE_NO_TABLE = 4404
CLOSE_SUPERSEDED = 4409
CLOSE_TOO_MANY_RECONNECTS = 4429
MAX_FRAME_BYTES = 4096  # of UTF-8, as sent on the wire (not characters)
SNAPSHOT_MIN_SECONDS = 1.0  # a page may ask for a snapshot this often (each reads the database)


class FrameError(Refused):
    """A frame of the wrong shape, refused before any service sees it."""


# -- inbound: one typed command per frame type, checked before any service runs
#
# Each field has one rule and one code: a whole number or a flag of the wrong kind is
# `bad_field`; money goes through the room's one amount parser (config.inputs.parse_cents) and
# is `bad_amount`. A command's fields are its service's keyword arguments.


def _whole(frame: dict, name: str) -> int:
    value = frame.get(name)
    if not _is_int(value):
        raise FrameError(
            "bad_field",
            _("%(name)s must be a whole number, not %(value)s.")
            % {"name": name, "value": repr(value)},
        )
    return value


def _amount(frame: dict, name: str) -> int:
    return parse_cents(frame.get(name), field=name, error=FrameError)


def _flag(frame: dict, name: str) -> bool:
    value = frame.get(name, False)
    if not isinstance(value, bool):
        raise FrameError(
            "bad_field",
            _("%(name)s must be true or false, not %(value)s.")
            % {"name": name, "value": repr(value)},
        )
    return value


def _idempotency_key(frame: dict, kind: str, table_id: int) -> str:
    """The client's `key` (so a resent frame moves money once), else a fresh one."""
    key = frame.get("key")
    if key is None:
        return f"{kind}-{uuid.uuid4()}"
    key = parse_idempotency_key(key, field="key", min_length=8, max_length=64, error=FrameError)
    return f"{kind}-{table_id}-{key}"


@dataclass(frozen=True)
class Act:
    """`act`: an action for `turn`, with the client's `seq` (its echo in an error)."""

    action: str
    amount: int | None
    turn: int
    seq: int

    @classmethod
    def parse(cls, frame: dict, table_id: int) -> Act:
        action = frame.get("action")
        if not isinstance(action, str):
            raise FrameError("bad_field", _('action must be a string such as "call".'))
        amount = None if frame.get("amount") is None else _amount(frame, "amount")
        return cls(action, amount, turn=_whole(frame, "turn"), seq=_whole(frame, "seq"))


@dataclass(frozen=True)
class Sit:
    """`sit`: a seat, a buy-in, and post a big blind now or wait for it."""

    seat_number: int
    buy_in: int
    post_big_blind: bool
    idempotency_key: str

    @classmethod
    def parse(cls, frame: dict, table_id: int) -> Sit:
        return cls(
            seat_number=_whole(frame, "seat"),
            buy_in=_amount(frame, "buy_in"),
            post_big_blind=_flag(frame, "post_big_blind"),
            idempotency_key=_idempotency_key(frame, "sit", table_id),
        )


@dataclass(frozen=True)
class SitOut:
    """`sit_out`."""


@dataclass(frozen=True)
class SitIn:
    """`sit_in`: one who missed the big blind posts it now or waits for it."""

    post_big_blind: bool


@dataclass(frozen=True)
class BigBlindChoice:
    """`post_big_blind` (post_now) and `wait_big_blind`."""

    post_now: bool


@dataclass(frozen=True)
class TopUp:
    """`top_up`: chips between hands."""

    amount: int
    idempotency_key: str

    @classmethod
    def parse(cls, frame: dict, table_id: int) -> TopUp:
        return cls(_amount(frame, "amount"), _idempotency_key(frame, "top-up", table_id))


@dataclass(frozen=True)
class Leave:
    """`leave`."""


@dataclass(frozen=True)
class SeatOptions:
    """`seat_options`: turn any of the player's seat options on or off (absent: unchanged)."""

    sit_out_next_big_blind: bool | None
    leave_after_hand: bool | None
    auto_top_up: bool | None

    @classmethod
    def parse(cls, frame: dict, table_id: int) -> SeatOptions:
        names = ("sit_out_next_big_blind", "leave_after_hand", "auto_top_up")
        return cls(*(_flag(frame, name) if name in frame else None for name in names))


@dataclass(frozen=True)
class Chat:
    """`chat`: a line to the table (the service checks the text)."""

    text: Any


@dataclass(frozen=True)
class ShowCards:
    """`show_cards`: between hands, show the cards nobody saw in the last hand."""


@dataclass(frozen=True)
class WaitingJoin:
    """`waiting_join`: join this table's waiting list."""


@dataclass(frozen=True)
class WaitingLeave:
    """`waiting_leave`: leave the list, or decline the seat it offers."""


@dataclass(frozen=True)
class ConnectionSet:
    """Not a frame: this socket opening or closing (it marks the seat connected or not)."""

    connected: bool
    socket: str


Command = (
    Act
    | Sit
    | SitOut
    | SitIn
    | BigBlindChoice
    | TopUp
    | Leave
    | SeatOptions
    | Chat
    | ShowCards
    | WaitingJoin
    | WaitingLeave
    | ConnectionSet
)

# Frame type -> its command, from the frame and the table (for idempotency keys). `ping` and
# `snapshot` are answered by the socket itself; any other type is `unknown_type`.
COMMANDS: dict[str, Callable[[dict, int], Command]] = {
    "act": Act.parse,
    "sit": Sit.parse,
    "sit_out": lambda frame, table_id: SitOut(),
    "sit_in": lambda frame, table_id: SitIn(_flag(frame, "post_big_blind")),
    "post_big_blind": lambda frame, table_id: BigBlindChoice(post_now=True),
    "wait_big_blind": lambda frame, table_id: BigBlindChoice(post_now=False),
    "top_up": TopUp.parse,
    "leave": lambda frame, table_id: Leave(),
    "show_cards": lambda frame, table_id: ShowCards(),
    "seat_options": SeatOptions.parse,
    "chat": lambda frame, table_id: Chat(frame.get("text")),
    "waiting_join": lambda frame, table_id: WaitingJoin(),
    "waiting_leave": lambda frame, table_id: WaitingLeave(),
}

# Command -> the service it calls as service(table=..., player=..., **its fields).
SERVICES: dict[type, Callable[..., Any]] = {
    Act: services.table_act,
    Sit: services.table_sit,
    SitOut: services.table_sit_out,
    SitIn: services.table_sit_in,
    BigBlindChoice: services.table_big_blind_choose,
    TopUp: services.table_top_up,
    Leave: services.table_leave,
    ShowCards: services.table_show_cards,
    SeatOptions: services.table_seat_options_set,
    Chat: services.table_chat_send,
    WaitingJoin: services.waiting_list_join,
    WaitingLeave: services.waiting_list_leave,
    ConnectionSet: services.table_connection_set,
}


class TableConsumer(GroupRejoinMixin, AsyncWebsocketConsumer):
    snapshot_asked_at = float("-inf")  # loop time of the last snapshot the page asked for

    async def connect(self) -> None:
        self.user = self.scope.get("user")
        self.table_id = int(self.scope["url_route"]["kwargs"]["table_id"])
        self.joined = False
        self.superseded = False
        if self.user is None or not self.user.is_authenticated:
            await self.close(code=CLOSE_UNAUTHENTICATED)
            return
        await socket_language_activate(self.scope)  # refusals in the player's language
        if not await _reconnect_allowed(self.table_id, self.user.pk):
            # Accepted only to say why (a close before accepting reaches a browser as 1006);
            # it joins nothing and touches no seat, so the table hears nothing of it.
            await self.accept()
            await self.send_error(
                "too_many_reconnects",
                _(
                    "This table was opened too many times in a short while; wait "
                    "a minute and reload the page."
                ),
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
        self.player_group = player_group_name(self.user.pk)
        # Older sockets of this player at this table step aside before this one joins.
        await self.channel_layer.group_send(
            self.user_group, {"type": "table.supersede", "channel": self.channel_name}
        )
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.channel_layer.group_add(self.user_group, self.channel_name)
        await self.channel_layer.group_add(self.player_group, self.channel_name)
        self.joined = True
        self.groups_rejoin_start([self.group, self.user_group, self.player_group])
        # The seat is marked connected before the snapshot is read, so the snapshot shows it and
        # once the page has its snapshot this socket's hello is done. Staff may delete the table
        # at any point after the check above: then the socket closes as for any missing table.
        try:
            await self.run(ConnectionSet(connected=True, socket=self.channel_name))
            await self.accept()
            await self.snapshot_send()
        except services.TableError as error:
            if error.code != "no_table":
                raise
            await self.close(code=CLOSE_NO_TABLE)

    async def disconnect(self, code: int) -> None:
        if not self.joined:
            return
        await self.groups_rejoin_stop()
        await self.channel_layer.group_discard(self.group, self.channel_name)
        await self.channel_layer.group_discard(self.user_group, self.channel_name)
        await self.channel_layer.group_discard(self.player_group, self.channel_name)
        if not self.superseded:
            # The table may be gone (deleted by staff): then nobody is left to tell.
            # With every database connection busy it stays marked connected (no grace time is
            # added) until the player's next socket; their turns still time out as usual.
            with contextlib.suppress(services.TableError, DatabaseBusy):
                await self.run(ConnectionSet(connected=False, socket=self.channel_name))

    # -- from the client

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None) -> None:
        seq = None
        try:
            if text_data is None or _utf8_size(text_data) > MAX_FRAME_BYTES:
                raise FrameError("bad_frame", _("Send one JSON text frame of at most 4 KiB."))
            try:
                frame = parse_json_object(text_data, what="frame")
            except Refused as error:  # not JSON, not an object, or nested absurdly deep
                raise FrameError("bad_frame", error.message) from error
            if not isinstance(frame.get("type"), str):
                raise FrameError("bad_frame", _('A frame is a JSON object with a string "type".'))
            if frame["type"] == "act" and _is_int(frame.get("seq")):
                seq = frame["seq"]
            await self.handle(frame)
        except Refused as error:  # a bad frame, or a table or cashier service saying no
            await self.send_error(error.code, error.message, seq)
        except Exception:  # a bug must not cost the player their socket
            log.exception("table %s: frame from user %s failed", self.table_id, self.user.pk)
            await self.send_error(
                "server_error", _("Something went wrong on our side; nothing changed."), seq
            )

    async def handle(self, frame: dict) -> None:
        kind = frame["type"]
        if kind == "ping":
            await self.send_frame({"type": "pong", "echo": frame.get("echo")})
        elif kind == "snapshot":
            await self.snapshot_requested()
        elif kind in COMMANDS:
            command = COMMANDS[kind](frame, self.table_id)
            await self.run(command)
            if isinstance(command, Sit):  # the new seat is live through this socket
                # The seat is taken already: a busy pool here must not answer "nothing changed".
                # The seat then counts as disconnected until this socket's next hello.
                with contextlib.suppress(DatabaseBusy):
                    await self.run(ConnectionSet(connected=True, socket=self.channel_name))
        else:
            raise FrameError(
                "unknown_type", _("The table does not know %(kind)s frames.") % {"kind": repr(kind)}
            )

    async def run(self, command: Command) -> None:
        await _call_service(command, self.table_id, self.user)

    # -- from the channel layer

    async def table_update(self, message: dict) -> None:
        """A change broadcast after commit to the table's group: the public `update` frame,
        already JSON (poker.broadcast), forwarded as it is."""
        await self.send(text_data=message["text"])

    async def table_private(self, message: dict) -> None:
        """This player's own part of a change, sent to their group alone."""
        await self.send(text_data=message["text"])

    async def player_notice(self, message: dict) -> None:
        """What concerns the player wherever they are (a seat offered at any table), sent to
        every page they have open."""
        await self.send(text_data=message["text"])

    async def table_heartbeat(self, message: dict) -> None:
        """The room's periodic beat through the table's group (docs/protocol.md): it proves
        this socket is still in the group and tells the page which version is current."""
        await self.send_frame({"type": "heartbeat", "version": message["version"]})

    # -- a silent socket heals (config/channel_health.py)

    async def snapshot_send(self) -> None:
        """The whole STATE now, read from the database, with the heartbeat the page expects."""
        snapshot = await _snapshot_for(self.table_id, self.user)
        frame = {
            "type": "snapshot",
            "state": snapshot["state"],
            "log": snapshot["log"],
            "chat": snapshot["chat"],
            "heartbeat_seconds": settings.POKER_HEARTBEAT_SECONDS,
        }
        await self.send_frame(frame)

    async def snapshot_requested(self) -> None:
        """A page that heard no heartbeat, or a newer version than it shows, asks again: join
        the groups again at once (the channel layer may have lost them) and answer."""
        now = asyncio.get_running_loop().time()
        if now - self.snapshot_asked_at < SNAPSHOT_MIN_SECONDS:
            raise FrameError("too_soon", _("Ask for a snapshot at most once a second."))
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


async def _table_is_open(table_id: int, user) -> bool:
    return await _in_table_order(table_id, _table_open_read, table_id, user)


def _table_open_read(table_id: int, user) -> bool:
    """Open tables take anyone; a closed one only its seated players (so they can leave)."""
    table = Table.objects.filter(pk=table_id).first()
    return table is not None and (table.is_open or table.seats.filter(player=user).exists())


@database_sync_to_async
def _exclusion_message(user) -> str | None:
    exclusion = responsible.exclusion_active(player=user)
    return None if exclusion is None else responsible.exclusion_message(exclusion)


async def _snapshot_for(table_id: int, user) -> dict:
    return await _in_table_order(table_id, _snapshot_read, table_id, user)


def _snapshot_read(table_id: int, user) -> dict:
    """A table deleted by staff is `no_table`, as for a service."""
    try:
        return table_snapshot_for(table=Table(pk=table_id), player=user)
    except Table.DoesNotExist as error:
        raise services.TableError("no_table", _("There is no such table.")) from error


class _TableQueue:
    """This process's calls for one table, one at a time (see `_call_service`)."""

    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


_table_queues: dict[int, _TableQueue] = {}


async def _call_service(command: Command, table_id: int, user) -> None:
    await _in_table_order(table_id, _service_run, command, table_id, user)


async def _in_table_order(table_id: int, func: Callable[..., T], *args: Any) -> T:
    """Run `func` on the sockets' database threads (config/db_threads.py), one call per table
    at a time in this process, first come first served, as on Channels' single thread: the row
    lock orders a table's changes anyway, and this way their broadcasts also leave this process
    in the order they committed, and a snapshot is read after the changes asked for before it
    (the others wait here, holding no thread); calls for different tables run side by side."""
    queue = _table_queues.setdefault(table_id, _TableQueue())
    queue.users += 1
    try:
        async with queue.lock:
            return await in_db_thread(func)(*args)
    finally:
        queue.users -= 1
        if not queue.users:
            del _table_queues[table_id]


def _service_run(command: Command, table_id: int, user) -> None:
    """No free database connection in time is a refusal (`busy`), answered like any other."""
    with refuse_when_pool_exhausted():
        SERVICES[type(command)](table=table_id, player=user, **vars(command))
