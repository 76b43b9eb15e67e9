"""Responsible gaming (AGCO 2.13/2.23, UK practice): deposit, loss and session length limits,
time-outs and self-exclusions, the play sessions the session limit measures, the
reality-check interval, the record of every change to them, and the versions of the terms and
fair-play policy with who accepted which when.

Rules live in `responsible.rules` (checks the cashier, tables and banked game call) and
`responsible.services` (the changes players make); nothing here can be undone early.
"""

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class PendingCap(models.Model):
    """A cap a player sets on themselves: a lower cap applies at once; a higher cap (or none)
    waits 24 hours in `pending_*`, so a player cannot lift a limit in the heat of a session
    (`services.limit_set`, for every kind)."""

    amount = models.BigIntegerField(null=True, blank=True, help_text="cents; empty: no limit")
    pending_amount = models.BigIntegerField(null=True, blank=True)
    pending_from = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        abstract = True


class RollingLimit(PendingCap):
    """A player's cap over a rolling window (day = 24 h, week = 7 d, month = 30 d)."""

    class Period(models.TextChoices):
        DAY = "day", _("day (24 hours)")
        WEEK = "week", _("week (7 days)")
        MONTH = "month", _("month (30 days)")

    period = models.CharField(max_length=5, choices=Period.choices)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"{self.player} {self.period}: {self.amount}"  # type: ignore[attr-defined]


class DepositLimit(RollingLimit):
    """A cap on what the player deposits into their wallet in the window."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="deposit_limits"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "period"], name="responsible_limit_once"),
            models.CheckConstraint(
                name="responsible_limit_positive",
                condition=models.Q(amount__isnull=True) | models.Q(amount__gt=0),
            ),
        ]


class LossLimit(RollingLimit):
    """A cap on what the player may lose in the window, poker and the banked game together
    (net: hands settled on their stacks, banked bets and payouts); reached, no new seat,
    buy-in, top-up or banked round until the window has moved on."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="loss_limits"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["player", "period"], name="responsible_loss_once"),
            models.CheckConstraint(
                name="responsible_loss_positive",
                condition=models.Q(amount__isnull=True) | models.Q(amount__gt=0),
            ),
        ]


class SessionLimit(PendingCap):
    """A cap on the length of one play session (`PlaySession`), in minutes (`amount`):
    reached, the player leaves every table after the hand they are in and may not play again
    until a break ends the session (docs/rules.md "Session length limit")."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="session_limit"
    )

    class Meta:
        constraints = [
            models.CheckConstraint(
                name="responsible_session_limit_positive",
                condition=models.Q(amount__isnull=True) | models.Q(amount__gt=0),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} session: {self.amount} min"


class PlaySession(models.Model):
    """The player's current (or last) play session: it starts at the first play after a break
    of `RESPONSIBLE_SESSION_BREAK_MINUTES` with none (a seat taken, a sit-in, a hand dealt in,
    a banked round or wager: `rules.play_session_touch`) and lasts while play goes on. One row
    per player, moved on in place; `limit_reached_at`: when the session limit ended it."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="play_session"
    )
    started_at = models.DateTimeField()
    last_play_at = models.DateTimeField()
    limit_reached_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.player} playing since {self.started_at:%Y-%m-%d %H:%M}"


class Exclusion(models.Model):
    """A time-out or a self-exclusion: no deposits, no seats, no new rounds until `ends_at`."""

    class Kind(models.TextChoices):
        TIME_OUT = "time_out", _("time-out")
        SELF_EXCLUSION = "self_exclusion", _("self-exclusion")

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="exclusions"
    )
    kind = models.CharField(max_length=20, choices=Kind.choices)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-ends_at"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} of {self.player} until {self.ends_at:%Y-%m-%d %H:%M}"


class RealityCheck(models.Model):
    """How often the table page reminds the player of time played and net result."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="reality_check"
    )
    interval_minutes = models.PositiveSmallIntegerField()

    def __str__(self) -> str:
        return f"{self.player} every {self.interval_minutes} min"


class ResponsibleGamingEvent(models.Model):
    """One change a player made to their limits, exclusions or reality check.

    Append-only in spirit (services only insert; the admin shows, never edits): the room's
    audit log, when it exists, takes these over.
    """

    class Kind(models.TextChoices):
        LIMIT_LOWERED = "limit_lowered", "deposit limit set or lowered (at once)"
        LIMIT_RAISE_PENDING = "limit_raise_pending", "deposit limit raise (after 24 h)"
        LOSS_LIMIT_LOWERED = "loss_limit_lowered", "loss limit set or lowered (at once)"
        LOSS_LIMIT_RAISE_PENDING = "loss_limit_raise_pending", "loss limit raise (after 24 h)"
        SESSION_LIMIT_LOWERED = "session_limit_lowered", "session limit set or lowered (at once)"
        SESSION_LIMIT_RAISE_PENDING = (
            "session_limit_raise_pending",
            "session limit raise (after 24 h)",
        )
        SESSION_LIMIT_REACHED = "session_limit_reached", "session limit reached and seats left"
        TIME_OUT = "time_out", "time-out started"
        SELF_EXCLUSION = "self_exclusion", "self-exclusion started"
        SESSIONS_ENDED = "sessions_ended", "sessions ended and seats left"
        REALITY_CHECK_SET = "reality_check_set", "reality check interval set"

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="responsible_events"
    )
    kind = models.CharField(max_length=30, choices=Kind.choices)
    detail = models.JSONField(default=dict)
    created_at = models.DateTimeField(db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.player} {self.kind}"


class TermsVersion(models.Model):
    """One published version of a document a player must accept before playing: the room's
    terms or its fair-play policy. Published once by staff (the admin), never edited: the next
    version is a new row, and the highest version of each kind is the one in force."""

    class Kind(models.TextChoices):
        TERMS = "terms", _("terms and conditions")
        FAIR_PLAY = "fair_play", _("fair-play policy")

    kind = models.CharField(max_length=10, choices=Kind.choices)
    version = models.PositiveIntegerField()
    title = models.CharField(max_length=120)
    body = models.TextField(help_text="plain text; blank lines separate paragraphs")
    published_at = models.DateTimeField()
    published_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="terms_published",
    )

    class Meta:
        ordering = ["kind", "-version"]
        constraints = [
            models.UniqueConstraint(
                fields=["kind", "version"], name="responsible_terms_version_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} v{self.version}"


class TermsAcceptance(models.Model):
    """That a player accepted one version, and when: kept for good (nothing deletes a row,
    and neither the player nor the version can be deleted while it names them)."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="terms_accepted"
    )
    terms = models.ForeignKey(TermsVersion, on_delete=models.PROTECT, related_name="acceptances")
    accepted_at = models.DateTimeField()

    class Meta:
        ordering = ["-accepted_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["player", "terms"], name="responsible_terms_accepted_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} accepted {self.terms} at {self.accepted_at:%Y-%m-%d %H:%M}"
