"""What the integrity checks found and what staff made of it.

A `Run` reads finished hands and ledger entries of a period (nightly: the last days; on demand:
one player's) and writes, per subject, one `QueueEntry`: a pair of players (the collusion
queue) or one player (the bot queue; the AML queue, read from the ledger: integrity/aml.py),
ranked by the sum of its `Signal` scores. Each signal keeps its figure, the numbers behind it
and the hands (or ledger entries) it was read from. Staff open a `Case` from an entry, read its
hands with every card (they are over), write `CaseNote`s and close it with an outcome; every
step is an audit record (integrity/services.py).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Queue(models.TextChoices):
    COLLUSION = "collusion", _("collusion and chip dumping")
    BOTS = "bots", _("bots and assistance")
    AML = "aml", _("money flows (AML)")


class Run(models.Model):
    """One pass of the checks over the finished hands between `since` and `until`."""

    started_at = models.DateTimeField(default=timezone.now, db_index=True)
    since = models.DateTimeField()
    until = models.DateTimeField()
    # Set for an on-demand run about one player: only their pairs and their own figures.
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="integrity_runs",
    )
    by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="integrity_runs_asked",
        help_text="the staff member who asked; empty for the nightly run",
    )
    hands = models.PositiveIntegerField(default=0, help_text="finished hands read")
    entries = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["-started_at", "-id"]
        default_permissions = ("view",)
        permissions = [("run_checks", "Can run the integrity checks for a player")]

    def __str__(self) -> str:
        who = f" for {self.player}" if self.player_id else ""
        return f"integrity run #{self.pk}{who} ({self.since:%Y-%m-%d} to {self.until:%Y-%m-%d})"


class QueueEntry(models.Model):
    """One subject of a run's queue: a pair (`player`, `partner`, the lower id first) or one
    player (`partner` empty), with the sum of its signals' scores and its place in the queue."""

    run = models.ForeignKey(Run, on_delete=models.CASCADE, related_name="queue_entries")
    queue = models.CharField(max_length=10, choices=Queue.choices)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="integrity_entries"
    )
    partner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="integrity_entries_as_partner",
    )
    score = models.FloatField(db_index=True)
    rank = models.PositiveIntegerField(help_text="1 is the top of its queue in its run")

    class Meta:
        ordering = ["queue", "rank"]
        default_permissions = ("view",)
        verbose_name_plural = "review queue"
        indexes = [models.Index(fields=["queue", "-score"], name="integrity_queue_rank")]

    def __str__(self) -> str:
        who = f"{self.player} and {self.partner}" if self.partner_id else str(self.player)
        return f"{who} ({self.queue}, {self.score:.2f})"


class Signal(models.Model):
    """One check's result for a queue entry: its figure (what staff compare), the numbers it
    was worked out from (`detail`), its share of the entry's score and the hands behind it."""

    class Kind(models.TextChoices):
        SEATING = "seating", _("hands together against chance")
        FOLLOWING = "following", _("following between tables")
        SOFT_PLAY = "soft_play", _("soft play")
        CHIP_FLOW = "chip_flow", _("chip flow")
        WEAK_LOSSES = "weak_losses", _("losing weak hands to the partner")
        SHARED_ADDRESS = "shared_address", _("shared address")
        SHARED_DEVICE = "shared_device", _("shared device")
        TIMING_SPREAD = "timing_spread", _("spread of decision times")
        NO_BREAKS = "no_breaks", _("play without breaks")
        TABLES_AT_ONCE = "tables_at_once", _("tables at once")
        IDENTICAL_TIMINGS = "identical_timings", _("identical timings across tables")
        LARGE_DEPOSIT = "large_deposit", _("large deposits")
        LARGE_WITHDRAWAL = "large_withdrawal", _("large withdrawals")
        STRUCTURING = "structuring", _("deposits just under the threshold")
        LITTLE_PLAY = "little_play", _("withdrawal after little play")
        FLAGGED_FLOW = "flagged_flow", _("chip flow to a flagged player")

    entry = models.ForeignKey(QueueEntry, on_delete=models.CASCADE, related_name="signals")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    figure = models.FloatField()
    score = models.FloatField()
    detail = models.JSONField(default=dict)
    hand_ids = models.JSONField(default=list, help_text="the finished hands behind the figure")
    # The AML queue's figures are read from the ledger: the cashier entries behind them.
    entry_ids = models.JSONField(default=list, blank=True, help_text="the ledger entries")

    class Meta:
        ordering = ["entry", "-score", "kind"]
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"{self.get_kind_display()}: {self.figure:g}"


class Case(models.Model):
    """A queue entry staff look into: its hands, notes and, once closed, the outcome."""

    class Outcome(models.TextChoices):
        CLEARED = "cleared", _("cleared")
        WARNED = "warned", _("warned")
        SUSPENDED = "suspended", _("suspended, funds held")

    queue = models.CharField(max_length=10, choices=Queue.choices)
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="integrity_cases"
    )
    partner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="integrity_cases_as_partner",
    )
    entry = models.ForeignKey(QueueEntry, on_delete=models.PROTECT, related_name="cases")
    hand_ids = models.JSONField(default=list)
    opened_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="integrity_cases_opened"
    )
    opened_at = models.DateTimeField(default=timezone.now)
    outcome = models.CharField(max_length=10, choices=Outcome.choices, blank=True, default="")
    # Whom a "suspended" outcome suspended (the player, the partner or both: staff choose).
    suspended = models.JSONField(default=list, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="integrity_cases_closed",
    )
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-opened_at", "-id"]
        default_permissions = ("view",)
        permissions = [("work_case", "Can open, annotate and close integrity cases")]
        constraints = [
            # One open case per entry's subject: a second would split the notes.
            models.UniqueConstraint(
                fields=["queue", "player", "partner"],
                condition=models.Q(closed_at__isnull=True),
                nulls_distinct=False,
                name="integrity_case_open_once",
            ),
        ]

    def __str__(self) -> str:
        who = f"{self.player} and {self.partner}" if self.partner_id else str(self.player)
        return f"case #{self.pk}: {who}"


class CaseNote(models.Model):
    """A staff member's note on a case: written once, never edited (it is in the audit log)."""

    case = models.ForeignKey(Case, on_delete=models.PROTECT, related_name="notes")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="integrity_notes"
    )
    text = models.TextField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["created_at", "id"]
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"note #{self.pk} on case #{self.case_id}"
