"""Reading a table and its running hand from the database: the row locked (`lock_table`), the
engine's hand rebuilt from its snapshot and checked by replaying its events (`load`), or read
for a look only (`peek`). The owner reads these when it takes a table over (or after a refused
write); while it holds the lease it works from its memory (poker/services/memory.py)."""

from __future__ import annotations

from django.utils.translation import gettext as _

from poker.engine.hand import Hand as EngineHand
from poker.engine.hand import ReplayMismatch
from poker.models import Hand, Table
from poker.services.validation import TableError, is_int


class HandRefused(Exception):
    """The engine refused a stored hand: it must be cancelled (in a transaction of its own)."""

    def __init__(self, hand_id: int, code: str, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.hand_id = hand_id
        self.code = code
        self.reason = reason
        self.detail = detail


def load(hand_row: Hand) -> EngineHand:
    """The engine's hand from its snapshot and its deck (the one place the deck is read),
    checked by rebuilding it from its setup, deck and events."""
    try:
        engine = EngineHand.from_snapshot(hand_row.state, hand_row.deck)
        if hand_row.state["setup"] != hand_row.setup:
            raise ReplayMismatch("the snapshot's setup is not the hand's")
        replayed = EngineHand.rebuild(hand_row.setup, hand_row.deck, engine.events)
        if replayed.to_dict() != engine.to_dict():
            raise ReplayMismatch("the stored state is not what its events give")
        if sorted(hand_row.seated_players()) != sorted(engine.seats):
            raise ReplayMismatch("the hand's players do not match its seats")
        if engine.is_over:
            raise ReplayMismatch("a running hand whose state says it is over")
    except Exception as error:  # anything the engine or the data refuses
        raise HandRefused(
            hand_row.pk,
            "state_refused",
            "The hand's saved state could not be read back, so it was cancelled.",
            f"{type(error).__name__}: {error}",
        ) from error
    return engine


def load_or_none(hand_row: Hand) -> EngineHand | None:
    try:
        return load(hand_row)
    except HandRefused:
        return None  # the sweep cancels it in its own transaction


def peek(hand_row: Hand) -> EngineHand | None:
    """The stored hand without the replay check, for reads that change nothing."""
    try:
        return EngineHand.from_dict(hand_row.state)
    except Exception:
        return None


def lock_table(table: Table | int) -> Table:
    """The table's row, locked for this transaction (`no_table` when there is none).

    Every change at every table starts here, so it is one plain statement: Django took
    longer to build the locking query than the database to answer it."""
    table_id = table if is_int(table) else getattr(table, "pk", None)
    if not is_int(table_id):
        raise TableError("no_table", _("There is no such table."))
    sql = f"SELECT * FROM {Table._meta.db_table} WHERE id = %s FOR UPDATE"
    locked = list(Table.objects.raw(sql, [table_id]))
    if not locked:
        raise TableError("no_table", _("There is no such table."))
    return locked[0]
