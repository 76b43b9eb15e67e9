"""Sit & Go tournaments: the templates staff set, the Sit & Gos they open, the players' entries.

A template is the whole of a Sit & Go's rules as data: the game (as the poker tables name it:
game and structure), seats, buy-in and fee in cents, starting chips, the blind structure
(levels and breaks) and the payouts by number of entrants. Each Sit & Go copies its template's
rules when it opens, so a staff edit changes the next Sit & Go, never one already open or
running. Money is the cashier's: a registration's buy-in and fee are one ledger entry, from the
wallet to the tournament's prize pool and the house's fee account (cashier.tournament_buy_in).
Tournament chips are not money and never touch the ledger.
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from poker.models import Table

SEATS_CHOICES = [(2, "2 (heads-up)"), (6, "6-max"), (9, "9-max")]
MAX_LEVELS = 60
MAX_LEVEL_MINUTES = 120


def _whole(value, *, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def blind_levels_check(levels) -> list[dict]:
    """The blind structure as data: a non-empty list of levels, each `{"small_blind",
    "big_blind", "ante" (optional, 0 when absent), "minutes"}` in chips and whole minutes.
    The big blind is above the small blind, the ante below the big blind, and no level's blinds
    are below the level before's. ValidationError names the first level that is wrong."""
    if not isinstance(levels, list) or not levels:
        raise ValidationError("The blind structure needs at least one level.")
    if len(levels) > MAX_LEVELS:
        raise ValidationError(f"At most {MAX_LEVELS} levels.")
    checked: list[dict] = []
    for number, level in enumerate(levels, start=1):
        if not isinstance(level, dict) or not {"small_blind", "big_blind", "minutes"} <= set(level):
            raise ValidationError(
                f"Level {number}: give small_blind, big_blind and minutes (ante is optional)."
            )
        unknown = set(level) - {"small_blind", "big_blind", "ante", "minutes"}
        if unknown:
            raise ValidationError(f"Level {number}: unknown field(s) {sorted(unknown)}.")
        small, big = level["small_blind"], level["big_blind"]
        ante, minutes = level.get("ante", 0), level["minutes"]
        if not _whole(small, low=1, high=10**9) or not _whole(big, low=2, high=10**9):
            raise ValidationError(f"Level {number}: the blinds are whole chips above zero.")
        if big <= small:
            raise ValidationError(f"Level {number}: the big blind must be above the small blind.")
        if not _whole(ante, low=0, high=big - 1):
            raise ValidationError(f"Level {number}: the ante is whole chips below the big blind.")
        if not _whole(minutes, low=1, high=MAX_LEVEL_MINUTES):
            raise ValidationError(f"Level {number}: 1 to {MAX_LEVEL_MINUTES} minutes.")
        if checked and (small < checked[-1]["small_blind"] or big < checked[-1]["big_blind"]):
            raise ValidationError(
                f"Level {number}: blinds never go down from one level to the next."
            )
        checked.append({"small_blind": small, "big_blind": big, "ante": ante, "minutes": minutes})
    return checked


def breaks_check(breaks, *, levels: int) -> list[dict]:
    """Breaks as data: a list of `{"after_level", "minutes"}`, after a level that exists and
    is not the last, at most one after each level."""
    if breaks in (None, ""):
        return []
    if not isinstance(breaks, list):
        raise ValidationError("Breaks are a list of {after_level, minutes}.")
    checked: list[dict] = []
    for pause in breaks:
        if not isinstance(pause, dict) or set(pause) != {"after_level", "minutes"}:
            raise ValidationError("Each break is {after_level, minutes}.")
        after, minutes = pause["after_level"], pause["minutes"]
        if not _whole(after, low=1, high=max(levels - 1, 0)):
            raise ValidationError(
                f"A break comes after one of levels 1 to {levels - 1} (not after {after!r})."
            )
        if not _whole(minutes, low=1, high=60):
            raise ValidationError("A break lasts 1 to 60 minutes.")
        if any(known["after_level"] == after for known in checked):
            raise ValidationError(f"Two breaks after level {after}.")
        checked.append({"after_level": after, "minutes": minutes})
    return sorted(checked, key=lambda pause: pause["after_level"])


def _payout_check(rule) -> dict:
    """One range of entrants and its places' percents (payouts_check)."""
    if not isinstance(rule, dict) or set(rule) != {"min_entrants", "max_entrants", "percents"}:
        raise ValidationError("Each payout is {min_entrants, max_entrants, percents}.")
    low, high, percents = rule["min_entrants"], rule["max_entrants"], rule["percents"]
    if not _whole(low, low=2, high=10) or not _whole(high, low=low, high=10):
        raise ValidationError("Entrants are from 2 to 10, min_entrants <= max_entrants.")
    where = f"{low}-{high} entrants"
    if not isinstance(percents, list) or not all(_whole(p, low=1, high=100) for p in percents):
        raise ValidationError(f"{where}: percents are whole numbers 1 to 100.")
    if sum(percents) != 100:
        raise ValidationError(f"{where}: the payouts sum to {sum(percents)}%, not 100%.")
    if percents != sorted(percents, reverse=True):
        raise ValidationError(f"{where}: a place never pays more than the one above.")
    if len(percents) > low:
        raise ValidationError(f"{where}: {len(percents)} places paid, more than {low} entrants.")
    return {"min_entrants": low, "max_entrants": high, "percents": list(percents)}


def payouts_check(payouts, *, seats: int | None = None) -> list[dict]:
    """The payouts by number of entrants as data: a list of `{"min_entrants", "max_entrants",
    "percents"}`, each a range of entrant counts and the prize pool's share of each place,
    first place first, in whole percents that sum to 100 and never rise from one place to the
    next; no more places paid than entrants. The ranges do not overlap and, given the seats,
    cover every count from 2 to the seats."""
    if not isinstance(payouts, list) or not payouts:
        raise ValidationError("The payouts need at least one range of entrants.")
    checked: list[dict] = []
    for rule in map(_payout_check, payouts):
        for known in checked:
            if rule["min_entrants"] <= known["max_entrants"] and (
                known["min_entrants"] <= rule["max_entrants"]
            ):
                both = max(rule["min_entrants"], known["min_entrants"])
                raise ValidationError(f"Two payouts cover {both} entrants.")
        checked.append(rule)
    checked.sort(key=lambda rule: rule["min_entrants"])
    if seats is not None:
        covered = {n for r in checked for n in range(r["min_entrants"], r["max_entrants"] + 1)}
        missing = sorted(set(range(2, seats + 1)) - covered)
        if missing:
            raise ValidationError(f"No payout for {', '.join(map(str, missing))} entrants.")
    return checked


def level_bets(structure: str, blinds: dict | None) -> tuple[int | None, int | None]:
    """A level's small and big bets at fixed limit: its big blind, and twice that (the level
    is written as blinds, as at pot limit); (None, None) at pot limit or without a level."""
    if structure != Table.Structure.LIMIT or blinds is None:
        return None, None
    return blinds["big_blind"], 2 * blinds["big_blind"]


def payouts_for(payouts: list[dict], *, entrants: int) -> list[int]:
    """The percents of each place paid with this many entrants ([] when no rule covers it)."""
    for rule in payouts:
        if rule["min_entrants"] <= entrants <= rule["max_entrants"]:
            return list(rule["percents"])
    return []


def place_amounts(percents: list[int], pool: int) -> list[int]:
    """Each paid place's prize in cents: its percent of the pool rounded down, the cents the
    rounding leaves over to first place (docs/rules.md "Sit & Go prizes"); sums to the pool."""
    amounts = [pool * percent // 100 for percent in percents]
    if amounts:
        amounts[0] += pool - sum(amounts)
    return amounts


class TournamentTemplate(models.Model):
    """A kind of Sit & Go, set by staff: every Sit & Go of it copies these rules when it opens.
    While `is_active`, one Sit & Go of it is always open for registration (a new one opens
    when the last fills)."""

    name = models.CharField(max_length=60, unique=True)
    game = models.CharField(max_length=10, choices=Table.Game.choices)
    structure = models.CharField(max_length=10, choices=Table.Structure.choices)
    seats = models.PositiveSmallIntegerField(choices=SEATS_CHOICES, default=6)
    # Cents: the buy-in goes to the prize pool, the fee is the house's (no rake in tournaments).
    buy_in = models.PositiveIntegerField(validators=[MinValueValidator(1)])
    fee = models.PositiveIntegerField(default=0)
    starting_chips = models.PositiveIntegerField(
        default=1500, validators=[MinValueValidator(10), MaxValueValidator(10**9)]
    )
    # [{"small_blind", "big_blind", "ante", "minutes"}, ...] in chips (blind_levels_check).
    blind_levels = models.JSONField()
    # [{"after_level", "minutes"}, ...] (breaks_check).
    breaks = models.JSONField(default=list, blank=True)
    # [{"min_entrants", "max_entrants", "percents": [...]}, ...] (payouts_check).
    payouts = models.JSONField()
    action_seconds = models.PositiveIntegerField(
        default=30, validators=[MinValueValidator(5), MaxValueValidator(300)]
    )
    time_bank_seconds = models.PositiveIntegerField(default=60, validators=[MaxValueValidator(600)])
    is_active = models.BooleanField(default=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["game", "structure", "seats", "buy_in", "name"]
        constraints = [
            models.CheckConstraint(
                name="tournaments_template_seats", condition=Q(seats__in=[2, 6, 9])
            ),
            models.CheckConstraint(name="tournaments_template_buy_in", condition=Q(buy_in__gte=1)),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        errors = {}
        try:
            self.blind_levels = blind_levels_check(self.blind_levels)
        except ValidationError as error:
            errors["blind_levels"] = error.messages
        try:
            levels = len(self.blind_levels) if isinstance(self.blind_levels, list) else 0
            self.breaks = breaks_check(self.breaks, levels=levels)
        except ValidationError as error:
            errors["breaks"] = error.messages
        try:
            self.payouts = payouts_check(self.payouts, seats=self.seats)
        except ValidationError as error:
            errors["payouts"] = error.messages
        if errors:
            raise ValidationError(errors)

    def game_label(self) -> str:
        return game_label(self.game, self.structure)


def game_label(game: str, structure: str) -> str:
    """The game as the lobby names it: 'Omaha High pot limit' (PLO), 'Omaha Hi/Lo 8 or Better
    fixed limit'."""
    return f"{Table.Game(game).label} {Table.Structure(structure).label.lower()}"


# The short names players use, for narrow screens: pot-limit Omaha (Hi/Lo), fixed-limit Omaha.
SHORT_NAMES = {
    ("omaha", "pot-limit"): "PLO",
    ("omaha8", "pot-limit"): "PLO8",
    ("omaha", "limit"): "FLO",
    ("omaha8", "limit"): "FLO8",
}


def game_short_label(game: str, structure: str) -> str:
    return SHORT_NAMES.get((game, structure), game)


class Tournament(models.Model):
    """One Sit & Go: it registers until its seats fill, then runs (the seat draw made) until
    a winner is left (the next slice plays it) or staff cancel it."""

    class Status(models.TextChoices):
        REGISTERING = "registering", pgettext_lazy("tournament status", "Registering")
        RUNNING = "running", pgettext_lazy("tournament status", "Running")
        FINISHED = "finished", pgettext_lazy("tournament status", "Finished")
        CANCELLED = "cancelled", pgettext_lazy("tournament status", "Cancelled")

    template = models.ForeignKey(
        TournamentTemplate, on_delete=models.PROTECT, related_name="tournaments"
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTERING)
    # The template's rules as they were when it opened (a later edit changes nothing here).
    game = models.CharField(max_length=10, choices=Table.Game.choices)
    structure = models.CharField(max_length=10, choices=Table.Structure.choices)
    seats = models.PositiveSmallIntegerField()
    buy_in = models.PositiveIntegerField()
    fee = models.PositiveIntegerField()
    starting_chips = models.PositiveIntegerField()
    blind_levels = models.JSONField()
    breaks = models.JSONField(default=list)
    payouts = models.JSONField()
    action_seconds = models.PositiveIntegerField()
    time_bank_seconds = models.PositiveIntegerField()
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    cancel_reason = models.TextField(blank=True, default="")
    # Play (tournaments/play.py): its table, the blind level in force (1-based: 0 before the
    # start), when the next level is due, and the ledger entry that paid its prizes.
    table = models.OneToOneField(
        Table, null=True, blank=True, on_delete=models.PROTECT, related_name="tournament"
    )
    level = models.PositiveSmallIntegerField(default=0)
    next_level_at = models.DateTimeField(null=True, blank=True)
    payout_entry_id = models.BigIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                name="tournaments_tournament_seats", condition=Q(seats__in=[2, 6, 9])
            ),
            models.CheckConstraint(
                name="tournaments_tournament_dates",
                condition=(
                    Q(status="registering", started_at__isnull=True, ended_at__isnull=True)
                    | Q(status="running", started_at__isnull=False, ended_at__isnull=True)
                    | Q(status="finished", started_at__isnull=False, ended_at__isnull=False)
                    | Q(status="cancelled", ended_at__isnull=False)
                ),
            ),
        ]
        indexes = [models.Index(fields=["status", "template"])]

    def __str__(self) -> str:
        return f"Sit & Go #{self.pk} ({self.template.name})" if self.pk else "a new Sit & Go"

    def game_label(self) -> str:
        return game_label(self.game, self.structure)

    @property
    def prize_pool(self) -> int:
        return self.buy_in * self.seats


class Registration(models.Model):
    """A player's entry in a Sit & Go: active until it ends by the player unregistering, a
    self-exclusion, or staff cancelling the tournament (each refunded), or until the
    tournament is over. `entry_id` and `refund_entry_id` are the ledger's entries."""

    class Status(models.TextChoices):
        ACTIVE = "active", _("Registered")
        UNREGISTERED = "unregistered", _("Unregistered")
        EXCLUDED = "excluded", _("Removed (self-exclusion)")
        CANCELLED = "cancelled", _("Refunded (tournament cancelled)")

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="registrations"
    )
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_registrations"
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.ACTIVE)
    buy_in = models.PositiveIntegerField()
    fee = models.PositiveIntegerField()
    entry_id = models.BigIntegerField(unique=True)
    refund_entry_id = models.BigIntegerField(null=True, blank=True, unique=True)
    # The seat drawn when the Sit & Go started (1 to seats), None before.
    seat = models.PositiveSmallIntegerField(null=True, blank=True)
    registered_at = models.DateTimeField(default=timezone.now)
    ended_at = models.DateTimeField(null=True, blank=True)
    # Where the player finished (1 the winner; players sharing places share the best one
    # named) and the prize in cents those places paid them (tournaments/play.py).
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    prize = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["registered_at", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["tournament", "player"],
                condition=Q(status="active"),
                name="tournaments_one_active_registration",
            ),
            models.UniqueConstraint(
                fields=["tournament", "seat"],
                condition=Q(seat__isnull=False),
                name="tournaments_one_player_per_seat",
            ),
            models.CheckConstraint(
                name="tournaments_refund_shape",
                condition=Q(status="active", refund_entry_id__isnull=True)
                | ~Q(status="active") & Q(refund_entry_id__isnull=False, ended_at__isnull=False),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} in tournament {self.tournament_id} ({self.status})"


class Cancellation(models.Model):
    """Staff cancelling a Sit & Go that returns money: asked for by one staff member, carried
    out (everyone refunded) only once a second approves it (four eyes, as balance
    adjustments). A Sit & Go with nobody registered is cancelled at once, with no request."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for approval"
        APPROVED = "approved", "Approved and refunded"
        REJECTED = "rejected", "Rejected"

    tournament = models.ForeignKey(
        Tournament, on_delete=models.PROTECT, related_name="cancellations"
    )
    reason = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        related_name="tournament_cancels_requested",
    )
    requested_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="tournament_cancels_decided",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["-requested_at"]
        permissions = [
            ("approve_cancellation", "Can approve or reject a tournament's cancellation")
        ]
        constraints = [
            models.CheckConstraint(
                name="tournaments_cancel_four_eyes",
                condition=Q(decided_by__isnull=True) | ~Q(decided_by=models.F("requested_by")),
            ),
            models.CheckConstraint(
                name="tournaments_cancel_decision_shape",
                condition=Q(status="pending", decided_by__isnull=True)
                | ~Q(status="pending") & Q(decided_by__isnull=False),
            ),
            models.UniqueConstraint(
                fields=["tournament"],
                condition=Q(status="pending"),
                name="tournaments_one_pending_cancel",
            ),
        ]

    def __str__(self) -> str:
        if self.pk is None:
            return "a new cancellation"
        return f"cancellation #{self.pk} of tournament {self.tournament_id} ({self.status})"
