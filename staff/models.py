"""What staff keep of their own: notes on players, the player page and the tools' permissions.

The tools act through the owning apps' services (poker, cashier, lobby); this app only holds
what belongs to no other app. Roles are Django groups (migration 0002, `staff.roles`).
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import models
from django.utils import timezone


class Player(get_user_model()):
    """A player as staff look at them: the admin's player page (wallet, stacks, seats, hands,
    ledger, audit records, notes) and the account tools."""

    class Meta:
        proxy = True
        default_permissions = ("view",)
        permissions = [("suspend_player", "Can suspend and reinstate an account")]


class Tool(models.Model):
    """No table: the permissions of the table tools, which act on tables, seats and hands."""

    class Meta:
        managed = False
        default_permissions = ()
        permissions = [
            ("cancel_hand", "Can cancel a running hand"),
            ("remove_seat", "Can remove a player from a seat"),
            ("close_table", "Can close and reopen a table"),
            ("manage_waiting", "Can remove, move and offer a seat to a player on a waiting list"),
        ]

    def __str__(self) -> str:
        return "table tools"


class PlayerNote(models.Model):
    """A staff member's note on a player: written once, never edited (it is in the audit log)."""

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="staff_notes"
    )
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="staff_notes_written"
    )
    text = models.TextField()
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        default_permissions = ("add", "view")

    def __str__(self) -> str:
        return f"note #{self.pk} on {self.player} by {self.author}"
