"""Turn deadlines and the timekeeper that acts on them, so that a turn played in time costs no
timer task (docs/architecture.md "One action, end to end", step 5).

The truth is `Hand.deadline` in the database. For speed, each deadline is also an entry of a
Redis sorted set per queue (`room:turn-deadlines:<queue>`, member `<hand id>:<turn>`, score the
deadline in Unix seconds), written after the change commits. Writing a turn's entry removes the
hand's entry for the turn before, so a player who acts in time leaves nothing behind that would
later wake up, lock the table and find nothing to do (the design before this one sent a Celery
task with a countdown per turn, which did just that after every action).

Each Celery worker runs a timekeeper thread (started on `worker_ready`, poker/tasks.py). Every
POKER_TIMEKEEPER_SECONDS it pops the entries that are due (read and removed in one Lua script,
so two workers never take the same one) and sends `poker.turn_timeout` for each, which checks
the database under the table lock and does nothing if the turn moved on or the deadline moved
later (then it writes the new deadline back). Whatever Redis loses (a flush, a worker killed
between the pop and the send) the sweep finds from `Hand.deadline` within POKER_SWEEP_SECONDS.

The embedded room (no Redis, one process) keeps no set: its timekeeper reads the due turns from
the database's (status, deadline) index instead (`turns_due`).
"""

from __future__ import annotations

import logging
import threading
import time
from datetime import datetime

from django.conf import settings
from django.db import close_old_connections
from django.utils import timezone

log = logging.getLogger(__name__)

KEY_PREFIX = "room:turn-deadlines"
POP_LIMIT = 500  # entries per pop; more wait for the next tick

# Read the due entries and remove them in one step (a script runs atomically in Redis).
_POP_DUE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, ARGV[2])
if #due > 0 then redis.call('ZREM', KEYS[1], unpack(due)) end
return due
"""

_client_lock = threading.Lock()
_client = None


def _uses_redis() -> bool:
    return settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://", "unix://"))


def _redis():
    """One client (with its own connection pool) per process, on the broker's Redis."""
    global _client
    if _client is None:
        with _client_lock:
            if _client is None:
                import redis

                _client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    return _client


def deadlines_key(queue: str | None = None) -> str:
    return f"{KEY_PREFIX}:{queue or settings.CELERY_TASK_DEFAULT_QUEUE}"


def _member(hand_id: int, turn: int) -> str:
    return f"{hand_id}:{turn}"


def deadlines_write(entries: list[tuple[int, int, datetime]]) -> None:
    """Record (hand id, turn, deadline) entries for the timekeeper, each replacing its hand's
    entry for the turn before. Called after commit; a Redis that is down costs a log line and
    leaves the turn to the sweep."""
    if not entries or not _uses_redis():
        return
    key = deadlines_key()
    try:
        pipe = _redis().pipeline(transaction=False)
        for hand_id, turn, deadline in entries:
            pipe.zrem(key, _member(hand_id, turn - 1))
            pipe.zadd(key, {_member(hand_id, turn): deadline.timestamp()})
        pipe.execute()
    except Exception:
        log.exception("could not record the deadlines %s; the sweep will act on them", entries)


def deadline_clear(hand_id: int, turn: int) -> None:
    """The hand ended at `turn`: its last entry will not be needed."""
    if not _uses_redis():
        return
    try:
        _redis().zrem(deadlines_key(), _member(hand_id, turn))
    except Exception:
        log.exception("could not clear the deadline of hand %s", hand_id)


def due_pop(*, now: float, queue: str | None = None, limit: int = POP_LIMIT) -> list[tuple]:
    """Take the (hand id, turn) entries due by `now` (Unix seconds) out of the set."""
    client = _redis()
    raw = client.eval(_POP_DUE, 1, deadlines_key(queue), now, limit)
    due = []
    for member in raw:
        hand_id, turn = member.decode().split(":")
        due.append((int(hand_id), int(turn)))
    return due


def turns_due(*, now: datetime) -> list[tuple[int, int]]:
    """(hand id, turn) of every running hand whose deadline has passed, from the database."""
    from poker.models import Hand

    running = Hand.objects.filter(status=Hand.Status.RUNNING, deadline__lte=now)
    return list(running.order_by("deadline").values_list("pk", "turn")[:POP_LIMIT])


class Timekeeper:
    """Send `poker.turn_timeout` for each turn whose deadline has passed, once per tick."""

    def __init__(self, *, queue: str, interval: float) -> None:
        self.queue = queue
        self.interval = interval
        self.redis = _uses_redis()
        # Without the set (embedded), a due turn stays due until its task has run: send it
        # once, and again only if it is still due this long after.
        self.sent: dict[tuple[int, int], float] = {}
        self.resend_after = 10.0

    def tick(self) -> list[tuple[int, int]]:
        from poker.tasks import turn_timeout

        if self.redis:
            due = due_pop(now=time.time(), queue=self.queue)
        else:
            due = self._due_from_database()
        for hand_id, turn in due:
            try:
                turn_timeout.apply_async(args=(hand_id, turn), queue=self.queue)
            except Exception:  # the broker is down: the sweep acts on the stored deadline
                log.exception("could not send the timeout of hand %s turn %s", hand_id, turn)
        return due

    def _due_from_database(self) -> list[tuple[int, int]]:
        found = turns_due(now=timezone.now())
        clock = time.monotonic()
        self.sent = {key: at for key, at in self.sent.items() if key in set(found)}
        due = [key for key in found if clock - self.sent.get(key, -1e9) >= self.resend_after]
        for key in due:
            self.sent[key] = clock
        return due

    def run(self, stop: threading.Event) -> None:
        while not stop.wait(self.interval):
            try:
                self.tick()
            except Exception:  # Redis or the database away for a moment: try again next tick
                log.exception("the timekeeper's tick failed")
            finally:
                close_old_connections()  # hand a connection back to the pool between ticks


def timekeeper_start(*, queue: str | None = None) -> threading.Event:
    """Start this process's timekeeper in a daemon thread; set the returned event to stop it."""
    stop = threading.Event()
    keeper = Timekeeper(
        queue=queue or settings.CELERY_TASK_DEFAULT_QUEUE,
        interval=settings.POKER_TIMEKEEPER_SECONDS,
    )
    threading.Thread(target=keeper.run, args=(stop,), name="timekeeper", daemon=True).start()
    return stop
