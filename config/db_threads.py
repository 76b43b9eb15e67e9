"""Sockets' database work on a bounded pool of threads, so one table's wait never stalls another.

Why this stays under the owner design: the owner keeps each table in
memory, but a command still does blocking database work (the row lock, the writes, the
ledger) and one ASGI process owns many tables. Its commands run one at a time per table
(`poker.owner.in_table_order`, the owner's own order) and on these threads side by side across
tables; on Channels' single thread one slow table would stall every other table the process
owns. Sockets' own reads (a snapshot, the chat, the live Showdown table's services) use them
for the same reason.

Channels' `database_sync_to_async` is thread-sensitive: every call of an ASGI process runs on one
thread, so a service waiting for one table's row lock (or just doing its round trips) holds up
every other table that process serves. `in_db_thread` runs a call on one of `SOCKET_DB_THREADS`
threads per process instead; calls for different tables proceed side by side, and a table's
commands are ordered by its owner's turn and its row lock. A socket's own frames still run one after
another (its consumer awaits each call before reading the next frame).

Connections: each call starts and ends with `close_old_connections`, which with the connection
pool of config/settings.py (CONN_MAX_AGE 0) hands the thread's connection back to the pool, so
an idle thread holds none. `SOCKET_DB_THREADS` stays below `DB_POOL_MAX_SIZE`, leaving a
connection for the process's other database work (pages, Channels' own thread). With every
pooled connection busy a call waits up to DB_POOL_TIMEOUT, then is refused as `busy`
(config/db_pool.py), as before.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import ParamSpec, TypeVar

from channels.db import DatabaseSyncToAsync
from django.conf import settings
from django.db import connections

P = ParamSpec("P")
R = TypeVar("R")

_lock = threading.Lock()
_executor: ThreadPoolExecutor | None = None
_executor_pid: int | None = None


def socket_db_executor() -> ThreadPoolExecutor:
    """This process's pool of database threads (made at first use, again after a fork)."""
    global _executor, _executor_pid
    size = settings.SOCKET_DB_THREADS
    pid = os.getpid()
    if _executor is None or _executor_pid != pid:
        with _lock:
            if _executor is None or _executor_pid != pid:
                _executor = ThreadPoolExecutor(max_workers=size, thread_name_prefix="socket-db")
                _executor_pid = pid
    return _executor


def in_db_thread(func: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """Decorator: `await func(...)` runs the synchronous `func` on the sockets' database
    threads, with its connection returned to the pool when it ends."""

    @functools.wraps(func)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        call = DatabaseSyncToAsync(
            _returning_connections(func), thread_sensitive=False, executor=socket_db_executor()
        )
        return await call(*args, **kwargs)

    return run


def _returning_connections(func: Callable[P, R]) -> Callable[P, R]:
    """`func`, then this thread's connections go back to the pool whatever happened: Channels'
    `close_old_connections` leaves a connection open while Django thinks it still usable (seen
    in the test suite: idle threads kept theirs), and an idle thread must hold none."""

    @functools.wraps(func)
    def run(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return func(*args, **kwargs)
        finally:
            connections.close_all()

    return run
