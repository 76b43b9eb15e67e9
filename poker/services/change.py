"""`TableChange`: what one service does at one table (its events, the hand it moved, the rows
it altered, the users to tell, the timers to set), made by `unit.table_change` or
`unit.table_apply` and written by `write.persist`."""

from __future__ import annotations

from datetime import timedelta
from typing import Any, cast

from django.utils import timezone
from django.utils.translation import gettext as _

from config.timeouts import Timeout
from poker.engine.hand import Hand as EngineHand
from poker.frames import SeatOfferEndedFrame, SeatOfferFrame
from poker.models import Hand, Seat, Table
from poker.selectors import TableView, table_seats
from poker.services.events import TableEvent
from poker.services.loading import load
from poker.services.memory import TableMemory
from poker.services.validation import TableError

PlayerNotice = SeatOfferFrame | SeatOfferEndedFrame  # what `tell_player` sends


class TableChange:
    """What one service does at one table: its events, the hand it moved, the users to tell,
    and what to schedule after commit."""

    def __init__(self, table: Table, *, held: Table | None = None) -> None:
        self.table = table
        # A change made from the owner's memory without the row's lock (`unit.table_apply`):
        # the table's settings as remembered when it started, which its fenced write names
        # with the lease still live (staff edit settings without a new version).
        self.held = held
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
        # The Sit & Go whose table this change closed for good (`sockets_close`), else None.
        self.sockets_closing: int | None = None
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
            return self._recalled_engine[1]
        return load(hand_row)

    def untouched(self) -> bool:
        """Nothing done yet: no event, no hand shown, no row to save, no timer, no notice (a
        refusal before this point leaves the remembered objects as they were)."""
        return not (self.publish or self.rows_to_save or self.schedules or self.notices)

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

    def sockets_close(self, *, tournament_id: int) -> None:
        """The table closed for good (its Sit & Go is over): after commit and after this
        change's frames, every socket there hears `table_closed` and closes; no heartbeat
        follows (docs/protocol.md "Sit & Go tables")."""
        self.sockets_closing = tournament_id

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
