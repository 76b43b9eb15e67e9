"""The unit of work of every table service: a change of one table, made from memory at the
table's owner or from the database under the row's lock, and written one way.

A table's change is made at its owner (poker/owner.py), which remembers the table
(poker/services/memory.py). The module is split by concern: inputs checked in
poker/services/validation.py, the table read from the database in poker/services/loading.py
(on a take-over, or when the memory is gone), the change written in poker/services/write.py
(`persist`, fenced by the version and the lease epoch: config/leases.py), its frames in
poker/broadcast.py. Here: `TableChange` (what one service does at one table) and where it
starts from.

- `table_apply(table, apply)`: an action, an answer to running it twice, a deal. At a table
  this process holds and remembers, the change starts from the memory (no read, no lock) and
  its write is fenced by the remembered version, epoch and settings with the lease live; a
  mid-hand action that reads nothing is the one statement of poker/services/action_write.py
  in autocommit, anything else (a hand's end and its ledger entries, a deal) one transaction.
  Anywhere else, or when the fence refuses (the memory was stale), as `table_change`.
- `table_change(table, recall=...)`: one transaction, the table row locked
  (`select_for_update`); with `recall`, a table remembered at the locked row's version and
  epoch starts from the remembered seats and hand. Seating, buy-ins and money moves, staff,
  timers, and any table this process does not hold.
Either way, at exit `persist` writes, the frames are built, and on commit they are sent, the
memory kept and the timers set.

Refusals raise `TableError(code, message)` before anything is written (the transaction rolls
back). A hand whose stored state the engine refuses raises `HandRefused`: the change rolls
back and the hand is cancelled in a transaction of its own (`faults.hand_cancel`); the cashier
never saw its bets (a hand posts once, when it settles), so every chip is back where it was.
"""

from __future__ import annotations

import copy
import functools
import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TypeVar, cast

from django.db import connection, transaction
from psycopg import pq

from config.leases import StaleOwner, owner_check, process_identity
from config.timeouts import timeouts_set
from poker import broadcast
from poker.models import Hand, Seat, Table
from poker.selectors import TableView, seats_playing_count
from poker.services.change import TableChange
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
from poker.services.write import PersistPlan, persist, persist_plan, rows_save

# Re-exported: the services and tests import these from here.
__all__ = [
    "HandRefused",
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
    "table_apply",
    "table_change",
]


log = logging.getLogger(__name__)
T = TypeVar("T")

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
            _change_end(change, before, persist_plan(change) if change.publish else None)
            if before is not None and change.recalled and change.untouched():
                # Nothing done from the recalled table: it is still what the memory holds.
                transaction.on_commit(functools.partial(memory_keep, locked.pk, before))
    except HandRefused as refused:
        cancel_refused(refused)
        raise


def table_apply(table: Table | int, apply: Callable[[TableChange], T]) -> T:
    """`apply` a command at the table. At a table this process holds and remembers (its
    lease, at the version and epoch it last wrote), from that memory: no read of the table,
    no row lock, every write fenced (`held`). Anywhere else, when the fence refuses (the
    memory was stale: another process moved the table, its lease or a setting), or when the
    memory would refuse the command or write nothing, from the database under the row's lock
    (`table_change(recall=True)`, which recalls the memory if it is current), once.

    Only services that read and change the seats and the hand through `change.seats()`,
    `running_hand()` and `engine_of()` come here (an action, an answer to running it twice,
    a deal)."""
    table_id = table if is_int(table) else getattr(table, "pk", None)
    if is_int(table_id) and (memory := memory_take(table_id)) is not None:
        if not _held(memory):
            memory_keep(table_id, memory)  # not this process's to act from: recalled if current
        else:
            done, result = _apply_held(memory, apply)
            if done:
                return cast(T, result)
    with table_change(table, recall=True) as change:
        return apply(change)


def _held(memory: TableMemory) -> bool:
    """Is this memory a table this process holds, with its hand known (what an action needs)?"""
    remembered = memory.table
    return (
        remembered is not None
        and memory.hand_known
        and (memory.version, memory.epoch) == (remembered.version, remembered.lease_epoch)
        and remembered.lease_owner == process_identity()
    )


def _apply_held(memory: TableMemory, apply: Callable[[TableChange], T]) -> tuple[bool, T | None]:
    """The change from the owner's memory (`table_apply`). In a transaction that sends its
    BEGIN only with a first statement: a change that reads nothing and fits the one statement
    of a mid-hand action (poker/services/action_write.py) leaves it having sent nothing and
    writes that statement in autocommit (one round trip); any other (a hand's end and its
    ledger entries, a deal) writes in the transaction. (True, `apply`'s result) when done.

    The fence checks what the memory writes, not what it would refuse or leave alone: a
    refusal, or a change with nothing to write, is not taken from the memory but decided again
    from the database (False, nothing written). The memory is put back when the change had
    done nothing yet (services refuse before they move the remembered objects; the engine
    refuses before it touches the hand), and recalled there if still current; dropped when
    the fence refused or the change failed after it moved something."""
    assert memory.table is not None
    table_id = memory.table.pk
    change = TableChange(memory.table, held=copy.copy(memory.table))
    change.recall(memory)
    autocommit = not connection.in_atomic_block
    try:
        with transaction.atomic():
            result = apply(change)
            plan = persist_plan(change) if change.publish else None
            if plan is None:
                transaction.set_rollback(True)  # decided again under the lock
                if change.untouched():
                    memory_keep(table_id, memory)
                return False, None
            alone = autocommit and plan.one_statement and _nothing_sent()
            if not alone:
                _change_end(change, memory, plan)
        if alone:
            _change_end(change, memory, plan)  # autocommit: `on_commit` runs each at once
    except StaleOwner:
        return False, None
    except TableError:
        if change.untouched():
            memory_keep(table_id, memory)
        return False, None
    except HandRefused as refused:
        cancel_refused(refused)
        raise
    return True, result


def _nothing_sent() -> bool:
    """Has the transaction sent nothing yet (psycopg begins one with its first statement)?"""
    raw = connection.connection
    return raw is not None and raw.info.transaction_status == pq.TransactionStatus.IDLE


def _change_end(change: TableChange, before: TableMemory | None, plan: PersistPlan | None) -> None:
    """Write the change (`plan`, None when players need not hear of it), build its frames, and
    on commit send them, keep the table's memory and set the timers, in that order (outside a
    transaction `on_commit` runs each at once, so the order is the same)."""
    if plan is not None:
        persist(change, plan)
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
