"""The table's owner (issue 23, items 1 and 2): every command for a table runs in the one
process that holds the table's lease, so that process's memory of the table (the seats, the
running hand and its engine: poker/services/unit.py) is what the next command starts from.

Each ASGI process runs one owner (started by its first table socket, `owner_start`): a channel
of its own on the channel layer, named with its host and pid in `Table.lease_owner` when it
changes a table (`owner|<host>:<pid>|<channel>`), and a loop that reads that channel. A socket's
command (poker/consumers.py) and a Celery timeout (poker/tasks.py) look up the table's holder
(`holder_of`, cached for a lease time):
- no live owner holds it (no lease, a lapsed one, or one held by a process that runs no owner
  loop: a Celery worker, a management command, a test), or this process holds it: the command
  runs here, and this process takes the lease with the change;
- another process's owner holds it: the command is sent to its channel; the owner runs it and
  answers `owner.reply` (done, or the refusal's code and message, in the asker's language), and
  the socket answers its page as if it had run the command itself.
A command run here because this process believed it held the table is checked under the
table's lock: if another live owner holds the lease, nothing is done (`unit.NotTheOwner`) and
the command goes there.
An owner runs the commands of one table one at a time, in the order they reached it
(`in_table_order`: a first-come-first-served lock per table), and those of different tables
side by side on the process's database threads.

Failover: an owner renews the leases it holds every third of `POKER_TABLE_LEASE_SECONDS`, so a
lease lapses only when its owner has stopped (killed, hung, cut off from PostgreSQL). A socket
waiting for an owner that does not answer looks at the lease again; once it has lapsed, the
command runs in the socket's process, which takes the lease with the next epoch and rebuilds
the table from the database (the hand's snapshot checked against its log). A command is never
sent twice to a live owner: while the lease is alive the socket keeps waiting for the answer.
A Celery timeout is sent to the live owner without waiting (a lost one is found by the sweep
from the deadline the database keeps). The row lock and the fenced write (unit.StaleOwner)
keep two processes that both believe they own a table from both writing.

The embedded room (no Redis) has one process: it runs no owner and every command runs where
it arrives, as before.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from functools import cache
from typing import Any, TypeVar

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.db import connection
from django.utils import timezone, translation
from django.utils.module_loading import import_string
from django.utils.translation import gettext as _

from config.db_pool import BUSY_CODE, DatabaseBusy
from config.db_threads import in_db_thread
from config.errors import Refused
from poker.models import Table
from poker.services import TableError, unit

log = logging.getLogger(__name__)
T = TypeVar("T")

# A lease held by an owner names it as this mark and its channel (an ordinary process-specific
# channel: channels_redis reads one Redis list per process for all of them).
OWNER_MARK = unit.OWNER_MARK

# kind -> the dotted path of a synchronous function(payload) -> str run by the owner (set in
# PokerConfig.ready: the socket's commands and the tables' timeouts).
_handlers: dict[str, str] = {}


def owner_handler_register(kind: str, handler: str) -> None:
    _handlers[kind] = handler


@cache
def _handler(path: str) -> Callable[[dict[str, Any]], str]:
    return import_string(path)


def routing_enabled() -> bool:
    return bool(settings.POKER_OWNER_ROUTING) and not settings.EMBEDDED


def is_owner_channel(name: str) -> bool:
    """Is this lease holder an owner (a process running an owner loop)?"""
    return name.startswith(OWNER_MARK) and name.count("|") == 2


def channel_of(holder: str) -> str:
    """The channel of an owner named in a lease: `owner|<host>:<pid>|<channel>`."""
    return holder.split("|", 2)[2]


def _identity_of(channel: str) -> str:
    return f"{OWNER_MARK}{socket.gethostname()}:{os.getpid()}|{channel}"


# ------------------------------------------------------------------ a table's order in a process


class _TableQueue:
    def __init__(self) -> None:
        self.lock = asyncio.Lock()
        self.users = 0


_table_queues: dict[int, _TableQueue] = {}


async def in_table_order(table_id: int, func: Callable[..., T], *args: Any) -> T:
    """Run `func` on the process's database threads (config/db_threads.py), one call per table
    at a time, first come first served: a table's commands run in the order they reached the
    owner and their broadcasts leave in the order they committed. Calls for different tables
    run side by side. Only commands take this turn: a socket's reads (its snapshot) run on the
    database threads directly, as every frame carries the table's version."""
    queue = _table_queues.setdefault(table_id, _TableQueue())
    queue.users += 1
    try:
        async with queue.lock:
            return await in_db_thread(func)(*args)
    finally:
        queue.users -= 1
        if not queue.users:
            del _table_queues[table_id]


# ------------------------------------------------------------------ the process's owner


class _Owner:
    def __init__(self, channel: str) -> None:
        self.channel = channel
        self.pid = os.getpid()
        self.loop = asyncio.get_running_loop()
        self.replies: dict[str, asyncio.Future] = {}
        self.tasks: set[asyncio.Task] = set()


_owner: _Owner | None = None
_starting: asyncio.Lock | None = None
# table id -> (holder's channel or "" for none live, until when this answer may be used)
_holders: dict[int, tuple[str, float]] = {}


def owner_channel() -> str | None:
    """This process's owner channel, or None when it runs no owner."""
    owner = _owner
    if owner is None or owner.pid != os.getpid() or owner.loop.is_closed():
        return None  # none, a forked child's copy, or one whose loop ended (tests)
    return owner.channel


def owner_identity() -> str | None:
    """This process as a lease holder when it runs an owner (its mark and channel)."""
    channel = owner_channel()
    return None if channel is None else _identity_of(channel)


async def owner_start() -> str | None:
    """Start this process's owner (once): its channel, the loop reading it, and the renewal of
    its leases. Returns the channel (None where routing is off)."""
    global _owner, _starting
    if not routing_enabled():
        return None
    if owner_channel() is not None:
        return owner_channel()
    if _starting is None or _owner is None or _owner.loop is not asyncio.get_running_loop():
        _starting = asyncio.Lock()
    async with _starting:
        if owner_channel() is None:
            layer = get_channel_layer()
            owner = _Owner(await layer.new_channel())
            unit.owner_identity_set(_identity_of(owner.channel))
            loop = asyncio.get_running_loop()
            owner.tasks.add(loop.create_task(_owner_read(owner)))
            owner.tasks.add(loop.create_task(_owner_renew(owner)))
            _owner = owner
            log.info("table owner %s started", owner.channel)
    return owner_channel()


async def owner_stop() -> None:
    """Stop this process's owner (tests; a process stopping): its loops end, its leases lapse
    in their time and are taken over like a killed owner's."""
    global _owner
    owner, _owner = _owner, None
    unit.owner_identity_set(None)
    if owner is None or owner.loop is not asyncio.get_running_loop():
        return
    for task in list(owner.tasks):
        task.cancel()
    await asyncio.gather(*owner.tasks, return_exceptions=True)


async def _owner_read(owner: _Owner) -> None:
    layer = get_channel_layer()
    while True:
        try:
            message = await layer.receive(owner.channel)
        except asyncio.CancelledError:
            raise
        except Exception:
            log.exception("table owner %s: reading its channel failed", owner.channel)
            await asyncio.sleep(0.5)
            continue
        if message.get("type") == "owner.reply":
            future = owner.replies.pop(message.get("request", ""), None)
            if future is not None and not future.done():
                future.set_result(message)
        elif message.get("type") == "owner.command":
            # Started now, in arrival order: each takes its table's place in line at once.
            task = asyncio.get_running_loop().create_task(_serve(message))
            owner.tasks.add(task)
            task.add_done_callback(owner.tasks.discard)


async def _serve(message: dict[str, Any]) -> None:
    """Run one command sent to this owner, answer its sender if it waits."""
    reply: dict[str, Any] = {"type": "owner.reply", "request": message.get("request", "")}
    try:
        result = await in_table_order(
            message["table"], _run_here, message["kind"], message["payload"], message.get("lang")
        )
        reply["result"] = result if isinstance(result, str) else ""
    except Refused as refusal:
        reply["code"], reply["message"] = refusal.code, str(refusal.message)
    except Exception:
        log.exception(
            "table owner: a %s command for table %s failed",
            message.get("kind"),
            message.get("table"),
        )
        reply["code"] = "server_error"
        reply["message"] = ""
    if message.get("reply_to"):
        with contextlib.suppress(Exception):
            await get_channel_layer().send(message["reply_to"], reply)


def _run_as_owner(kind: str, payload: dict[str, Any], language: str | None) -> str:
    """Run a command here as the table's owner: refused (`unit.NotTheOwner`, nothing done)
    when another live owner holds the table."""
    with unit.owners_only():
        return _run_here(kind, payload, language)


def _run_here(kind: str, payload: dict[str, Any], language: str | None) -> str:
    path = _handlers[kind]
    if language:
        with translation.override(language):
            return _handler(path)(payload)
    return _handler(path)(payload)


async def _owner_renew(owner: _Owner) -> None:
    """Every third of the lease time: every lease this owner holds runs for a lease time more."""
    while True:
        await asyncio.sleep(settings.POKER_TABLE_LEASE_SECONDS / 3)
        try:
            await in_db_thread(leases_renew)(_identity_of(owner.channel))
        except Exception:
            log.exception("table owner %s: renewing its leases failed", owner.channel)


def leases_renew(holder: str) -> int:
    """One statement: the leases `holder` holds, on tables no change has locked just now (a
    change of its own renews the lease anyway), run for a lease time more. Returns how many."""
    expires = timezone.now() + timedelta(seconds=settings.POKER_TABLE_LEASE_SECONDS)
    with connection.cursor() as cursor:
        cursor.execute(
            f"UPDATE {Table._meta.db_table} SET lease_expires_at = %s WHERE id IN ("
            f"SELECT id FROM {Table._meta.db_table} WHERE lease_owner = %s "
            "FOR UPDATE SKIP LOCKED)",
            [expires, holder],
        )
        return cursor.rowcount


# ------------------------------------------------------------------ who holds a table


def holder_read(table_id: int) -> str:
    """The live owner holding the table's lease, or "" (none, lapsed, or not an owner)."""
    row = Table.objects.filter(pk=table_id).values_list("lease_owner", "lease_expires_at").first()
    if row is None:
        return ""
    holder, expires = row
    if not holder or not is_owner_channel(holder) or expires is None or expires <= timezone.now():
        return ""
    return holder


async def holder_of(table_id: int, *, fresh: bool = False) -> str:
    now = time.monotonic()
    cached = _holders.get(table_id)
    if cached is not None and cached[1] > now and not fresh:
        return cached[0]
    holder = await in_db_thread(holder_read)(table_id)
    _holder_is(table_id, holder)
    return holder


def _holder_is(table_id: int, holder: str) -> None:
    """Remember who holds the table for a lease time. A stale answer costs a reload, never a
    wrong change: a command run here, or at an owner that lost the table, takes the row lock
    and the lease; one sent to an owner that died is looked at again while it waits."""
    _holders[table_id] = (holder, time.monotonic() + settings.POKER_TABLE_LEASE_SECONDS)


# ------------------------------------------------------------------ sending a command


async def command_run(table_id: int, kind: str, payload: dict[str, Any]) -> str:
    """Run a command for `table_id` where its owner is: here if this process holds the table
    or nobody live does (this process then takes it), else at the holder's owner. A refusal
    comes back as the same `Refused` code and message."""
    me = owner_identity()
    language = translation.get_language()
    if me is None:
        return await in_table_order(table_id, _run_here, kind, payload, language)
    holder = await holder_of(table_id)
    asked: asyncio.Future | None = None
    while True:
        if not holder or holder == me:
            if asked is not None:
                _forget(asked)
                asked = None
            try:
                result = await in_table_order(table_id, _run_as_owner, kind, payload, language)
            except unit.NotTheOwner as elsewhere:
                # What this process remembered was stale: another owner took the table.
                holder = elsewhere.holder
                _holder_is(table_id, holder)
                continue
            _holder_is(table_id, me)
            return result
        if asked is None:
            asked = await _ask(holder, table_id, kind, payload, language)
        try:
            reply = await asyncio.wait_for(asyncio.shield(asked), timeout=_look_again_seconds())
        except TimeoutError:
            # A silent owner: keep waiting while its lease is alive (it is busy, not gone);
            # once it lapsed, or another owner took the table, run it there.
            now_holder = await holder_of(table_id, fresh=True)
            if now_holder != holder:
                _forget(asked)
                asked, holder = None, now_holder
            continue
        return _answer(reply)


async def _ask(
    holder: str, table_id: int, kind: str, payload: dict[str, Any], language: str | None
) -> asyncio.Future:
    owner = _owner
    assert owner is not None
    request = uuid.uuid4().hex
    future = asyncio.get_running_loop().create_future()
    future.request = request  # type: ignore[attr-defined]
    owner.replies[request] = future
    message = {
        "type": "owner.command",
        "table": table_id,
        "kind": kind,
        "payload": payload,
        "lang": language,
        "reply_to": owner.channel,
        "request": request,
    }
    try:
        await get_channel_layer().send(channel_of(holder), message)
    except Exception as error:
        owner.replies.pop(request, None)
        log.warning("table %s: could not reach its owner %s (%s)", table_id, holder, error)
        raise DatabaseBusy() from error
    return future


def _look_again_seconds() -> float:
    """How long a command waits for a silent owner's answer before it looks at the lease
    again: a dead owner's table is taken over this soon after its lease lapsed."""
    return min(settings.POKER_TABLE_LEASE_SECONDS / 3, 0.5)


def _forget(future: asyncio.Future) -> None:
    owner = _owner
    if owner is not None:
        owner.replies.pop(getattr(future, "request", ""), None)
    future.cancel()


def _answer(reply: dict[str, Any]) -> str:
    code = reply.get("code")
    if code is None:
        return reply.get("result", "")
    if code == BUSY_CODE:
        raise DatabaseBusy()
    if code == "server_error":
        raise RuntimeError("the table's owner failed to run the command (its log says why)")
    raise TableError(
        code, reply.get("message") or _("Something went wrong on our side; nothing changed.")
    )


def command_send_sync(table_id: int, kind: str, payload: dict[str, Any]) -> str | None:
    """From synchronous code outside the sockets (a Celery timeout): send the command to the
    table's live owner without waiting, and return "owner"; None when no live owner other than
    this process holds the table (the caller runs it itself)."""
    if not routing_enabled():
        return None
    holder = holder_read(table_id)
    if not holder or holder == unit.process_identity():
        return None
    message = {
        "type": "owner.command",
        "table": table_id,
        "kind": kind,
        "payload": payload,
        "lang": None,
        "reply_to": "",
        "request": "",
    }
    try:
        async_to_sync(get_channel_layer().send)(channel_of(holder), message)
    except Exception:
        log.exception("table %s: could not send to its owner %s; running here", table_id, holder)
        return None
    return "owner"
