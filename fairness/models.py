"""Provably fair dealing (docs/fairness.md): each player's client seed, and for each
deal (a poker hand, an online Showdown round, a live Showdown round) the commitment sent before
its first card with the secrets that open it after the deal is over.

A deal is named by `kind` and `ref_id` (the hand's, round's or live round's id) rather than a
foreign key, as the cashier names hands: this app sits below the tables, which call it, and
its rows never move with theirs.
"""

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class ClientSeed(models.Model):
    """The seed a player mixes into every shuffle they are dealt in (1-64 printable ASCII
    characters, no spaces). Drawn at random by the room at the first deal when the player has
    not chosen one (`chosen` False)."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="client_seed"
    )
    seed = models.CharField(max_length=64)
    chosen = models.BooleanField(default=False)
    updated_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"client seed of {self.player_id}"


class Commitment(models.Model):
    """One deal's commitment and its secrets. `salt`, `server_seed` and `client_seeds` are
    secret until `revealed_at` (the deal is over): nothing shows them before (the admin shows
    them only once revealed; selectors refuse a running deal)."""

    class Kind(models.TextChoices):
        HAND = "hand", _("poker hand")
        ROUND = "round", _("online Showdown round")
        LIVE = "live", _("live Showdown round")

    kind = models.CharField(max_length=5, choices=Kind.choices)
    ref_id = models.BigIntegerField(help_text="the hand's, round's or live round's id")
    commitment = models.CharField(max_length=64, help_text="SHA-256(salt || deck), hex")
    salt = models.CharField(max_length=64)
    server_seed = models.CharField(max_length=64)
    # {"seat": seed} of every player dealt in, and {"seat": user id} (who may see the reveal).
    client_seeds = models.JSONField()
    players = models.JSONField()
    # The hash of `server_seed` published before the deal (at a poker table, when the hand
    # before ended), and when: the room chose its seed before it saw a seed set after that.
    server_seed_hash = models.CharField(max_length=64, blank=True, default="")
    server_seed_published_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    revealed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["kind", "ref_id"], name="fairness_one_per_deal"),
        ]
        indexes = [models.Index(fields=["revealed_at"])]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.ref_id}: {self.commitment}"

    def __repr__(self) -> str:  # never the secrets, even in a traceback or a log line
        return f"<Commitment {self.kind} {self.ref_id} {self.commitment[:12]}>"


class CommitmentSeat(models.Model):
    """Who was dealt in a deal, one row per player: a player's list of deals to check."""

    commitment = models.ForeignKey(Commitment, on_delete=models.CASCADE, related_name="seats")
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="deals"
    )
    seat = models.PositiveSmallIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["commitment", "player"], name="fairness_seat_once"),
        ]
        indexes = [models.Index(fields=["player", "-commitment"])]

    def __str__(self) -> str:
        return f"seat {self.seat} of {self.commitment_id}"


class ServerSeed(models.Model):
    """The room's seed for the next deal at a poker table, drawn and its SHA-256 published
    ahead (the table's STATE carries the hash): the seed is fixed before the players who will
    be dealt in are known, and before any client seed set after its publication. Taken (and
    the next one drawn) as the hand starts; its secret opens with the hand's reveal."""

    table_id = models.BigIntegerField(help_text="the poker table's id")
    seed = models.CharField(max_length=64)
    seed_hash = models.CharField(max_length=64)
    published_at = models.DateTimeField(default=timezone.now)
    taken_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["table_id"],
                condition=models.Q(taken_at__isnull=True),
                name="fairness_one_pending_seed_per_table",
            ),
        ]

    def __str__(self) -> str:
        return f"seed {self.seed_hash[:12]} of table {self.table_id}"

    def __repr__(self) -> str:  # never the secret
        return f"<ServerSeed table {self.table_id} {self.seed_hash[:12]}>"
