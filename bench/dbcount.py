"""The room's processes with their database round trips counted (for bench/load.py).

`daphne bench.dbcount:application` and `celery -A bench.dbcount worker` run the room as
config.asgi and config.celery do, with Django's `execute_wrapper` on every connection of the
process: each statement (savepoints included) is one round trip, and a transaction that sent
any adds two more (psycopg sends BEGIN before its first statement and COMMIT or ROLLBACK at the
end). Rows are those returned to the client (`cursor.rowcount` of a SELECT). Every half second
each process adds what it counted since to a Redis hash (`LOAD_COUNT_KEY`, one field per role
and counter), which the benchmark reads at the start and end of its window.
"""

from __future__ import annotations

import os
import threading
import time

ROLE = os.environ.get("LOAD_COUNT_ROLE", "asgi")
KEY = os.environ.get("LOAD_COUNT_KEY", "room-load:db")

_lock = threading.Lock()
_counts = {"statements": 0, "rows": 0, "transactions": 0}


def _add(name: str, n: int) -> None:
    with _lock:
        _counts[name] += n


def _execute(execute, sql, params, many, context):
    result = execute(sql, params, many, context)
    _add("statements", 1)
    if sql.lstrip()[:6].upper() == "SELECT":
        rowcount = getattr(context["cursor"], "rowcount", -1)
        if rowcount and rowcount > 0:
            _add("rows", rowcount)
    return result


def _count_transactions(cls) -> None:
    """Count commits and rollbacks of transactions that sent something (psycopg skips idle
    ones, with no round trip)."""
    from psycopg import pq

    for name in ("commit", "rollback"):
        original = getattr(cls, name)

        def wrapped(self, original=original):
            conn = self.connection
            if conn is not None and conn.info.transaction_status != pq.TransactionStatus.IDLE:
                _add("transactions", 1)
            return original(self)

        setattr(cls, name, wrapped)


def _flush_forever(redis_url: str) -> None:
    import redis

    client = redis.Redis.from_url(redis_url)
    while True:
        time.sleep(0.5)
        with _lock:
            delta = dict(_counts)
            for name in _counts:
                _counts[name] = 0
        if any(delta.values()):
            pipe = client.pipeline()
            for name, value in delta.items():
                pipe.hincrby(KEY, f"{ROLE}:{name}", value)
            pipe.execute()


_patched = False
_flusher_pid: int | None = None


def install() -> None:
    """Count on every connection of this process (the class patch and the signal survive a
    fork) and flush from a thread of this process's own (threads do not)."""
    global _patched, _flusher_pid
    from django.conf import settings

    if not _patched:
        _patched = True
        from django.db.backends.postgresql.base import DatabaseWrapper
        from django.db.backends.signals import connection_created

        def on_connect(sender, connection, **kwargs) -> None:
            if _execute not in connection.execute_wrappers:
                connection.execute_wrappers.append(_execute)

        connection_created.connect(on_connect, weak=False)
        _count_transactions(DatabaseWrapper)
    if _flusher_pid != os.getpid():
        _flusher_pid = os.getpid()
        with _lock:
            for name in _counts:
                _counts[name] = 0
        threading.Thread(
            target=_flush_forever, args=(settings.CELERY_BROKER_URL,), daemon=True
        ).start()


def __getattr__(name: str):
    if name == "application":
        from config.asgi import application

        install()
        return application
    if name in ("app", "celery"):
        from celery.signals import worker_process_init

        from config.celery import app

        # Tasks run in the pool's processes: count there, from their start.
        worker_process_init.connect(lambda **_: install(), weak=False)
        return app
    raise AttributeError(name)
