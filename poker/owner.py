"""The table's owner: every command for a table runs in the one
process that holds the table's lease, so that process's memory of the table (its row, the
seats, the running hand and its engine: poker/services/memory.py) is what the next command
starts from. While it holds the lease the owner does not read the table back per action: a
mid-hand action is one statement written from memory, fenced by the table's version and lease
epoch (poker/services/unit.py `table_apply`, poker/services/action_write.py); a
hand's end and the deal after it are each one transaction with their ledger entries, also
from memory without the row's lock, fenced the same way (tests/poker/test_owner_statements.py
counts the statements). The seats and the hand are read, and the hand replayed, only when a
process takes the table over (no memory at that version and epoch:
poker/services/loading.py), after a refused fenced write (another process moved the table, its
lease or a setting), or to confirm what the memory would refuse or leave alone. Seating,
buy-ins, money moves and staff tools lock the row and recall the memory at that version. A
caller with no live owner (a test, staff in a process running no owner, Celery) takes the
lease with its change and so becomes the table's owner.

Each ASGI process runs one owner (started by its first table socket, `owner_start`): a channel
of its own on the channel layer, named with its host and pid in `Table.lease_owner` when it
changes a table (`owner|<host>:<pid>|<channel>`), and a loop that reads that channel. A socket's
command (poker/consumers.py) and a Celery timeout (poker/tasks.py) look up the table's holder
(`holder_of`, cached for a lease time):
- this process holds it: the command runs here;
- no live owner holds it (no lease, a lapsed one, or one held by a process that runs no owner
  loop: a Celery worker, a management command, a test): it goes to the owner the table's id
  chooses among the owners alive (`owner_for`: rendezvous hashing over the owners announcing
  themselves in `TableOwner`), here or elsewhere, and that
  process takes the lease with the change; so a room's tables spread evenly over its owners
  whichever process their first command reached;
- another process's owner holds it: the command is sent to its channel; the owner runs it and
  answers `owner.reply` (done, or the refusal's code and message, in the asker's language), and
  the socket answers its page as if it had run the command itself.
A command run here because this process believed it held the table is checked under the
table's lock: if another live owner holds the lease, nothing is done (`leases.NotTheOwner`) and
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
A Celery timeout, and what the sweep finds due, is sent to the live owner without waiting (a
lost one is found by the next sweep from what the database keeps). A staff tool waits for the
owner's answer (`command_ask_sync`: from a thread beside this process's owner, or on a channel
of its own in a process running none) and is told the table is busy if the live owner stays
silent. The row lock and the fenced write (leases.StaleOwner)
keep two processes that both believe they own a table from both writing.

The embedded room (`manage.py runroom`: the in-memory layer, Celery's worker and beat as
threads) runs this same code in its one process: its first table socket starts the owner,
which takes the leases and renews them; the sockets' commands run through `command_run` and
`in_table_order`; a timeout from the worker thread is sent to the owner's channel like any
other process's (the in-memory layer's queues wake their reader only from its own loop, so
that send is handed to the owner's loop: `_send_sync`).

Scale out (docs/operations.md): a process with `POKER_OWNER_RUN` off routes only. It starts a
channel for its answers, holds no lease, renews none and does not announce itself; its
sockets' commands go to the live owner holding the table, or to `owner_for`'s choice. With no
owner alive it runs the command itself.

Two kinds of table are owned this way: poker tables (`Table`) and live Omaha Showdown tables
(`showdown.models.ShowdownTable`). Each kind names the model whose row holds
its lease (`lease_model_register`), and each command kind the kind of table it is for
(`owner_handler_register(..., table_kind=...)`); a kind's table ids are its own (a poker
table 3 and a Showdown table 3 are two tables, with two leases and two lines of commands).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import socket
import time
import uuid
import weakref
from collections.abc import Callable, Hashable
from datetime import datetime, timedelta
from typing import Any, TypeVar

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection, connections, models
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from config import leases
from config.db_pool import BUSY_CODE, DatabaseBusy
from config.db_threads import in_db_thread
from config.errors import Refused
from poker.models import Table, TableOwner
from poker.services import TableError

log = logging.getLogger(__name__)
T = TypeVar("T")

# A lease held by an owner names it as this mark and its channel (an ordinary process-specific
# channel: channels_redis reads one Redis list per process for all of them).
OWNER_MARK = leases.OWNER_MARK

# kind -> the synchronous function(payload) -> str the owner runs for it (set in the apps'
# `ready`: the sockets' commands, the tables' timeouts, the sweep's finds, the staff's tools).
_handlers: dict[str, Callable[[dict[str, Any]], str]] = {}
# command kind -> the kind of table it is for; table kind -> the model holding its leases.
_table_kinds: dict[str, str] = {}
POKER = "poker"
_lease_models: dict[str, type[models.Model]] = {POKER: Table}
_lease_renewed: dict[str, Callable[[list[int], datetime], None]] = {}


def owner_handler_register(
    kind: str, handler: Callable[[dict[str, Any]], str], *, table_kind: str = POKER
) -> None:
    _handlers[kind] = handler
    _table_kinds[kind] = table_kind


def lease_model_register(
    table_kind: str,
    model: type[models.Model],
    renewed: Callable[[list[int], datetime], None] | None = None,
) -> None:
    """Tables of `table_kind` keep their lease in `model`'s rows (the fields `lease_owner`,
    `lease_epoch`, `lease_expires_at`, as `Table`'s); `renewed(table_ids, expires_at)` hears
    of the leases the owner renewed (its memory of those tables holds them that long)."""
    _lease_models[table_kind] = model
    if renewed is not None:
        _lease_renewed[table_kind] = renewed


def _table_kind(kind: str) -> str:
    return _table_kinds.get(kind, POKER)


def order_key(table_kind: str, table_id: int) -> Hashable:
    """The line a table's calls wait in (`in_table_order`): a poker table's is its id."""
    return table_id if table_kind == POKER else (table_kind, table_id)


def routing_enabled() -> bool:
    return bool(settings.POKER_OWNER_ROUTING)


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


_table_queues: dict[Hashable, _TableQueue] = {}


async def in_table_order(table_id: Hashable, func: Callable[..., T], *args: Any) -> T:
    """Run `func` on the process's database threads (config/db_threads.py), one call per table
    at a time, first come first served: a table's commands run in the order they reached the
    owner and their broadcasts leave in the order they committed (the call hands its sends to
    the process's first-in-first-out line of sends before it returns, config/after_commit.py,
    so the next call does not wait for them). Calls for different tables
    run side by side. Only commands take this turn: a socket's reads (its snapshot) run on the
    database threads directly, as every frame carries the table's version. `table_id` is a
    poker table's id, or another kind's `order_key`."""
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
    def __init__(self, channel: str, *, owns: bool = True) -> None:
        self.channel = channel
        self.owns = owns  # False: a router (POKER_OWNER_RUN off), its channel only for answers
        self.pid = os.getpid()
        self.loop = asyncio.get_running_loop()
        self.replies: dict[str, asyncio.Future] = {}
        self.tasks: set[asyncio.Task] = set()
        # What /healthz reports of it (`owner_report`): what to watch when scaling out.
        self.run_here = 0  # commands of this process's sockets run here
        self.sent = 0  # commands of this process's sockets sent to another owner
        self.served: dict[str, dict[str, int]] = {}  # sent to it: kind -> result -> count
        self.leases = 0  # the leases it held at its last renewal
        self.renewed_at: float | None = None  # monotonic time of that renewal


_owner: _Owner | None = None
_starting: asyncio.Lock | None = None
# (table kind, table id) -> (holder's channel or "" for none live, until when it may be used)
_holders: dict[tuple[str, int], tuple[str, float]] = {}


def owner_channel() -> str | None:
    """This process's owner channel, or None when it runs no owner."""
    owner = _owner
    if owner is None or owner.pid != os.getpid() or owner.loop.is_closed():
        return None  # none, a forked child's copy, or one whose loop ended (tests)
    return owner.channel


def owner_identity() -> str | None:
    """This process as a lease holder when it runs an owner (its mark and channel)."""
    channel = owner_channel()
    if channel is None or _owner is None or not _owner.owns:
        return None
    return _identity_of(channel)


async def owner_start() -> str | None:
    """Start this process's owner (once): its channel, the loop reading it, and the renewal of
    its leases; with `POKER_OWNER_RUN` off, only the channel and its reader (a router). Returns
    the channel (None where routing is off)."""
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
            owns = bool(settings.POKER_OWNER_RUN)
            owner = _Owner(await layer.new_channel(), owns=owns)
            loop = asyncio.get_running_loop()
            owner.tasks.add(loop.create_task(_owner_read(owner)))
            if owns:
                leases.owner_identity_set(_identity_of(owner.channel))
                await in_db_thread(owner_announce)(_identity_of(owner.channel))
                owner.tasks.add(loop.create_task(_owner_renew(owner)))
            _owner = owner
            log.info("table %s %s started", "owner" if owns else "router", owner.channel)
    return owner_channel()


async def owner_stop() -> None:
    """Stop this process's owner (tests; a process stopping): its loops end, its leases lapse
    in their time and are taken over like a killed owner's."""
    global _owner
    owner, _owner = _owner, None
    leases.owner_identity_set(None)
    if owner is None or owner.loop is not asyncio.get_running_loop():
        return
    for task in list(owner.tasks):
        task.cancel()
    await asyncio.gather(*owner.tasks, return_exceptions=True)
    if owner.owns:
        # Its tables' commands stop coming here now, not when the announcement lapses.
        with contextlib.suppress(Exception):
            await in_db_thread(owner_withdraw)(_identity_of(owner.channel))


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
            task = asyncio.get_running_loop().create_task(_serve(owner, message))
            owner.tasks.add(task)
            task.add_done_callback(owner.tasks.discard)


async def _serve(owner: _Owner, message: dict[str, Any]) -> None:
    """Run one command sent to this owner, answer its sender if it waits."""
    reply: dict[str, Any] = {"type": "owner.reply", "request": message.get("request", "")}
    try:
        key = order_key(_table_kind(message["kind"]), message["table"])
        result = await in_table_order(
            key, _run_here, message["kind"], message["payload"], message.get("lang")
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
    served = owner.served.setdefault(str(message.get("kind")), {})
    result = reply.get("result", "")
    # By refusal code or result word; a result that carries data (a staff tool's) is "done".
    outcome = reply.get("code") or (result if not result or result.isidentifier() else "done")
    served[outcome] = served.get(outcome, 0) + 1
    if message.get("reply_to"):
        with contextlib.suppress(Exception):
            await get_channel_layer().send(message["reply_to"], reply)


def _run_as_owner(kind: str, payload: dict[str, Any], language: str | None) -> str:
    """Run a command here as the table's owner: refused (`leases.NotTheOwner`, nothing done)
    when another live owner holds the table."""
    with leases.owners_only():
        return _run_here(kind, payload, language)


def _run_here(kind: str, payload: dict[str, Any], language: str | None) -> str:
    handler = _handlers[kind]
    if language:
        with translation.override(language):
            return handler(payload)
    return handler(payload)


async def _owner_renew(owner: _Owner) -> None:
    """Every third of the lease time: every lease this owner holds runs for a lease time more."""
    while True:
        await asyncio.sleep(settings.POKER_TABLE_LEASE_SECONDS / 3)
        try:
            name = _identity_of(owner.channel)
            owner.leases = await in_db_thread(leases_renew)(name)
            await in_db_thread(owner_announce)(name)
            owner.renewed_at = time.monotonic()
        except Exception:
            log.exception("table owner %s: renewing its leases failed", owner.channel)


def leases_renew(holder: str) -> int:
    """One statement per kind of table: the leases `holder` holds, on tables no change has
    locked just now (a change of its own renews the lease anyway), run for a lease time more.
    Returns how many."""
    expires = timezone.now() + timedelta(seconds=settings.POKER_TABLE_LEASE_SECONDS)
    renewed = 0
    with connection.cursor() as cursor:
        for kind, model in _lease_models.items():
            table = model._meta.db_table
            cursor.execute(
                f"UPDATE {table} SET lease_expires_at = %s WHERE id IN ("
                f"SELECT id FROM {table} WHERE lease_owner = %s FOR UPDATE SKIP LOCKED)"
                " RETURNING id",
                [expires, holder],
            )
            table_ids = [row[0] for row in cursor.fetchall()]
            renewed += len(table_ids)
            if kind in _lease_renewed:
                _lease_renewed[kind](table_ids, expires)
    return renewed


def owner_announce(name: str) -> None:
    """This owner is alive for a lease time more (`TableOwner`), so tables no live owner holds
    may be sent to it (`owner_for`) though it holds none yet; the rows of owners gone for an
    hour are dropped on the way."""
    now = timezone.now()
    expires = now + timedelta(seconds=settings.POKER_TABLE_LEASE_SECONDS)
    TableOwner.objects.update_or_create(
        name=name, defaults={"expires_at": expires, "route": settings.POKER_OWNER_ROUTE}
    )
    TableOwner.objects.filter(expires_at__lt=now - timedelta(hours=1)).delete()


def owner_withdraw(name: str) -> None:
    """A stopping owner's announcement goes at once (its leases lapse in their time)."""
    TableOwner.objects.filter(name=name).delete()


# ------------------------------------------------------------------ who holds a table


def holder_read(table_id: int, table_kind: str = POKER) -> str:
    """The live owner holding the table's lease, or "" (none, lapsed, or not an owner)."""
    rows = _lease_models[table_kind]._default_manager.filter(pk=table_id)
    row = rows.values_list("lease_owner", "lease_expires_at").first()
    if row is None:
        return ""
    holder, expires = row
    if not holder or not is_owner_channel(holder) or expires is None or expires <= timezone.now():
        return ""
    return holder


async def holder_of(table_id: int, *, fresh: bool = False, table_kind: str = POKER) -> str:
    now = time.monotonic()
    cached = _holders.get((table_kind, table_id))
    if cached is not None and cached[1] > now and not fresh:
        return cached[0]
    holder = await in_db_thread(holder_read)(table_id, table_kind)
    _holder_is(table_id, holder, table_kind)
    return holder


def holds_here(table_id: int, table_kind: str = POKER) -> bool:
    """Does this process's owner hold the table, as far as this process knows without asking
    the database (the holder it last saw, for a lease time)? Then it sent the table's latest
    frames itself: a socket here is answered from them (config.frame_log.frames_missed_here)."""
    me = owner_identity()
    cached = _holders.get((table_kind, table_id))
    return (
        me is not None and cached is not None and cached[0] == me and cached[1] > time.monotonic()
    )


# (the live owners the leases show, until when this answer may be used)
_owners_seen: tuple[list[str], float] = ([], 0.0)


def owners_read() -> list[str]:
    """The owners alive: those whose announcement (`owner_announce`, renewed with their
    leases) has not lapsed, on this process's channel layer (`on_this_layer`). A stopped owner
    is gone from it at once; a killed one when its leases lapse."""
    names = TableOwner.objects.filter(expires_at__gt=timezone.now()).values_list("name", flat=True)
    return sorted(name for name in names if is_owner_channel(name) and on_this_layer(name))


def on_this_layer(name: str) -> bool:
    """Can this process reach the owner `name` names? Its channel must be on this process's
    channel layer, i.e. carry the layer's prefix (CHANNEL_LAYER_PREFIX): two rooms sharing a
    database but not a layer (a misconfigured prefix; a test's room beside the suite's) must
    not send each other tables. The in-memory layer (one process) has no prefix."""
    layer: dict[str, Any] = settings.CHANNEL_LAYERS["default"]
    prefix = layer.get("CONFIG", {}).get("prefix")
    return prefix is None or channel_of(name).startswith(f"{prefix}specific.")


async def owner_for(table_id: int) -> str:
    """The owner for a table no live owner holds, or "" when none is alive: of the owners alive
    (`owners_read`), the one chosen by the table's id (rendezvous hashing, so every process
    chooses the same one, the tables spread evenly over the owners, and few tables move when
    owners come or go)."""
    global _owners_seen
    owners, until = _owners_seen
    if until <= time.monotonic():
        owners = await in_db_thread(owners_read)()
        _owners_seen = (owners, time.monotonic() + settings.POKER_TABLE_LEASE_SECONDS / 3)
    return owner_chosen(table_id, owners)


def owner_chosen(table_id: int, owners: list[str]) -> str:
    """Rendezvous hashing: the owner with the highest weight for this table ("" of none)."""
    if not owners:
        return ""

    def weight(holder: str) -> bytes:
        return hashlib.blake2b(f"{table_id}|{holder}".encode(), digest_size=8).digest()

    return max(owners, key=weight)


def table_route(table_id: int, table_kind: str = POKER) -> str:
    """The front's name (POKER_OWNER_ROUTE) of the process a page's socket for this table
    should reach: its live owner's, or that of the owner `owner_for` would send it to; "" when
    there is none or it has no route. A hint for the front only (docs/operations.md): a socket
    that reaches another process plays all the same, its commands sent to the owner."""
    holder = holder_read(table_id, table_kind) or owner_chosen(table_id, owners_read())
    if not holder:
        return ""
    route = (
        TableOwner.objects.filter(name=holder, expires_at__gt=timezone.now())
        .values_list("route", flat=True)
        .first()
    )
    return route or ""


def _holder_is(table_id: int, holder: str, table_kind: str = POKER) -> None:
    """Remember who holds the table for a lease time. A stale answer costs a reload, never a
    wrong change: a command run here, or at an owner that lost the table, takes the row lock
    and the lease; one sent to an owner that died is looked at again while it waits."""
    _holders[(table_kind, table_id)] = (
        holder,
        time.monotonic() + settings.POKER_TABLE_LEASE_SECONDS,
    )


# ------------------------------------------------------------------ sending a command


async def command_run(table_id: int, kind: str, payload: dict[str, Any]) -> str:
    """Run a command for `table_id` where its owner is: here if this process holds the table
    or nobody live does (this process then takes it), else at the holder's owner. In a router
    (`POKER_OWNER_RUN` off) a table nobody holds goes to an owner alive in the leases
    (`owner_for`), and runs here only when none is. A refusal comes back as the same
    `Refused` code and message."""
    language = translation.get_language()
    table_kind = _table_kind(kind)
    key = order_key(table_kind, table_id)
    process = _owner
    if owner_channel() is None or process is None:
        return await in_table_order(key, _run_here, kind, payload, language)
    me = owner_identity()  # None in a router
    holder = await holder_of(table_id, table_kind=table_kind)
    if not holder:
        holder = await owner_for(table_id) or ""
    asked: asyncio.Future | None = None
    while True:
        if not holder or holder == me:
            if asked is not None:
                _forget(asked)
                asked = None
            try:
                result = await in_table_order(key, _run_as_owner, kind, payload, language)
            except leases.NotTheOwner as elsewhere:
                # What this process remembered was stale: another owner took the table.
                holder = elsewhere.holder
                _holder_is(table_id, holder, table_kind)
                continue
            _holder_is(table_id, me or "", table_kind)
            process.run_here += 1
            return result
        if asked is None:
            asked = await _ask(holder, table_id, kind, payload, language)
            process.sent += 1
        try:
            reply = await asyncio.wait_for(asyncio.shield(asked), timeout=_look_again_seconds())
        except TimeoutError:
            # A silent owner: keep waiting while its lease is alive (it is busy, not gone);
            # once it lapsed, or another owner took the table, run it there. A router that
            # chose the owner of a table nobody held keeps waiting while that owner is alive.
            now_holder = await holder_of(table_id, fresh=True, table_kind=table_kind)
            if not now_holder:
                now_holder = await owner_for(table_id)
            if now_holder != holder:
                _forget(asked)
                asked, holder = None, now_holder
            continue
        return _answer(reply)


def _command_message(
    table_id: int,
    kind: str,
    payload: dict[str, Any],
    language: str | None = None,
    reply_to: str = "",
    request: str = "",
) -> dict[str, Any]:
    """An `owner.command` for the table's owner; without `reply_to` nobody waits for it."""
    return {
        "type": "owner.command",
        "table": table_id,
        "kind": kind,
        "payload": payload,
        "lang": language,
        "reply_to": reply_to,
        "request": request,
    }


async def _ask(
    holder: str,
    table_id: int,
    kind: str,
    payload: dict[str, Any],
    language: str | None,
    answers: str | None = None,
) -> asyncio.Future:
    """Send a command to the holder's owner; the future is its reply. The reply comes through
    this process's owner channel, or `answers`, a channel of the running loop's own (a process
    running no owner: `command_ask_sync`)."""
    request = uuid.uuid4().hex
    replies = None
    if answers is None:
        owner = _owner
        assert owner is not None
        replies, answers = owner.replies, owner.channel
        future = asyncio.get_running_loop().create_future()
        future.request = request  # type: ignore[attr-defined]
        replies[request] = future
    layer = get_channel_layer()
    message = _command_message(table_id, kind, payload, language, answers, request)
    try:
        await layer.send(channel_of(holder), message)
    except Exception as error:
        if replies is not None:
            replies.pop(request, None)
        log.warning("table %s: could not reach its owner %s (%s)", table_id, holder, error)
        raise DatabaseBusy() from error
    return future if replies is not None else asyncio.ensure_future(layer.receive(answers))


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


# The users of this process's sockets, by id: a socket's command run here acts for the socket's
# own user object; one sent here by another process's socket reads its user.
_socket_users: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()


async def socket_command_run(table_id: int, kind: str, command: Any, user: Any) -> str:
    """A socket's parsed command (a dataclass) run at the table's owner (`command_run`): the
    payload names its class, its fields and its user; the owner's handler rebuilds the user
    with `socket_command_user`."""
    _socket_users[user.pk] = user
    return await command_run(table_id, kind, command_payload(table_id, command, user))


def command_payload(table_id: int, command: Any, user: Any) -> dict[str, Any]:
    """A parsed command as it crosses to the owner: its class, its fields and its user."""
    return {
        "table": table_id,
        "command": type(command).__name__,
        "fields": vars(command),
        "user": user.pk,
    }


def socket_command_user(payload: dict[str, Any]) -> Any:
    """The user a socket's command acts for: the socket's own object when it is this
    process's, else read from the database."""
    user = _socket_users.get(payload["user"])
    if user is None:
        user = get_user_model().objects.get(pk=payload["user"])
    return user


def command_send_sync(table_id: int, kind: str, payload: dict[str, Any]) -> str | None:
    """From synchronous code outside the sockets (a Celery timeout): send the command to the
    table's live owner without waiting, and return "owner"; None when no live owner holds the
    table (the caller runs it itself). The live owner may be this process's own: from a thread
    beside it (the embedded room's worker) the command is sent to it all the same, so it runs
    in the table's order."""
    if not routing_enabled():
        return None
    holder = holder_read(table_id, _table_kind(kind))
    if not holder:
        return None
    message = _command_message(table_id, kind, payload)
    try:
        _send_sync(channel_of(holder), message)
    except Exception:
        log.exception("table %s: could not send to its owner %s; running here", table_id, holder)
        return None
    return "owner"


# How long a synchronous asker (a staff tool) waits for a live owner's answer (`command_ask_sync`).
ASK_WAIT_SECONDS = 10.0


def command_ask_sync(
    table_id: int, kind: str, payload: dict[str, Any], *, wait: float | None = None
) -> str | None:
    """From synchronous code that needs the answer (the staff tools): run the command at the
    live owner of another process holding the table and wait for its answer, its result or its
    refusal raised as the same `TableError` code and message. None when no live owner other
    than this process holds the table: the caller runs it itself (taking the lease), as a
    timeout does. While that owner's lease is alive the command is never sent twice: after
    `wait` seconds (`ASK_WAIT_SECONDS`) without an answer the caller is refused as busy (the
    owner may still run it); once the lease lapsed (the owner died) this returns None, and if
    another owner took the table the command goes there."""
    if not routing_enabled():
        return None
    holder = holder_read(table_id, _table_kind(kind))
    if not holder or holder == owner_identity():
        return None
    language = translation.get_language()
    wait = ASK_WAIT_SECONDS if wait is None else wait
    owner = _owner
    if owner_channel() is not None and owner is not None and owner.loop.is_running():
        # This process's owner reads the answers on its own loop; this thread waits for them.
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is owner.loop:
            raise RuntimeError("command_ask_sync waits: call it from a thread, not the loop")
        asking = _ask_and_wait(table_id, kind, payload, language, holder, wait, on_owner=True)
        return asyncio.run_coroutine_threadsafe(asking, owner.loop).result()
    return async_to_sync(_ask_and_wait)(
        table_id, kind, payload, language, holder, wait, on_owner=False
    )


async def _ask_and_wait(
    table_id: int,
    kind: str,
    payload: dict[str, Any],
    language: str | None,
    holder: str,
    wait: float,
    *,
    on_owner: bool,
) -> str | None:
    """`command_ask_sync`'s wait, `on_owner`: on this process's owner loop (its channel reads
    the answer), or on a loop of its own with a fresh channel for the answer."""
    table_kind = _table_kind(kind)
    me = owner_identity()
    answers = None if on_owner else await get_channel_layer().new_channel()
    give_up = time.monotonic() + wait
    asked: asyncio.Future | None = None
    try:
        while True:
            if asked is None:
                asked = await _ask(holder, table_id, kind, payload, language, answers)
            try:
                reply = await asyncio.wait_for(asyncio.shield(asked), _look_again_seconds())
            except TimeoutError:
                # Not on the database threads: with Channels' one thread (SOCKET_DB_THREADS 0)
                # that may be the very thread waiting for this answer (an admin page's).
                now_holder = await asyncio.to_thread(_holder_read_apart, table_id, table_kind)
                if not now_holder or now_holder == me:
                    return None  # its owner stopped: the caller runs it
                if now_holder != holder:
                    _forget(asked)
                    asked, holder = None, now_holder
                elif time.monotonic() >= give_up:
                    raise TableError(
                        "owner_busy",
                        _(
                            "The table did not answer in time and may still do it: look at "
                            "the table again before you retry."
                        ),
                    ) from None
                continue
            return _answer(reply)
    finally:
        if asked is not None:
            _forget(asked)


def _holder_read_apart(table_id: int, table_kind: str) -> str:
    """`holder_read` on a thread of its own, which then hands its connection back."""
    try:
        return holder_read(table_id, table_kind)
    finally:
        connections.close_all()


def _send_sync(channel: str, message: dict[str, Any]) -> None:
    """Send on the channel layer from synchronous code. In a process running an owner, the
    send runs on the owner's loop: the in-memory layer (the embedded room) wakes a reader only
    when written from the reader's own loop, and a Celery worker thread has a loop of its own."""
    owner = _owner
    if owner is not None and owner.pid == os.getpid() and owner.loop.is_running():
        try:
            running: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is not owner.loop:
            sending = get_channel_layer().send(channel, message)
            asyncio.run_coroutine_threadsafe(sending, owner.loop).result(timeout=5)
            return
    async_to_sync(get_channel_layer().send)(channel, message)


def owner_report() -> dict[str, Any]:
    """This process's owner at /healthz: its role, the leases it renewed last time and how long
    ago, its sockets' commands run here and sent on, and the commands served for others by kind
    and result (docs/operations.md, "Scale out": what to watch)."""
    owner = _owner
    if owner_channel() is None or owner is None:
        return {"role": "none"}
    renewed = owner.renewed_at
    return {
        "role": "owner" if owner.owns else "router",
        "leases": owner.leases,
        "renewed_seconds_ago": None if renewed is None else round(time.monotonic() - renewed, 1),
        "run_here": owner.run_here,
        "sent": owner.sent,
        "served": {kind: dict(results) for kind, results in dict(owner.served).items()},
    }
