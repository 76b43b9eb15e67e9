"""The owner's memory of its tables: per table it holds the lease of, what the change that left
it at `version` knew (its row, seats with players, the running hand's row with its deck and
players, the engine's hand), kept under the lease epoch it was written with. A change takes a
table's memory out for itself (`memory_take`) and puts back on commit what its frames were
built from (`memory_keep`, via `unit.memory_after`); a rollback or a refused fenced write
leaves nothing to recall, and the next change reads the table from the database
(poker/services/loading.py).

The memory is the tables this process holds, not a cache of recent ones: a table stays while
its lease does (renewed by the owner's changes and by its renewals, `memory_leases_renewed`)
and is forgotten once the lease it remembers has lapsed (another process may hold the table
now; a process that renews nothing, a Celery worker's or a script's, forgets what it changed
a lease time later)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from django.conf import settings
from django.utils import timezone

from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat, Table


@dataclass
class TableMemory:
    """A table as the change that left it at `version` knew it: its seats (with players and
    profiles) and, if `hand_known`, its running hand (`hand`: the row with its deck and
    `HandPlayer` rows, None when no hand runs) and that hand's `engine`."""

    version: int
    seats: dict[int, Seat]
    epoch: int = 0  # the table's lease epoch this process held then
    hand_known: bool = False
    hand: Hand | None = None
    engine: EngineHand | None = None
    # The table's row as that change wrote it: where `unit.table_apply` starts from (the
    # locked path reads the row it locks instead).
    table: Table | None = None


# table id -> what this process knows of the tables it holds.
_memory: dict[int, TableMemory] = {}
_memory_lock = threading.Lock()
_next_look = 0.0  # when `memory_keep` looks for lapsed leases next (monotonic)


def memory_take(table_id: int) -> TableMemory | None:
    """Take a table's memory out for the change that holds its lock: nothing else can use those
    objects meanwhile, and a change that rolls back puts nothing back."""
    with _memory_lock:
        return _memory.pop(table_id, None)


def memory_keep(table_id: int, memory: TableMemory) -> None:
    """After a commit: remember the table as it now is, unless a later change already put a
    newer version here; now and then, tables whose remembered lease lapsed are forgotten."""
    global _next_look
    with _memory_lock:
        held = _memory.get(table_id)
        if held is not None and held.version >= memory.version:
            return
        _memory[table_id] = memory
        if time.monotonic() >= _next_look:
            _next_look = time.monotonic() + settings.POKER_TABLE_LEASE_SECONDS / 3
            now = timezone.now()
            for lapsed in [
                held_id for held_id, kept in _memory.items() if _lease_lapsed(kept, now)
            ]:
                del _memory[lapsed]


def _lease_lapsed(memory: TableMemory, now: datetime) -> bool:
    expires = None if memory.table is None else memory.table.lease_expires_at
    return expires is not None and expires <= now


def memory_leases_renewed(table_ids: Iterable[int], expires_at: datetime) -> None:
    """The owner renewed these tables' leases (poker/owner.py `leases_renew`) without changing
    them: their memory holds the lease until `expires_at` too."""
    with _memory_lock:
        for table_id in table_ids:
            kept = _memory.get(table_id)
            if kept is not None and kept.table is not None:
                kept.table.lease_expires_at = expires_at


def memory_forget(table_id: int | None = None) -> None:
    """Forget one table, or every table (tests, a process that must start afresh)."""
    with _memory_lock:
        if table_id is None:
            _memory.clear()
        else:
            _memory.pop(table_id, None)


def memory_peek(table_id: int) -> TableMemory | None:
    """What this process remembers of a table, left in place (tests, diagnostics)."""
    with _memory_lock:
        return _memory.get(table_id)


def memory_size() -> int:
    with _memory_lock:
        return len(_memory)
