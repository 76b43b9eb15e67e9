"""The owner's memory of its tables: per table, what the change that left it at `version` knew
(its row, seats with players, the running hand's row with its deck and players, the engine's
hand), kept under the lease epoch it was written with. A change takes a table's memory out for
itself (`memory_take`) and puts back on commit what its frames were built from
(`memory_keep`, via `unit.memory_after`); a rollback or a refused fenced write leaves nothing to
recall, and the next change reads the table from the database (poker/services/loading.py).
Bounded by `POKER_TABLES_IN_MEMORY` tables per process."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from django.conf import settings

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
    # The table's row as that change wrote it: the optimistic path's starting point (the
    # locked path reads the row it locks instead).
    table: Table | None = None


# table id -> what this process knows of it, least recently changed first (bounded).
_memory: OrderedDict[int, TableMemory] = OrderedDict()
_memory_lock = threading.Lock()


def memory_take(table_id: int) -> TableMemory | None:
    """Take a table's memory out for the change that holds its lock: nothing else can use those
    objects meanwhile, and a change that rolls back puts nothing back."""
    with _memory_lock:
        return _memory.pop(table_id, None)


def memory_keep(table_id: int, memory: TableMemory) -> None:
    """After a commit: remember the table as it now is, unless a later change already put a
    newer version here; the least recently changed table is forgotten past the bound."""
    with _memory_lock:
        held = _memory.get(table_id)
        if held is not None and held.version >= memory.version:
            return
        _memory[table_id] = memory
        _memory.move_to_end(table_id)
        while len(_memory) > settings.POKER_TABLES_IN_MEMORY:
            _memory.popitem(last=False)


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
