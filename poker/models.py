"""Tables and their rake schedules.

A table is configuration: the game, the stakes, the buy-in range, the timers and the start rule
(RULES.md sections 4-6 and 8). Seats, hands and their events live beside it; money lives in the
cashier's ledger, never here.
"""

from __future__ import annotations

from typing import TypedDict

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from config.money import dollars
from poker.engine.hand import MAX_PLAYERS, limit_small_blind
from poker.engine.rake import RakeSchedule as EngineRakeSchedule


class EngineStakes(TypedDict, total=False):
    """The stakes keywords of `Hand.start` (typed, so that spreading them checks each one)."""

    small_blind: int
    big_blind: int
    small_bet: int
    big_bet: int
    ante: int


def validate_rake_schedule(value: dict) -> None:
    """A schedule staff save must be one the engine can read."""
    try:
        EngineRakeSchedule(value)
    except (TypeError, ValueError, KeyError, AttributeError) as error:
        raise ValidationError(f"not a valid rake schedule: {error}") from error


class RakeSchedule(models.Model):
    """Rake as data (RULES.md section 8), editable by staff; tables refer to one."""

    name = models.CharField(max_length=100, unique=True)
    schedule = models.JSONField(validators=[validate_rake_schedule])

    def __str__(self) -> str:
        return self.name


class TableQuerySet(models.QuerySet):
    def with_occupancy(self) -> TableQuerySet:
        """Annotate `seats_taken`, `waiting_count` (its waiting list), `seats_offered` (free
        seats held for the list) and `seats_free` (free seats nobody holds)."""
        return self.annotate(
            seats_taken=models.Count("seats", distinct=True),
            waiting_count=models.Count("waiting", distinct=True),
            seats_offered=models.Count(
                "waiting", filter=models.Q(waiting__offer_expires_at__isnull=False), distinct=True
            ),
        ).annotate(
            seats_free=models.F("max_seats") - models.F("seats_taken") - models.F("seats_offered")
        )


class Table(models.Model):
    class Game(models.TextChoices):
        OMAHA = "omaha", _("Omaha High")
        OMAHA8 = "omaha8", _("Omaha Hi/Lo 8 or Better")

    class Structure(models.TextChoices):
        LIMIT = "limit", _("Fixed limit")
        POT_LIMIT = "pot-limit", _("Pot limit")

    name = models.CharField(max_length=60, unique=True)
    game = models.CharField(max_length=10, choices=Game.choices)
    structure = models.CharField(max_length=10, choices=Structure.choices)
    # Stakes in cents. Pot limit: small_blind/big_blind. Fixed limit: small_bet/big_bet, the big
    # blind is the small bet and the small blind is half of it rounded down to a whole dollar
    # unless `small_blind` is set (RULES.md section 3).
    small_blind = models.PositiveIntegerField(null=True, blank=True)
    big_blind = models.PositiveIntegerField(null=True, blank=True)
    small_bet = models.PositiveIntegerField(null=True, blank=True)
    big_bet = models.PositiveIntegerField(null=True, blank=True)
    # Each player's ante (a Sit & Go's level, posted before the blinds); cash tables have none.
    ante = models.PositiveIntegerField(default=0, editable=False)
    max_seats = models.PositiveSmallIntegerField(
        default=6, validators=[MinValueValidator(2), MaxValueValidator(10)]
    )
    min_buy_in_big_blinds = models.PositiveSmallIntegerField(default=50)
    max_buy_in_big_blinds = models.PositiveSmallIntegerField(default=100)
    rake_schedule = models.ForeignKey(
        RakeSchedule, null=True, blank=True, on_delete=models.PROTECT, related_name="tables"
    )
    # Timers (RULES.md section 6), seconds; table settings so tests can run them short.
    action_seconds = models.PositiveIntegerField(default=30)
    countdown_seconds = models.PositiveIntegerField(default=20)
    disconnect_grace_seconds = models.PositiveIntegerField(default=20)
    # The time bank (docs/rules.md "Time bank"): extra seconds a player may use after the
    # normal time (and any disconnection grace) runs out. A player sits down with a full bank
    # of `time_bank_seconds`; each hand they are dealt into adds `time_bank_refill_seconds`
    # back, up to that full bank. 0 turns the bank off.
    time_bank_seconds = models.PositiveIntegerField(default=20, validators=[MaxValueValidator(300)])
    time_bank_refill_seconds = models.PositiveIntegerField(
        default=1, validators=[MaxValueValidator(60)]
    )
    sit_out_limit_seconds = models.PositiveIntegerField(default=600)
    next_hand_delay_seconds = models.FloatField(default=3.0)
    # How long a player at the head of the waiting list has to take a seat offered to them.
    seat_offer_seconds = models.PositiveIntegerField(
        default=30, validators=[MinValueValidator(1), MaxValueValidator(600)]
    )
    # Start rule (RULES.md section 4): players needed to start; with `three_to_start`, three to
    # start and two may go on if the last hand had three or more.
    min_players_to_start = models.PositiveSmallIntegerField(
        default=2, validators=[MinValueValidator(2), MaxValueValidator(10)]
    )
    three_to_start = models.BooleanField(default=False)
    # Run it twice (docs/rules.md "Run it twice"): when every player still in is all-in before
    # the river, they are asked whether to deal the rest of the board twice. Pot limit only.
    run_it_twice = models.BooleanField(
        default=False,
        help_text=_("Offer to run the board twice when all are all-in (pot limit only)."),
    )
    is_open = models.BooleanField(default=True)
    # A Sit & Go's table (tournaments/): its seats are the tournament's, its stacks are chips
    # on the seats (`Seat.chips`, never money) and its hands settle chips, not the ledger.
    is_tournament = models.BooleanField(default=False, editable=False)
    # A Sit & Go's break (tournaments/): no hand is dealt before this time (the running hand
    # finishes); None when play is not paused.
    break_until = models.DateTimeField(null=True, blank=True, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # Live state kept with the table (poker/services/): where the button and the big blind
    # were last hand, how many were dealt in (the three-to-start rule), and a counter that
    # grows with every change so clients can order the frames they get.
    button_seat = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    big_blind_seat = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    last_hand_players = models.PositiveSmallIntegerField(default=0, editable=False)
    last_hand_ended_at = models.DateTimeField(null=True, blank=True, editable=False)
    # The next hand is dealt no sooner: the delay after the last one, plus the time its
    # showdown and an all-in runout take on the page (poker.engine.views).
    next_hand_at = models.DateTimeField(null=True, blank=True, editable=False)
    version = models.PositiveBigIntegerField(default=0, editable=False)
    # The number of the table's last hand dealt: the next deal's number is one more, read with
    # the locked row instead of a MAX over the table's hands.
    hands_dealt = models.PositiveIntegerField(default=0, editable=False)
    # The lease of the process holding the table in memory (poker/services/unit.py): who holds
    # it, the fencing number each new holder increments (a write names the one it holds and is
    # refused if it moved on), and until when the holder has it unless it renews it.
    lease_owner = models.CharField(max_length=200, blank=True, default="", editable=False)
    lease_epoch = models.PositiveBigIntegerField(default=0, editable=False)
    lease_expires_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = TableQuerySet.as_manager()

    class Meta:
        ordering = ["game", "structure", "big_blind", "small_bet", "name"]
        constraints = [
            models.CheckConstraint(
                name="table_stakes_match_structure",
                condition=(
                    models.Q(
                        structure="pot-limit",
                        small_blind__gt=0,
                        big_blind__gt=0,
                        small_blind__lte=models.F("big_blind"),
                    )
                    | models.Q(
                        structure="limit",
                        small_bet__gt=0,
                        big_bet=models.F("small_bet") * 2,
                    )
                ),
            ),
            models.CheckConstraint(
                name="table_ante_only_in_tournaments",
                condition=models.Q(ante=0) | models.Q(is_tournament=True),
            ),
            models.CheckConstraint(
                name="table_buy_in_range_ordered",
                condition=models.Q(min_buy_in_big_blinds__lte=models.F("max_buy_in_big_blinds")),
            ),
        ]

    def __str__(self) -> str:
        return (
            f"{self.name} ({self.stakes_label} {self.get_structure_display()} "
            f"{self.get_game_display()})"
        )

    def clean(self) -> None:
        if self.max_seats > MAX_PLAYERS.get(self.structure, 10):
            raise ValidationError(
                {"max_seats": f"at most {MAX_PLAYERS[self.structure]} seats for {self.structure}"}
            )
        if self.run_it_twice and self.structure != self.Structure.POT_LIMIT:
            raise ValidationError(
                {"run_it_twice": _("Only a pot-limit table may run the board twice.")}
            )

    # -- stakes, as the engine and the cashier need them

    @property
    def big_blind_amount(self) -> int:
        """The big blind in cents: the buy-in unit and the ratholing unit."""
        if self.structure == self.Structure.LIMIT:
            return self.small_bet
        return self.big_blind

    @property
    def small_blind_amount(self) -> int:
        if self.structure == self.Structure.LIMIT:
            return self.small_blind or limit_small_blind(self.small_bet)
        return self.small_blind

    @property
    def min_buy_in(self) -> int:
        return self.min_buy_in_big_blinds * self.big_blind_amount

    @property
    def max_buy_in(self) -> int:
        return self.max_buy_in_big_blinds * self.big_blind_amount

    @property
    def stakes_label(self) -> str:
        """The stakes in the reader's language: $1/$2, 1 $/2 $, 1ドル/2ドル."""
        if self.structure == self.Structure.LIMIT:
            small, big = self.small_bet, self.big_bet
        else:
            small, big = self.small_blind, self.big_blind
        return f"{dollars(small, short=True)}/{dollars(big, short=True)}"

    def engine_stakes(self) -> EngineStakes:
        """Keyword arguments for `Hand.start` describing the stakes (the ante only when the
        table has one: a Sit & Go's level)."""
        stakes: EngineStakes
        if self.structure == self.Structure.LIMIT:
            stakes = {
                "small_bet": self.small_bet,
                "big_bet": self.big_bet,
                "small_blind": self.small_blind_amount,
            }
        else:
            stakes = {"small_blind": self.small_blind, "big_blind": self.big_blind}
        if self.ante:
            stakes["ante"] = self.ante
        return stakes

    def engine_rake(self) -> dict | None:
        return self.rake_schedule.schedule if self.rake_schedule_id else None


# -- live tables: seats, hands and what went wrong with them


class Seat(models.Model):
    """A player in a seat at a table. The row exists while the seat is taken.

    Chips are not here: the player's table stack lives in the cashier's ledger. The flags say
    how the player takes part in the next deal (RULES.md 4-6). At a tournament table
    (`Table.is_tournament`) the stack is `chips`: tournament chips, which are not money.
    """

    class Status(models.TextChoices):
        EMPTY = "empty", "Empty"  # only in the wire format: a free seat has no row
        PLAYING = "playing", "Playing"
        SITTING_OUT = "sitting_out", "Sitting out"
        WAITING_BIG_BLIND = "waiting_big_blind", "Waiting for the big blind"

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    number = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(10)]
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="poker_seats"
    )
    status = models.CharField(max_length=20, choices=Status.choices, default=Status.PLAYING)
    sat_down_at = models.DateTimeField(auto_now_add=True)
    sat_out_at = models.DateTimeField(null=True, blank=True)
    # Sat out while the big blind passed: owes one on return (wait for it or post it).
    missed_big_blind = models.BooleanField(default=False)
    # Chose to post a big blind to be dealt in at once: an extra big blind next hand.
    posts_big_blind_next = models.BooleanField(default=False)
    connected = models.BooleanField(default=False)
    disconnected_at = models.DateTimeField(null=True, blank=True)
    # The channel name of the player's live socket here ("" when none).
    socket = models.CharField(max_length=200, blank=True, default="")
    # Timed out in the running hand: sat out when it ends (RULES.md 6).
    time_out_pending = models.BooleanField(default=False)
    # Asked to leave during a hand they are dealt in: checked/folded, then cashed out at its end.
    leave_pending = models.BooleanField(default=False)
    # Why and by whom, for a leave at the hand's end the player did not ask for ("removed",
    # "table_closed"; a staff member's suspension): the cash-out then names them.
    leave_reason = models.CharField(max_length=20, blank=True, default="")
    leave_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    # Whole seconds left in the player's time bank (docs/rules.md "Time bank").
    time_bank = models.PositiveIntegerField(default=0)
    # The player's own choices (docs/rules.md "Seat options"): sit out when the big blind
    # would reach them, stand up when the hand they are in ends, and keep their stack topped
    # up to the most they may have here (a re-buy when it is empty) after every hand.
    sit_out_next_big_blind = models.BooleanField(default=False)
    leave_after_hand = models.BooleanField(default=False)
    auto_top_up = models.BooleanField(default=False)
    # Tournament chips at a tournament table (None at a cash table, whose stack is money).
    chips = models.PositiveBigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="seat_number_unique"),
            models.UniqueConstraint(fields=["table", "player"], name="seat_one_per_player"),
        ]

    def __str__(self) -> str:
        return f"{self.table.name} seat {self.number}: {self.player}"


class WaitingEntry(models.Model):
    """A player in a table's waiting list (RULES.md 5), in the order they joined. While a seat
    is offered to them `offer_expires_at` is set and the seat is held for them: nobody else may
    take it until they sit, decline or let the offer pass (then they leave the list)."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="waiting")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="waiting_entries"
    )
    joined_at = models.DateTimeField(default=timezone.now)
    offer_expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["table", "joined_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "player"], name="waiting_one_per_player"),
        ]
        indexes = [models.Index(fields=["table", "joined_at", "id"], name="waiting_queue")]

    def __str__(self) -> str:
        return f"{self.player} waiting at {self.table.name}"


class TableBar(models.Model):
    """Staff removed a player from a table: until `until` they may not sit, buy in, be offered
    a seat or join the waiting list there, so a removed player cannot buy back in at once.
    Staff may lift it early; both acts are in the audit chain."""

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="bars")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="table_bars"
    )
    until = models.DateTimeField()
    staff = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="table_bars_made"
    )
    reason = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)
    lifted_at = models.DateTimeField(null=True, blank=True)
    lifted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="table_bars_lifted",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["player", "table", "until"], name="table_bar_active")]

    def __str__(self) -> str:
        return f"{self.player} barred from {self.table.name} until {self.until:%Y-%m-%d %H:%M}"

    def is_active(self, now=None) -> bool:
        return self.lifted_at is None and self.until > (now or timezone.now())


class HandQuerySet(models.QuerySet):
    def with_deck(self) -> HandQuerySet:
        """Also read the deck: only for the services that deal or play the hand on."""
        return self.defer(None)

    def with_players(self) -> HandQuerySet:
        """Also read each hand's `HandPlayer` rows, in the same query (a JSON aggregate: one
        round trip less on every action)."""
        from django.contrib.postgres.aggregates import JSONBAgg
        from django.db.models.functions import JSONObject

        rows = (
            HandPlayer.objects.filter(hand=models.OuterRef("pk"))
            .order_by()
            .values("hand")
            .annotate(
                rows=JSONBAgg(
                    JSONObject(
                        id="id", seat="seat", player_id="player_id", last_seq="last_seq", net="net"
                    )
                )
            )
            .values("rows")
        )
        return self.annotate(hand_player_rows=models.Subquery(rows))


class HandManager(models.Manager.from_queryset(HandQuerySet)):
    """Hands as everyone reads them: without the deck (the cards still to come live in that
    one column, read only by the services that play the hand through `with_deck()`)."""

    def get_queryset(self) -> HandQuerySet:
        return super().get_queryset().defer("deck")


class Hand(models.Model):
    """One deal at a table: its inputs and a snapshot of the engine's hand.

    The deck is stored once, in `deck`, and nowhere else (`Hand.objects` does not even read it;
    services playing the hand ask for it with `with_deck()`). `setup` is the engine's inputs
    without it (`setup_without_deck`); the hand itself is its append-only log of `HandEvent`
    rows, and `state` is only a snapshot (`EngineHand.snapshot()`, no deck) that
    `EngineHand.rebuild(setup, deck, events)` can always give again. Who was dealt in, and
    each one's last client seq, are `HandPlayer` rows. `turn` grows every time the action
    moves, so timers and clients can name the decision they mean.
    """

    class Status(models.TextChoices):
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"

    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="hands")
    number = models.PositiveIntegerField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.RUNNING)
    deck = models.JSONField()  # the only place of the deck: read by `with_deck()` alone
    setup = models.JSONField()  # `EngineHand.setup_without_deck`
    state = models.JSONField()  # `EngineHand.snapshot()`: rebuilt by its setup, deck and log
    turn = models.PositiveIntegerField(default=1)
    action_started_at = models.DateTimeField(null=True, blank=True)
    # When the player to act starts using their time bank (their normal time, with any
    # disconnection grace, ends then); None when they have no bank. `deadline` includes it.
    time_bank_from = models.DateTimeField(null=True, blank=True)
    deadline = models.DateTimeField(null=True, blank=True)
    cancel_reason = models.TextField(blank=True)
    # The engine's result once finished (a copy from `state`, so the last result is cheap to read)
    result = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    # For the lobby's figures (poker.selectors.table_stats), set when the hand finishes: the
    # chips in its pots, how many were dealt in, and how many were still in at the flop.
    pot_total = models.PositiveBigIntegerField(null=True, blank=True, editable=False)
    players_dealt = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)
    players_at_flop = models.PositiveSmallIntegerField(null=True, blank=True, editable=False)

    objects = HandManager()

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="hand_number_unique"),
            models.UniqueConstraint(
                fields=["table"],
                condition=models.Q(status="running"),
                name="hand_one_running_per_table",
            ),
        ]
        indexes = [
            models.Index(fields=["status", "deadline"], name="hand_status_deadline"),
            models.Index(fields=["table", "ended_at"], name="hand_table_ended"),
        ]

    def __str__(self) -> str:
        return f"Hand #{self.pk} ({self.table.name}, its hand {self.number}, {self.status})"

    def refresh_from_db(self, *args, **kwargs) -> None:
        self._seated_players = None  # read the players again too
        super().refresh_from_db(*args, **kwargs)

    def record(self, engine, *, since: int | None = None, insert: bool = True) -> list:
        """Keep what the engine did: its events from `since` appended to the log (one INSERT,
        or with `insert=False` returned for the caller to insert with its other writes) and
        its snapshot as `state`. By default `since` is the end of the stored snapshot, whose
        events are always logged already. The caller saves the row."""
        start = len(self.state.get("events", ())) if since is None else since
        new = [
            HandEvent(hand_id=self.pk, seq=start + k, kind=event["type"], payload=event)
            for k, event in enumerate(engine.events[start:])
        ]
        if new and insert:
            HandEvent.objects.bulk_create(new)
        self.state = engine.snapshot()
        return new

    def seated_players(self) -> dict[int, HandPlayer]:
        """Seat number -> `HandPlayer` of everyone dealt in; read once per row (or read with
        the hand, `Hand.objects.with_players()`)."""
        cached = getattr(self, "_seated_players", None)
        if cached is None:
            read_with_hand = getattr(self, "hand_player_rows", None)
            if read_with_hand is not None:
                rows = [HandPlayer.from_json(self, data) for data in read_with_hand]
            else:
                rows = list(HandPlayer.objects.filter(hand_id=self.pk))
            cached = {row.seat: row for row in rows}
            self._seated_players = cached
        return cached

    @classmethod
    def prefetch_players(cls, hands: list[Hand]) -> None:
        """Read the `HandPlayer` rows of several hands in one query (those not read yet, nor
        read with their hand by `with_players()`)."""
        todo = {
            hand.pk: hand
            for hand in hands
            if getattr(hand, "_seated_players", None) is None
            and getattr(hand, "hand_player_rows", None) is None
        }
        if not todo:
            return
        for hand in todo.values():
            hand._seated_players = {}
        for row in HandPlayer.objects.filter(hand_id__in=list(todo)):
            todo[row.hand_id]._seated_players[row.seat] = row

    def seat_players_set(self, players: dict[int, int], positions: dict[int, str]) -> None:
        """Write who is dealt in (seat -> user id) and where (seat -> position) when the hand
        is dealt: one INSERT."""
        rows = HandPlayer.objects.bulk_create(
            HandPlayer(hand_id=self.pk, seat=seat, player_id=user_id, position=positions[seat])
            for seat, user_id in sorted(players.items())
        )
        self._seated_players = {row.seat: row for row in rows}

    def is_dealt(self, seat_number: int) -> bool:
        """Is this seat dealt into the hand?"""
        return seat_number in self.seated_players()

    def player_ids(self) -> dict[int, int]:
        """Seat number -> user id of everyone dealt in."""
        return {seat: row.player_id for seat, row in self.seated_players().items()}

    def last_seq_of(self, user_id: int) -> int:
        """The last client seq accepted from this player in this hand (0: none yet)."""
        return next(
            (row.last_seq for row in self.seated_players().values() if row.player_id == user_id),
            0,
        )

    def nets_set(self, net_by_seat: dict[int, int]) -> list[HandPlayer]:
        """Each player's net of the finished hand on their row; the caller saves the rows
        returned (with the rest of its change)."""
        rows = list(self.seated_players().values())
        for row in rows:
            row.net = net_by_seat.get(row.seat, 0)
        return rows

    def last_seq_set(self, seat_number: int, seq: int) -> HandPlayer:
        """Accept `seq` from the player in this seat; the caller saves the row returned."""
        row = self.seated_players()[seat_number]
        row.last_seq = seq
        return row


class HandEvent(models.Model):
    """One event of a hand, as the engine wrote it: the hand's append-only log.

    `seq` is the event's place in the engine's list (0 is `hand_started`). Rows are inserted
    once and never changed: PostgreSQL refuses UPDATE and DELETE (migration 0006), as it does
    for the ledger. Hole cards and burns are in the payloads (a finished hand's history needs
    them), the deck never is; readers redact a running hand's events (`redact_event`).
    """

    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveIntegerField()
    kind = models.CharField(max_length=30)
    payload = models.JSONField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["hand", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["hand", "seq"], name="hand_event_seq_unique"),
        ]

    def __str__(self) -> str:
        return f"hand {self.hand_id} event {self.seq}: {self.kind}"


class HandPlayer(models.Model):
    """A player dealt into a hand, in a seat: "the tables a player played at" and "a player's
    hands" are queries over these rows. `last_seq` is the last client seq accepted from them in
    this hand (a repeated or older one is refused)."""

    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, related_name="hand_players")
    seat = models.PositiveSmallIntegerField(
        validators=[MinValueValidator(1), MaxValueValidator(10)]
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="poker_hands"
    )
    last_seq = models.PositiveBigIntegerField(default=0)
    # What the hand won or lost them, rake taken, once it finished (None while it runs, and for
    # a cancelled hand, which moved nothing): "My hands" filters and sums on it.
    net = models.BigIntegerField(null=True, blank=True)
    # Their position in the hand (BTN, SB, BB, UTG, ..., CO: poker.engine.positions), written
    # when it is dealt: "My hands" shows it and filters by it.
    position = models.CharField(max_length=5, blank=True, default="")

    class Meta:
        ordering = ["hand", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["hand", "seat"], name="hand_player_seat_unique"),
            models.UniqueConstraint(fields=["hand", "player"], name="hand_player_once"),
        ]
        indexes = [models.Index(fields=["player", "hand"], name="hand_player_by_player")]

    def __str__(self) -> str:
        return f"hand {self.hand_id} seat {self.seat}: player {self.player_id}"

    @classmethod
    def from_json(cls, hand: Hand, data: dict) -> HandPlayer:
        """A row read as JSON with its hand (`Hand.objects.with_players()`), as if read alone."""
        names = ["id", "hand_id", "seat", "player_id", "last_seq", "net"]
        values = [data["id"], hand.pk, data["seat"], data["player_id"], data["last_seq"]]
        return cls.from_db(hand._state.db, names, [*values, data["net"]])


class HandIncident(models.Model):
    """A hand that could not go on and was cancelled: for staff to look into."""

    hand = models.ForeignKey(Hand, on_delete=models.PROTECT, related_name="incidents")
    table = models.ForeignKey(Table, on_delete=models.PROTECT, related_name="incidents")
    code = models.CharField(max_length=40)
    reason = models.TextField()
    detail = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.table.name} hand {self.hand_id}: {self.code}"


class RngCheck(models.Model):
    """One run of the RNG integrity battery (`manage.py rng_check`, the daily beat task): the
    verdict and every statistic, kept for staff and auditors (docs/fairness.md)."""

    class Form(models.TextChoices):
        QUICK = "quick", "quick (daily)"
        LONG = "long", "long (10^6 shuffles)"
        CUSTOM = "custom", "custom size"

    form = models.CharField(max_length=10, choices=Form.choices)
    generator = models.CharField(max_length=60, help_text="what fed the shuffle")
    shuffles = models.PositiveIntegerField()
    raw_draws = models.PositiveIntegerField()
    passed = models.BooleanField()
    alpha = models.FloatField(help_text="the battery's false-alarm level (0.01: 99% confidence)")
    statistics = models.JSONField(help_text="each statistic, its p-values and verdict")
    dieharder = models.TextField(blank=True, default="", help_text="dieharder's summary, if run")
    started_at = models.DateTimeField()
    seconds = models.FloatField(help_text="how long the battery took")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        verdict = "passed" if self.passed else "FAILED"
        return f"RNG check {self.started_at:%Y-%m-%d %H:%M} ({self.form}): {verdict}"


class ChatMessage(models.Model):
    """A line of a table's chat (docs/rules.md "Table chat"): what a seated player wrote, as
    they wrote it (pages escape it; nothing here is HTML). Never edited; staff may remove one
    (who, when and why stay on it and in the audit log), and a removed line is sent to nobody
    again."""

    MAX_LENGTH = 200

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat_messages")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="table_chat_messages"
    )
    seat = models.PositiveSmallIntegerField()
    text = models.CharField(max_length=MAX_LENGTH)
    created_at = models.DateTimeField(default=timezone.now)
    removed_at = models.DateTimeField(null=True, blank=True)
    removed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    removed_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        default_permissions = ("view",)
        permissions = [("remove_chatmessage", "Can remove a table chat message")]
        indexes = [models.Index(fields=["table", "created_at"], name="chat_table_time")]

    def __str__(self) -> str:
        return f"{self.table.name} chat #{self.pk} by {self.player}"


class TableOwner(models.Model):
    """A live table owner (poker/owner.py) announcing itself, so that a table no live owner
    holds goes to one of them (`owner_for`) before it has taken any table of its own. Written
    when the owner starts and with each renewal of its leases, to the same expiry; a killed
    owner's row lapses with its leases. `route` is the front's name for its process
    (POKER_OWNER_ROUTE): a table page's socket asks the front for it (docs/operations.md)."""

    name = models.CharField(max_length=200, unique=True)  # as in Table.lease_owner
    route = models.CharField(max_length=100, blank=True, default="")
    started_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(db_index=True)

    def __str__(self) -> str:
        return self.name
