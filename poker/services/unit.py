"""The unit of work of every table service: `table_change`.

One change at one table is one transaction: lock the table row (`select_for_update`, which
serialises everything that happens at the table on any number of processes), let the service
load and apply, then at exit persist the running hand the change moved, bump the table's
version, build every recipient's frame (`poker.broadcast`) and, only after commit, send them
and set the timers of what comes next (`config.timeouts`).

The process that made a table's last change keeps what it knew of the table (`TableMemory`:
the seats, the running hand's row with its deck, the engine's hand) keyed by the table's id and
`version`. A change that asks for it (`table_change(..., recall=True)`, the acting path) and
finds the locked row at that version uses those objects instead of reading the seats and the
hand and replaying the hand's events (the replay check runs once, when a hand is first loaded).
Every change takes the table's memory out for its transaction and puts back, on commit, what
its frames were built from; a version that moved on (another process, a direct service call)
or a rollback leaves nothing to recall, and the next change loads as before.

A mid-hand action at a table this process remembers as its own takes no lock and opens no
transaction (`table_change_unlocked`, the optimistic path): it is applied to the remembered
objects and written as one fenced statement in autocommit (poker/services/action_write.py),
after which the frames, the memory and the timer go at once, as on commit. The fence (the
version, the lease epoch and live lease, the settings staff may edit) and the owner's one
command at a time per table (poker/owner.py) make the lock redundant there; a refused write
drops the memory, and the command runs again under the lock, from the database. A change
beyond betting (the hand's end and its settlement, a charged time bank) stops before the
memory moves and runs under the lock.

The process that changes a table holds its lease (config/leases.py, shared with the live
Showdown tables): the change's write of the table's row updates it only `WHERE version = <the
version it read> AND lease_epoch = <the epoch it holds>`, so a holder whose lease moved on can
never write (`StaleOwner`, the transaction rolls back); memory is recalled only under the
epoch it was kept with.

Refusals raise `TableError(code, message)` before anything is written (the transaction rolls
back). A hand whose stored state the engine refuses raises `HandRefused`: the change rolls
back and the hand is cancelled in a transaction of its own (`faults.hand_cancel`); the cashier
never saw its bets (a hand posts once, when it settles), so every chip is back where it was.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypeGuard, cast

from django.conf import settings
from django.db import connection, models, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from config.errors import Refused
from config.inputs import parse_cents
from config.leases import StaleOwner, lease_take, owner_check, process_identity
from config.timeouts import Timeout, timeouts_set
from poker import broadcast
from poker.engine.hand import Hand as EngineHand
from poker.engine.hand import ReplayMismatch
from poker.frames import SeatOfferEndedFrame, SeatOfferFrame
from poker.models import Hand, HandEvent, HandPlayer, Seat, Table
from poker.selectors import TableView, seats_playing_count, table_seats
from poker.services import action_write
from poker.services.events import TableEvent

PlayerNotice = SeatOfferFrame | SeatOfferEndedFrame  # what `tell_player` sends

log = logging.getLogger(__name__)

Status = Seat.Status


class TableError(Refused):
    """A refused request at a table: `code` for programs, `message` for people. Nothing changed."""


class LockNeeded(Exception):
    """The optimistic path (`table_change_unlocked`) does not take this change: it is more than
    betting (the hand ends, a time bank is charged), or it needs the database. Nothing was
    written; the command runs under the table's lock instead (`table_change`)."""


class HandRefused(Exception):
    """The engine refused a stored hand: it must be cancelled (in a transaction of its own)."""

    def __init__(self, hand_id: int, code: str, reason: str, detail: str = "") -> None:
        super().__init__(reason)
        self.hand_id = hand_id
        self.code = code
        self.reason = reason
        self.detail = detail


# ------------------------------------------------------------------ validation


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def check_amount(amount: Any, what: str) -> int:
    """Whole cents, 1 to 10^11, by the room's one rule (config.inputs): `bad_amount` else."""
    return parse_cents(amount, field=what, error=TableError)


def check_bool(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise TableError(
            "bad_field",
            _("%(what)s must be true or false, not %(value)s.")
            % {"what": what, "value": repr(value)},
        )
    return value


# ------------------------------------------------------------------ loading


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


# ------------------------------------------------------------------ the table in memory


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


def _memory_after(change: TableChange, view: TableView, before: TableMemory | None) -> TableMemory:
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


# ------------------------------------------------------------------ the change being made


class TableChange:
    """What one service does at one locked table: its events, the hand it moved, the users
    to tell, and what to schedule after commit."""

    def __init__(self, table: Table, *, unlocked: bool = False) -> None:
        self.table = table
        # On the optimistic path (`table_change_unlocked`): no lock, no transaction; the
        # engine is a copy of the remembered one until the change goes on (`betting_only`),
        # after which the memory's objects move (`moving`) and a failure drops them.
        self.unlocked = unlocked
        self.moving = False
        self.events: list[TableEvent] = []
        self.hand_row: Hand | None = None
        self.engine: EngineHand | None = None
        self.since = 0
        self.users: set[int] = set()
        self.publish = False  # set by event/hand/touch: a change players must hear of
        self.hand_moved = False  # the engine moved: persist saves the hand row
        self.lobby_changed = False  # the lobby's row of this table changed: tell lobby pages
        # The lease epoch this change holds the table under: its write is fenced by it.
        self.epoch = table.lease_epoch
        self.schedules: list[Timeout] = []  # the timers it sets, sent after commit
        self.notices: list[tuple[int, PlayerNotice]] = []  # to a player's every page
        # Rows the change altered, saved with the hand and the version (`persist`).
        self.rows_to_save: list[tuple[Any, list[str] | None]] = []
        # True when every seat this change altered is one of `seats()` (the acting path): the
        # frames then show those objects instead of reading the seats again.
        self.seats_fresh = False
        # A view of the table this change built before its frames (a deal's commitment
        # frame), whose money, waiting list, last result and seed hash the frames reuse.
        self.frames_reuse: TableView | None = None
        # (the table's stacks, the seated players' wallets) read in this change after its last
        # money movement (`acting.table_money`, or beside a mid-hand action's one write in
        # `persist`): the frames show them instead of reading them again. Whatever moves money
        # in the change afterwards sets it back to None.
        self.money: tuple[dict[int, int], dict[int, int]] | None = None
        self._running: Hand | None = None
        self._running_loaded = False
        self._seats: dict[int, Seat] | None = None
        # What was recalled from the table's memory (`recall`), and its hand's engine.
        self.recalled = False
        self._recalled_engine: tuple[Hand, EngineHand] | None = None
        self._engine_copied = False

    def recall(self, memory: TableMemory) -> None:
        """Start from what the process remembers of the table at this very version: its seats
        and running hand are these objects, not read again."""
        self.recalled = True
        self._seats = memory.seats
        if memory.hand_known:
            self._running, self._running_loaded = memory.hand, True
            if memory.hand is not None and memory.engine is not None:
                self._recalled_engine = (memory.hand, memory.engine)

    # what the service reads

    def seats(self) -> dict[int, Seat]:
        """The table's seats by number (with their players), read once per change: a service
        changes these objects and saves them, so what it did shows in the rest of the change,
        and a betting change's frames reuse them (a round trip per read saved)."""
        if self._seats is None:
            self._seats = table_seats(table_id=self.table.pk)
        return self._seats

    def seats_reload(self) -> None:
        """A seat was created or deleted: the next `seats()` reads them again."""
        self._seats = None

    def seat_of(self, player) -> Seat:
        player_id = getattr(player, "pk", player)
        for seat in self.seats().values():
            if seat.player_id == player_id:
                return seat
        raise TableError("not_seated", _("You have no seat at this table."))

    def running_hand(self) -> Hand | None:
        if not self._running_loaded:
            self._running = (
                Hand.objects.with_deck()
                .with_players()
                .filter(table_id=self.table.pk, status=Hand.Status.RUNNING)
                .order_by("pk")
                .first()
            )
            self._running_loaded = True
        if self._running is not None and self._running.status != Hand.Status.RUNNING:
            return None  # it ended in this change
        return self._running

    def engine_of(self, hand_row: Hand) -> EngineHand:
        """The engine's hand of `hand_row`: the remembered one if the row is the remembered
        running hand, else loaded from its snapshot and checked by replaying it (`load`)."""
        if self._recalled_engine is not None and self._recalled_engine[0] is hand_row:
            engine = self._recalled_engine[1]
            if self.unlocked and not self._engine_copied:
                # The optimistic path acts on a copy: a refusal or a hand's end leaves the
                # memory's engine as it was, for the locked path to recall.
                engine = engine.copy()
                self._recalled_engine, self._engine_copied = (hand_row, engine), True
            return engine
        return load(hand_row)

    def betting_only(self, *, beyond: bool) -> None:
        """Where a service is about to move the table's rows (the hand's turn and clock, a
        seat's time bank): on the optimistic path, stop here when the change goes `beyond`
        betting (the hand ends, a time bank is charged: `LockNeeded`, and the memory, of which
        only a copy of the engine moved, is recalled under the lock instead). Past this point
        the memory's objects move, so a failure drops them."""
        if self.unlocked:
            if beyond:
                raise LockNeeded("the change is more than betting")
            self.moving = True

    # what the service did

    def event(self, event: TableEvent) -> None:
        """Append a table event (poker.services.events) to the change's `update` frame."""
        self.events.append(cast(TableEvent, {"type": event["type"], **event}))  # type first
        self.publish = True

    def hand(self, hand_row: Hand, engine: EngineHand, since: int, *, moved: bool = True) -> None:
        """The running hand this change showed: its events from `since` are broadcast. If the
        engine `moved`, persist saves the row at exit (else the service saved what it set)."""
        if self.hand_row is None or self.hand_row.pk != hand_row.pk:
            self.since = since
        self.hand_row, self.engine = hand_row, engine
        self.hand_moved = self.hand_moved or moved
        self._running, self._running_loaded = hand_row, True
        self.publish = True

    def save_later(self, row: Any, fields: list[str] | None) -> None:
        """Save these fields of `row` (None: every loaded field) with the rest of the change
        (`persist`, at its end); the fields of a row already waiting are merged (one row is
        written once)."""
        for index, (waiting, waiting_fields) in enumerate(self.rows_to_save):
            if waiting is row:
                if waiting_fields is None or fields is None:
                    self.rows_to_save[index] = (row, None)
                else:
                    added = [field for field in fields if field not in waiting_fields]
                    self.rows_to_save[index] = (row, waiting_fields + added)
                return
        self.rows_to_save.append((row, None if fields is None else list(fields)))

    def touch(self) -> None:
        """Broadcast the table even though no event names what changed."""
        self.publish = True

    def lobby_refresh(self) -> None:
        """The table's lobby row changed (opened, closed): lobby pages hear of it on commit,
        as they do when a player sits or leaves."""
        self.lobby_changed = self.publish = True

    def tell_player(self, user_id: int, frame: PlayerNotice) -> None:
        """After commit, `frame` goes to every page the player has open (lobby, any table)."""
        self.notices.append((user_id, frame))

    def schedule_turn_timer(self, hand_row: Hand) -> None:
        """After commit, a timeout at the turn's deadline for (table, hand, turn): if the
        player acts in time it finds the turn moved on and does nothing."""
        if hand_row.deadline is None:
            raise ValueError("a turn timer needs the hand's deadline")
        self.schedules.append(
            Timeout.due_at(
                "poker.turn",
                table_id=self.table.pk,
                ref_id=hand_row.pk,
                step=hand_row.turn,
                at=hand_row.deadline,
            )
        )

    def schedule_hand_start(self, countdown: float) -> None:
        at = timezone.now() + timedelta(seconds=max(countdown, 0.0))
        self.schedules.append(
            Timeout.due_at("poker.hand_start", table_id=self.table.pk, ref_id=0, step=0, at=at)
        )

    def deal_soon_if_idle(self) -> None:
        """A player became ready: with no hand running, the next one may now be possible."""
        if self.running_hand() is None:
            self.schedule_hand_start(self.table.next_hand_delay_seconds)


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
        memory = _memory_after(change, view, before)
        transaction.on_commit(functools.partial(memory_keep, change.table.pk, memory))
    elif change.rows_to_save:
        rows_save(change.rows_to_save)
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


def persist(change: TableChange) -> None:
    """Write what the change did that is not written yet: the moved hand's new events and the
    hand itself, the rows it altered (a player's last seq), then the table's version and
    lease, fenced: the table's row is written only where its version and lease epoch are
    still the ones this change read (`StaleOwner` otherwise). A mid-hand action's writes are
    one statement (poker/services/action_write.py); anything else (a hand's end, seats
    changing, a deal) is ordinary ORM writes."""
    table, hand_row = change.table, change.hand_row
    events: list[HandEvent] = []
    moved = hand_row if change.engine is not None and change.hand_moved else None
    if moved is not None and change.engine is not None:
        events = moved.record(change.engine, insert=False)  # the log's new events
        change.save_later(moved, list(action_write.HAND_PLAYED))
    fence = {"version": table.version, "lease_epoch": change.epoch}
    now = timezone.now()
    # The optimistic path's fence also names the lease live now and the table's settings as
    # remembered (`table_change_unlocked`); it renews the lease it holds. A change under the
    # lock renews the lease or takes it with the next epoch.
    held = action_write.Held(live_at=now, settings=table) if change.unlocked else None
    table.version += 1
    if change.unlocked:
        table.lease_expires_at = now + timedelta(seconds=settings.POKER_TABLE_LEASE_SECONDS)
    else:
        lease_take(table, now)
    change.save_later(table, list(action_write.TABLE_FENCED))
    rows, change.rows_to_save = change.rows_to_save, []
    if moved is not None and action_write.fits(rows, moved, table):
        players = [row for row, _ in rows if isinstance(row, HandPlayer)]
        # The frames' stacks and wallets are read by the same statement.
        owners = [] if change._seats is None else [s.player_id for s in change._seats.values()]
        money = action_write.write(
            events=events,
            hand_row=moved,
            players=players,
            table=table,
            fence=(fence["version"], fence["lease_epoch"]),
            held=held,
            wallet_owner_ids=owners,
        )
        if money is None:
            raise StaleOwner(table.pk)
        # The wallets read are every seated player's only when the seats were the change's.
        change.money = money if change._seats is not None else None
        return
    if change.unlocked:
        raise LockNeeded("only a mid-hand action's writes go without the lock")
    if events:
        HandEvent.objects.bulk_create(events)
    table_fields = next(fields for row, fields in rows if row is table)
    rows_save([(row, fields) for row, fields in rows if row is not table])
    names = table_fields if table_fields is not None else _loaded_fields(table)
    values = {name: getattr(table, name) for name in names}
    if Table.objects.filter(pk=table.pk, **fence).update(**values) != 1:
        raise StaleOwner(table.pk)


def rows_save(rows: list[tuple[Any, list[str] | None]]) -> None:
    """Save each (row, fields; None: every loaded field): one row of a model with `save()`,
    several (the players' results at a hand's end) with one `bulk_update` of their fields."""
    by_model: dict[type[models.Model], list[tuple[Any, list[str] | None]]] = {}
    for row, fields in rows:
        by_model.setdefault(type(row), []).append((row, fields))
    for model, group in by_model.items():
        if len(group) == 1:
            row, fields = group[0]
            row.save(update_fields=fields)
            continue
        names: list[str] = []
        for row, fields in group:
            for name in fields if fields is not None else _loaded_fields(row):
                if name not in names:
                    names.append(name)
        model._default_manager.bulk_update([row for row, _ in group], names)


def _loaded_fields(row: Any) -> list[str]:
    """The fields `row.save()` would write: every concrete one it loaded but its key."""
    deferred = row.get_deferred_fields()
    return [
        field.attname
        for field in row._meta.concrete_fields
        if not field.primary_key and field.attname not in deferred
    ]


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
