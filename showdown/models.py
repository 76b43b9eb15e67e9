"""Omaha Showdown online (RULES.md 9): paytables as data, the banked tables and each player's
rounds against the house.

The rules are `poker.engine.showdown`; a round stores the engine's state (`to_dict()`) with the
deck kept apart in its own column, which nothing shows before the round is settled. Money is
the cashier's: each round names the ledger entries that moved its wagers (placed, the Call or
Raise bet, then the settlement or the void).
"""

from __future__ import annotations

import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from poker.engine.showdown import ShowdownError, ShowdownLimits
from poker.engine.showdown_paytables import (
    Paytable as EnginePaytable,
)
from poker.engine.showdown_paytables import (
    PaytableError,
    ShowdownPaytables,
)

# The stored codes of RULES.md 9's lettered paytables: "hcb-a" ... "fhb-e".
STANDARD_NAME = re.compile(r"(?:hcb|fhb)-([a-e])")


class Paytable(models.Model):
    """One paytable (RULES.md 9): "X to 1" per category, with its exact house edge and hit
    rate computed by `poker.engine.showdown_math` whenever it is saved through the service."""

    class Kind(models.TextChoices):
        BET = "bet", pgettext_lazy("wager", "Bet")
        HOLE_CARD_BONUS = "hole_card_bonus", pgettext_lazy("wager", "Hole Card Bonus")
        FINAL_HAND_BONUS = "final_hand_bonus", pgettext_lazy("wager", "Final Hand Bonus")

    kind = models.CharField(max_length=20, choices=Kind.choices)
    name = models.CharField(max_length=40, unique=True)
    pays = models.JSONField(help_text='"X to 1" per category, e.g. {"royal flush": 25, ...}')
    # The exact edge as a fraction ("1024889419/38630291700") and in percent; for the Bet table
    # the Ante game's edge per Ante under optimal play.
    edge = models.CharField(max_length=60, editable=False, default="")
    edge_pct = models.FloatField(editable=False, null=True)
    hit_rate_pct = models.FloatField(editable=False, null=True)
    updated_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["kind", "name"]

    def __str__(self) -> str:
        return self.title()

    def title(self) -> str:
        """The name players read (RULES.md 9's letters): "Hole Card Bonus A" for the stored
        code "hcb-a", "Bet" for "bet"; a paytable staff named otherwise keeps its name after
        the wager's."""
        kind = str(self.get_kind_display())
        standard = STANDARD_NAME.fullmatch(self.name)
        if self.name == "bet" or self.name == self.kind:
            return kind
        if standard is not None:
            return _("%(wager)s %(letter)s") % {"wager": kind, "letter": standard[1].upper()}
        return _("%(wager)s %(letter)s") % {"wager": kind, "letter": self.name}

    def engine(self) -> EnginePaytable:
        """The engine's checked paytable; PaytableError when the stored one breaks a rule."""
        return EnginePaytable(kind=self.kind, name=self.name, pays=self.pays)

    def clean(self) -> None:
        try:
            self.engine()
        except PaytableError as error:
            raise ValidationError({"pays": str(error)}) from error

    def lines(self) -> list[tuple[str, int]]:
        """(category, pays) from the highest category down, for pages."""
        try:
            return list(self.engine().pays.items())
        except PaytableError:
            return sorted(self.pays.items(), key=lambda line: -line[1])


class ShowdownTable(models.Model):
    """An online Omaha Showdown table: one player against the house, its wager limits in
    cents, the maximum aggregate payout of a round and the three paytables it plays by."""

    name = models.CharField(max_length=60, unique=True)
    ante_min = models.PositiveIntegerField(default=500)
    ante_max = models.PositiveIntegerField(default=20_000)
    hole_card_bonus_min = models.PositiveIntegerField(default=100)
    hole_card_bonus_max = models.PositiveIntegerField(default=10_000)
    final_hand_bonus_min = models.PositiveIntegerField(default=100)
    final_hand_bonus_max = models.PositiveIntegerField(default=5_000)
    # The most the house pays in winnings in one round (RULES.md 9.1); empty for no cap.
    max_aggregate_payout = models.BigIntegerField(null=True, blank=True)
    bet_paytable = models.ForeignKey(
        Paytable,
        on_delete=models.PROTECT,
        related_name="+",
        limit_choices_to={"kind": Paytable.Kind.BET},
    )
    hole_card_bonus_paytable = models.ForeignKey(
        Paytable,
        on_delete=models.PROTECT,
        related_name="+",
        limit_choices_to={"kind": Paytable.Kind.HOLE_CARD_BONUS},
    )
    final_hand_bonus_paytable = models.ForeignKey(
        Paytable,
        on_delete=models.PROTECT,
        related_name="+",
        limit_choices_to={"kind": Paytable.Kind.FINAL_HAND_BONUS},
    )
    is_open = models.BooleanField(default=True)
    # 1: the online game, one player against the house; 2-7: a live table (RULES.md 9's
    # land-based game), seats that place wagers in a betting window and share one board.
    seats = models.PositiveSmallIntegerField(default=1)
    # Live tables only: how long the betting window stays open after the first wager, and
    # how long the seats have to decide before the undecided fold (docs/rules.md).
    bet_seconds = models.PositiveSmallIntegerField(default=15)
    action_seconds = models.PositiveSmallIntegerField(default=20)
    # Live tables only, as a poker table's sit-out limit: a seat whose player has had no
    # socket open at the table, and placed no wager, for this long is stood up
    # (docs/rules.md "Omaha Showdown live").
    away_limit_seconds = models.PositiveIntegerField(default=300)
    # Live tables only, as a poker table's: the version every change of the
    # table bumps (its frames are numbered by it), and the lease of the owner that runs its
    # commands (poker/owner.py): who holds it, the fencing number each new holder increments
    # (a write names the one it holds and is refused if it moved on), until when.
    version = models.PositiveBigIntegerField(default=0, editable=False)
    lease_owner = models.CharField(max_length=200, blank=True, default="", editable=False)
    lease_epoch = models.PositiveBigIntegerField(default=0, editable=False)
    lease_expires_at = models.DateTimeField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["ante_min", "name"]

    def __str__(self) -> str:
        return self.name

    def limits(self) -> ShowdownLimits:
        """The engine's limits (one seat online, up to seven live); ShowdownError when they
        break a rule."""
        return ShowdownLimits(
            seats=self.seats,
            ante_min=self.ante_min,
            ante_max=self.ante_max,
            hole_card_bonus_min=self.hole_card_bonus_min,
            hole_card_bonus_max=self.hole_card_bonus_max,
            final_hand_bonus_min=self.final_hand_bonus_min,
            final_hand_bonus_max=self.final_hand_bonus_max,
            max_aggregate_payout=self.max_aggregate_payout,
        )

    @property
    def is_live(self) -> bool:
        return self.seats > 1

    def paytable_rows(self) -> list[Paytable]:
        """The three paytables as pages list them: Bet, Hole Card Bonus, Final Hand Bonus."""
        return [self.bet_paytable, self.hole_card_bonus_paytable, self.final_hand_bonus_paytable]

    def paytables(self) -> ShowdownPaytables:
        return ShowdownPaytables(
            bet=self.bet_paytable.engine(),
            hole_card_bonus=self.hole_card_bonus_paytable.engine(),
            final_hand_bonus=self.final_hand_bonus_paytable.engine(),
        )

    def clean(self) -> None:
        try:
            self.limits()
        except ShowdownError as error:
            raise ValidationError(error.reason[:1].upper() + error.reason[1:] + ".") from error
        for kind in Paytable.Kind.values:
            chosen = (
                getattr(self, f"{kind}_paytable") if getattr(self, f"{kind}_paytable_id") else None
            )
            if chosen is not None and chosen.kind != kind:
                label = Paytable.Kind(kind).label
                raise ValidationError({f"{kind}_paytable": f"{chosen} is not a {label} paytable."})


class ShowdownRound(models.Model):
    """One player's round at one table: dealt (waiting for Fold, Call or Raise, for as long
    as it takes), then settled, or voided after 90 days unresolved (RULES.md 6)."""

    class Status(models.TextChoices):
        DEALT = "dealt", "Dealt, waiting for the player's decision"
        SETTLED = "settled", "Settled"
        VOIDED = "voided", "Voided (unresolved for 90 days)"

    class Decision(models.TextChoices):
        FOLD = "fold", _("Fold")
        CALL = "call", _("Call")
        RAISE = "raise", _("Raise")

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="showdown_rounds"
    )
    table = models.ForeignKey(ShowdownTable, on_delete=models.PROTECT, related_name="rounds")
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DEALT)
    # The engine's state without the deck ("deck": []); the deck is below, so that reading the
    # state never tells the board to come.
    state = models.JSONField()
    deck = models.JSONField()
    # Wagers in cents (the Bet is 0 until the player calls or raises) and what is in play.
    ante = models.PositiveIntegerField()
    hole_card_bonus = models.PositiveIntegerField(default=0)
    final_hand_bonus = models.PositiveIntegerField(default=0)
    bet = models.PositiveIntegerField(default=0)
    staked = models.PositiveIntegerField()
    decision = models.CharField(max_length=5, choices=Decision.choices, blank=True, default="")
    # The engine's result once settled, and the player's net over every wager (+ won).
    result = models.JSONField(null=True, blank=True)
    net = models.BigIntegerField(null=True, blank=True)
    payout_capped = models.BooleanField(default=False)
    # The client's keys: a repeated Deal or decision with the same key replays, never repeats.
    deal_key = models.CharField(max_length=100)
    decide_key = models.CharField(max_length=100, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    settled_at = models.DateTimeField(null=True, blank=True, db_index=True)
    # At a live table: the shared round (deck, board, every seat's wagers) and this player's
    # seat in it. The row itself is the player's share: their wagers, cards, entries and net.
    live_round = models.ForeignKey(
        "LiveRound", on_delete=models.PROTECT, null=True, blank=True, related_name="seat_rounds"
    )
    live_seat = models.PositiveSmallIntegerField(null=True, blank=True)
    voided_at = models.DateTimeField(null=True, blank=True)
    # When the player was told their round was voided (on their next visit).
    void_told_at = models.DateTimeField(null=True, blank=True)
    # The ledger entries: wagers placed at the deal, the Call/Raise bet, the settlement or void.
    wager_entry = models.OneToOneField(
        "cashier.Entry", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    bet_entry = models.OneToOneField(
        "cashier.Entry", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    # Not unique: a live round's seats all name the one entry that settled the board.
    result_entry = models.ForeignKey(
        "cashier.Entry", on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "deal_key"], name="showdown_deal_key_once_per_player"
            ),
            models.UniqueConstraint(
                fields=["player", "table"],
                condition=Q(status="dealt"),
                name="showdown_one_unfinished_round_per_player_table",
            ),
        ]
        indexes = [
            models.Index(fields=["player", "-id"]),
            models.Index(fields=["status", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"round #{self.pk} at {self.table_id}"

    @property
    def hole(self) -> list[str]:
        return (self.state.get("holes") or {}).get("1", [])

    @property
    def board(self) -> list[str]:
        return self.state.get("board") or []

    @property
    def seat_result(self) -> dict | None:
        return self.result["seats"][0] if self.result else None


class LiveSeat(models.Model):
    """A player sitting at a live Showdown table (seats 1-7, clockwise from the dealer's left)."""

    table = models.ForeignKey(ShowdownTable, on_delete=models.CASCADE, related_name="live_seats")
    number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="showdown_seats"
    )
    sat_at = models.DateTimeField(default=timezone.now)
    # Stands up when the round holding this player's wagers settles (a self-exclusion, or
    # away past the table's limit).
    leave_pending = models.BooleanField(default=False)
    # Whether a socket of the player is open at the table (the one named), as a poker seat's;
    # `away_since`: since when none is and no wager was placed (None while one is open), the
    # clock the table's `away_limit_seconds` runs on.
    connected = models.BooleanField(default=False)
    socket = models.CharField(max_length=200, blank=True, default="")
    away_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="showdown_live_seat_once"),
            models.UniqueConstraint(fields=["table", "player"], name="showdown_live_player_once"),
        ]

    def __str__(self) -> str:
        return f"seat {self.number} at {self.table_id}"


class LiveRound(models.Model):
    """One round at a live table: the engine's multi-seat state (deck apart, as online), the
    betting window's and the decision window's deadlines. Each seat's money is in its own
    ShowdownRound (`seat_rounds`), so the ledger and verify_ledger see one round per player."""

    class Phase(models.TextChoices):
        BETTING = "betting", "Betting"
        DECIDING = "deciding", "Deciding"
        SETTLED = "settled", "Settled"

    table = models.ForeignKey(ShowdownTable, on_delete=models.PROTECT, related_name="live_rounds")
    phase = models.CharField(max_length=10, choices=Phase.choices, default=Phase.BETTING)
    state = models.JSONField()
    deck = models.JSONField(default=list)
    bet_deadline = models.DateTimeField()
    action_deadline = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    dealt_at = models.DateTimeField(null=True, blank=True)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["table"],
                condition=~Q(phase="settled"),
                name="showdown_one_live_round_per_table",
            ),
        ]
        indexes = [models.Index(fields=["phase"])]

    def __str__(self) -> str:
        return f"live round #{self.pk} at {self.table_id}"

    @property
    def deadline(self):
        """When the timer acts next: the deal, or the folding of the undecided."""
        return self.bet_deadline if self.phase == self.Phase.BETTING else self.action_deadline


class HouseDay(ShowdownRound):
    """The admin's "house result per day" page: a proxy, no table of its own."""

    class Meta:
        proxy = True
        verbose_name = "house result per day"
        verbose_name_plural = "house results per day"
