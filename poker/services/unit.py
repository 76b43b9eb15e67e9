"""The unit of work of every table service: `table_change`, and its two write paths.

A table's change is made at its owner (poker/owner.py), which remembers the table
(poker/services/memory.py). The module is split by concern: inputs checked in
poker/services/validation.py, the table read from the database in poker/services/loading.py
(on a take-over, or when the memory is gone), the change written in poker/services/write.py
(`persist`, fenced by the version and the lease epoch: config/leases.py), its frames in
poker/broadcast.py. Here: `TableChange` (what one service does at one table) and the two ways
it is made.

- `table_change(table, recall=...)`: one transaction, the table row locked
  (`select_for_update`); with `recall`, a table remembered at the locked row's version and
  epoch starts from the remembered seats and hand (no read, no replay). At exit `persist`
  writes, the frames are built, and on commit they are sent, the memory kept and the timers
  set. Every change but a mid-hand action at its owner goes this way (a hand's end with its
  ledger entries, a deal, seating, buy-ins and money moves, staff, timers).
- `table_change_unlocked(table, apply)`: a mid-hand action at a table this process remembers
  as its own, applied to the remembered objects and written as one fenced statement in
  autocommit (poker/services/action_write.py); no lock, no transaction. A change beyond
  betting, or a refused write, returns False and the caller runs it under the lock.

Refusals raise `TableError(code, message)` before anything is written (the transaction rolls
back). A hand whose stored state the engine refuses raises `HandRefused`: the change rolls
back and the hand is cancelled in a transaction of its own (`faults.hand_cancel`); the cashier
never saw its bets (a hand posts once, when it settles), so every chip is back where it was.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.db import connection, transaction

from config.leases import StaleOwner, owner_check, process_identity
from config.timeouts import timeouts_set
from poker import broadcast
from poker.models import Hand, Seat, Table
from poker.selectors import TableView, seats_playing_count
from poker.services.change import LockNeeded, TableChange
from poker.services.loading import HandRefused, load, load_or_none, lock_table, peek
from poker.services.memory import (
    TableMemory,
    memory_forget,
    memory_keep,
    memory_peek,
    memory_size,
    memory_take,
)
from poker.services.validation import TableError, check_amount, check_bool, is_int
from poker.services.write import persist, rows_save

# Re-exported: the services and tests import these from here.
__all__ = [
    "HandRefused",
    "LockNeeded",
    "TableChange",
    "TableError",
    "TableMemory",
    "check_amount",
    "check_bool",
    "is_int",
    "load",
    "load_or_none",
    "lock_table",
    "memory_forget",
    "memory_keep",
    "memory_peek",
    "memory_size",
    "memory_take",
    "peek",
    "persist",
    "rows_save",
    "table_change",
    "table_change_unlocked",
]


log = logging.getLogger(__name__)

Status = Seat.Status


# The columns of a hand row compared to tell a remembered hand is still the stored one (the
# deck never changes and is not read by the frames' query).
_HAND_COLUMNS = tuple(field.attname for field in Hand._meta.concrete_fields if field.name != "deck")


def _same_hand(remembered: Hand, stored: Hand) -> bool:
    """Is the stored running hand (read without its deck) the remembered row, column for
    column and player for player (their last seq and net)?"""
    if any(getattr(remembered, name) != getattr(stored, name) for name in _HAND_COLUMNS):
        return False

    def players(row: Hand) -> dict[int, tuple[int, int, int | None]]:
        return {
            seat: (player.player_id, player.last_seq, player.net)
            for seat, player in row.seated_players().items()
        }

    return players(remembered) == players(stored)


def memory_after(change: TableChange, view: TableView, before: TableMemory | None) -> TableMemory:
    """What the next change may recall of the table this change leaves: the seats and hand its
    frames were built from (the change's own objects where the frames trusted them, else what
    they read afresh inside this transaction, after every write)."""
    memory = TableMemory(
        version=change.table.version,
        seats=view.seats,
        epoch=change.table.lease_epoch,
        table=change.table,
    )
    row, engine = change.hand_row, change.engine
    if row is not None:
        # An engine read for a look only (`peek`: no deck, it cannot deal on) is not kept.
        if (
            row.status == Hand.Status.RUNNING
            and engine is not None
            and engine.deck is not None
            and not engine.is_over
        ):
            events = row.state.get("events", ()) if isinstance(row.state, dict) else ()
            if len(events) == len(engine.events) and view.hand_row is row:
                memory.hand_known, memory.hand, memory.engine = True, row, engine
        elif row.status != Hand.Status.RUNNING and view.hand_row is None:
            memory.hand_known = True  # its hand ended and none runs: the deal need not look
        return memory
    if view.hand_row is None:
        return memory  # no running hand, or one the view could not read: read it next time
    # The change did not show the running hand: the hand this process remembered before it is
    # still good if the stored row is that hand unchanged (nothing of it was recalled here).
    if (
        before is not None
        and not change.recalled
        and before.hand_known
        and before.hand is not None
        and before.engine is not None
        and before.hand.pk == view.hand_row.pk
        and _same_hand(before.hand, view.hand_row)
    ):
        memory.hand_known, memory.hand, memory.engine = True, before.hand, before.engine
    return memory


@contextmanager
def table_change(table: Table | int, *, recall: bool = False) -> Iterator[TableChange]:
    """Lock `table` (a row or an id) in a new transaction and yield the change to fill in; at
    a clean exit persist, publish on commit and schedule on commit. An exception rolls it all
    back; a `HandRefused` also cancels that hand (its own transaction) and is re-raised.

    With `recall`, a table this process remembers at the locked row's version starts from its
    remembered seats and hand (the module's docstring); a service that reads or writes seats or
    the hand other than through `seats()`, `running_hand()` and `engine_of()` must not ask."""
    try:
        with transaction.atomic():
            locked = lock_table(table)
            owner_check(locked)
            before = memory_take(locked.pk)
            change = TableChange(locked)
            if (
                recall
                and before is not None
                and before.version == locked.version
                and before.epoch == locked.lease_epoch
                and locked.lease_owner == process_identity()
            ):
                change.recall(before)
            yield change
            _change_end(change, before)
    except HandRefused as refused:
        cancel_refused(refused)
        raise


def _change_end(change: TableChange, before: TableMemory | None) -> None:
    """Write the change, build its frames, and on commit send them, keep the table's memory
    and set the timers, in that order (outside a transaction, the optimistic path's,
    `on_commit` runs each at once, so the order is the same)."""
    if change.publish:
        persist(change)
        view = _publish(change)
        memory = memory_after(change, view, before)
        transaction.on_commit(functools.partial(memory_keep, change.table.pk, memory))
    elif change.rows_to_save:
        rows_save(change.rows_to_save)
    if change.sockets_closing is not None:  # after the frames, on the same line of sends
        transaction.on_commit(
            functools.partial(
                broadcast.send_table_closed,
                table_id=change.table.pk,
                tournament_id=change.sockets_closing,
            )
        )
    timeouts_set(change.schedules)
    for user_id, frame in change.notices:
        transaction.on_commit(
            functools.partial(broadcast.send_to_player, user_id=user_id, frame=frame)
        )


def _no_statement(execute, sql, params, many, context):
    raise LockNeeded("the change reads or writes the database")


def table_change_unlocked(table: Table | int, apply: Callable[[TableChange], None]) -> bool:
    """The optimistic path of a mid-hand action: `apply` the command to the table as
    this process remembers it and write it with the one fenced statement of
    poker/services/action_write.py in autocommit: no BEGIN, no row lock, no COMMIT, one round
    trip; then send the frames, keep the memory and set the turn's timer, as a commit would.
    True when done. False when the command must run under the lock (`table_change`) instead:
    nothing was written (the table is not remembered here as this process's own, a
    transaction is open, the change goes beyond betting, or the fence refused the write).

    Why no lock is needed:
    - The fence. The statement writes the table's row only where its version, lease epoch and
      every setting staff may edit (the admin writes those without a new version) are still
      the remembered ones and the lease is still live, and its other parts (the events, the
      hand, the player's seq) write only if that row was written: one statement, all or
      nothing. Every change of a table by any process bumps its version and a new holder
      bumps the epoch, so a write that passes starts from exactly the table remembered; a
      change holding the row's lock makes the statement wait, then fail the fence.
    - The owner's order. A table's commands run one at a time in its owner
      (poker.owner.in_table_order), and the memory is taken out for the command
      (`memory_take`), so no other thread of this process uses these objects meanwhile.
    - The memory dropped on refusal. Until `betting_only` the change moves only a copy of the
      engine, and `apply` runs with every statement refused (`LockNeeded`: a change that needs
      the database, a hand's end and its settlement, is for the locked path): the memory is
      put back as it was and the locked path recalls it. Past that point the memory has
      moved: a refused write drops it, and the locked path reloads the table from the
      database, where it decides the command (or refuses it) as the rules say.
    """
    table_id = table if is_int(table) else getattr(table, "pk", None)
    if not is_int(table_id) or connection.in_atomic_block or not connection.get_autocommit():
        return False
    memory = memory_take(table_id)
    if memory is None:
        return False
    remembered = memory.table
    if not (
        remembered is not None
        and memory.hand_known
        and memory.hand is not None
        and memory.engine is not None
        and (memory.version, memory.epoch) == (remembered.version, remembered.lease_epoch)
        and remembered.lease_owner == process_identity()
    ):
        memory_keep(table_id, memory)
        return False
    change = TableChange(remembered, unlocked=True)
    change.recall(memory)
    try:
        with connection.execute_wrapper(_no_statement):
            apply(change)
        if not change.publish:
            raise LockNeeded("the change shows nothing")
    except Exception:
        if not change.moving:
            memory_keep(table_id, memory)  # as it was: the locked path recalls it
        return False
    try:
        _change_end(change, memory)
    except (StaleOwner, LockNeeded):
        return False  # nothing written; the memory moved, so it is not put back
    return True


# The table events that move the lobby's figures of a table (its seats taken, the players who
# can play: poker.selectors.seats_playing): a seat taken or freed, a player sitting out
# (asked, timed out, at their big blind, or busted at $0) or back in.
LOBBY_EVENTS = frozenset({"player_sat", "player_left", "player_sat_out", "player_sat_in"})


def _publish(change: TableChange) -> TableView:
    """Build every recipient's frame now (inside the transaction), send them after commit; the
    table's view they were built from is returned (what the table's memory keeps)."""
    table = change.table
    frames, view = broadcast.frames_and_view(
        table=table,
        events=change.events,
        hand_row=change.hand_row,
        engine=change.engine,
        since=change.since,
        extra_user_ids=change.users,
        seats=change._seats,
        seats_fresh=change.seats_fresh,
        reuse=change.frames_reuse,
        money=change.money,
    )
    transaction.on_commit(lambda: broadcast.send(table_id=table.pk, frames=frames))
    counts_moved = any(event["type"] in LOBBY_EVENTS for event in change.events)
    if change.lobby_changed or counts_moved:
        seats_taken = len(change.seats())
        playing = seats_playing_count(table_id=table.pk)
        transaction.on_commit(
            lambda: broadcast.send_lobby(
                table_id=table.pk, seats_taken=seats_taken, seats_playing=playing
            )
        )
    return view


# What cancels a hand the engine refused, in a transaction of its own: `faults.hand_cancel`,
# registered in PokerConfig.ready (faults builds on this module, so it is handed in).
_refused_hand_cancel: list[Callable[..., bool]] = []


def refused_hand_cancel_register(cancel: Callable[..., bool]) -> None:
    _refused_hand_cancel[:] = [cancel]


def cancel_refused(refused: HandRefused) -> None:
    hand = Hand.objects.filter(pk=refused.hand_id).first()
    if hand is None:
        return
    [cancel] = _refused_hand_cancel  # PokerConfig.ready registered it
    cancel(hand=hand, reason=refused.reason, code=refused.code, detail=refused.detail)
