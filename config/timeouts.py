"""A timeout at time T for (table, hand, step): the room's one timer path.

Every timer of the room (a poker turn, the next hand's start, a sitter-out's eviction, a live
Showdown round's betting window and decision time) is one Celery task, `room.timeout`, sent
after the change that set it commits, with an `eta` at its time. It carries what it was set
for: its kind (which handler runs it), the table, the hand (or round, or seat) and the step it
was set at (the hand's turn, the round's phase, when the seat sat out). Its handler reads that
step first, without a lock, and does nothing if it has moved on; only a due timeout goes on to
its service, which checks again under the table's lock. So a timeout delivered twice, late, or
set for a turn that was played in time changes nothing, and one that is lost (a broker down at
send time, a worker killed holding it) is found by the beat's sweeps from the deadlines the
database keeps.

Two lanes on the one queue: the timers of every turn (`ROUTINE`, one per action: most of the
room's tasks) go at a lower priority than the rest (a Sit & Go's level clock, a session limit,
a live Showdown round), so when the worker falls behind a busy room's turns, blinds still rise
on time. With Redis as the broker (kombu's priority lists, 0 the highest: the worker pops the
higher list first) a worker needs no setting for it; the in-memory broker ignores it.

This module sits below the games: each app registers its handlers (functions) in its
`AppConfig.ready` through `timeout_register`.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterable
from dataclasses import astuple, dataclass
from datetime import UTC, datetime

from celery import shared_task
from django.conf import settings
from django.db import transaction

from config.after_commit import blocking_send_queue

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Timeout:
    """What a timer needs to act once, or to see that it has nothing to do."""

    kind: str  # a registered handler: "poker.turn", "showdown.round", ...
    table_id: int
    ref_id: int  # the hand, the live round or the seat it is for
    step: int | str  # the turn, phase or moment it was set at: stale once that moved on
    at: float  # when it is due, in Unix seconds

    @classmethod
    def due_at(
        cls, kind: str, *, table_id: int, ref_id: int, step: int | str, at: datetime
    ) -> Timeout:
        return cls(kind, table_id, ref_id, step, at.timestamp())


_handlers: dict[str, Callable[[Timeout], str]] = {}
# A kind's task priority (kombu on Redis: 0 is the highest and Celery's default, 9 the lowest).
URGENT, ROUTINE = 0, 6
_priorities: dict[str, int] = {}


def timeout_register(
    kind: str, handler: Callable[[Timeout], str], *, priority: int = URGENT
) -> None:
    """`handler` (taking the Timeout, returning what it did) runs the timeouts of `kind`;
    `ROUTINE` for the timers every action sets, so the others are not queued behind them."""
    _handlers[kind] = handler
    _priorities[kind] = priority


def timeouts_set(timeouts: Iterable[Timeout]) -> None:
    """Send these timeouts when the current transaction commits (at once outside one): a
    change that rolls back sets no timer. In a process serving sockets the send runs on its
    sender thread (config/after_commit.py), so the table's owner does not wait for the
    broker before its next command; elsewhere it runs in this thread."""
    items = list(dict.fromkeys(timeouts))  # the same timeout twice in a change is sent once
    if items:
        transaction.on_commit(functools.partial(_timeouts_send_after_commit, items))


def _timeouts_send_after_commit(timeouts: list[Timeout]) -> None:
    blocking_send_queue(functools.partial(timeouts_send, timeouts), f"timeouts {timeouts}")


def timeouts_send(timeouts: Iterable[Timeout]) -> None:
    """Send each timeout as a task due at its time. A broker that is down costs a log line:
    the sweep acts on the deadline the database keeps."""
    for timeout in timeouts:
        try:
            timeout_fire.apply_async(
                args=astuple(timeout),
                eta=datetime.fromtimestamp(timeout.at, UTC),
                queue=settings.CELERY_TASK_DEFAULT_QUEUE,
                priority=_priorities.get(timeout.kind, URGENT),
            )
        except Exception:
            log.exception("could not send %s; the sweep will act on it", timeout)


@shared_task(name="room.timeout", ignore_result=True)
def timeout_fire(kind: str, table_id: int, ref_id: int, step: int | str, at: float) -> str:
    """A timeout is due: its kind's handler acts if it still applies. Returns what it did."""
    handler = _handlers.get(kind)
    if handler is None:
        log.error("a timeout of unknown kind %r for table %s", kind, table_id)
        return "unknown"
    return handler(Timeout(kind, table_id, ref_id, step, at))
