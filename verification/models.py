"""A player's identity checks: the documents they upload and their date of birth.

Files are kept out of the web root (verification/storage.py) and only staff holding
`view_document_file` (the compliance role) open them. A document is decided once, approved or
rejected with a reason; its file is deleted when the retention period after the decision ends
(the row stays, so the decision and who made it are kept with the audit log's records).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from verification.storage import private_storage_get

# Who may open a document's file (the compliance role; verification.views.document_file).
FILE_PERMISSION = "verification.view_document_file"


class Identity(models.Model):
    """What the player says of themselves: their date of birth (checked against the legal age
    when they enter it)."""

    player = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="identity"
    )
    date_of_birth = models.DateField()
    updated_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "identities"
        default_permissions = ("view",)

    def __str__(self) -> str:
        return f"identity of {self.player}"


def _document_path(document: Document, filename: str) -> str:
    """A name that says nothing of the player's file name (kept in `original_name`)."""
    return f"{document.player_id}/{document.kind}-{document.token}{document.extension}"


class Document(models.Model):
    class Kind(models.TextChoices):
        IDENTITY = "identity", _("Identity document")
        ADDRESS = "address", _("Proof of address")

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for review")
        APPROVED = "approved", _("Approved")
        REJECTED = "rejected", _("Rejected")

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="identity_documents"
    )
    kind = models.CharField(max_length=10, choices=Kind.choices)
    # Emptied (and the file deleted) when the retention period ends: `file_deleted_at`.
    file = models.FileField(storage=private_storage_get, upload_to=_document_path, blank=True)
    token = models.CharField(max_length=32)
    extension = models.CharField(max_length=8)
    content_type = models.CharField(max_length=40)
    size = models.PositiveIntegerField()
    original_name = models.CharField(max_length=200, blank=True, default="")
    uploaded_at = models.DateTimeField(default=timezone.now, db_index=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="identity_documents_decided",
    )
    decided_at = models.DateTimeField(null=True, blank=True, db_index=True)
    decision_reason = models.TextField(blank=True, default="")
    file_deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-uploaded_at", "-id"]
        default_permissions = ("view",)
        permissions = [
            ("review_document", "Can approve or reject identity documents"),
            ("view_document_file", "Can open identity documents' files"),
        ]
        constraints = [
            models.CheckConstraint(
                name="verification_document_decision_shape",
                condition=(
                    Q(status="pending", decided_by__isnull=True, decided_at__isnull=True)
                    | (
                        Q(status__in=["approved", "rejected"])
                        & Q(decided_by__isnull=False, decided_at__isnull=False)
                    )
                ),
            ),
            models.CheckConstraint(
                name="verification_document_deleted_once_decided",
                condition=Q(file_deleted_at__isnull=True) | ~Q(status="pending"),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} #{self.pk} of {self.player} ({self.status})"
