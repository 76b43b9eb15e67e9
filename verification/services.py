"""A player's identity checks as they change: date of birth, uploads, staff decisions and the
end of the retention period. One transaction and one audit record each; a refusal raises
`VerificationError` before anything is written (or, for an upload, kept)."""

from __future__ import annotations

import secrets
from datetime import date, datetime, timedelta
from functools import partial

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import audit_record
from config.errors import Refused
from config.inputs import parse_staff_reason
from verification.models import Document, Identity
from verification.storage import private_storage

# What a document may be, told by its first bytes (never by its name or the browser's word).
SIGNATURES = (
    (b"%PDF-", "application/pdf", ".pdf"),
    (b"\x89PNG\r\n\x1a\n", "image/png", ".png"),
    (b"\xff\xd8\xff", "image/jpeg", ".jpg"),
)


class VerificationError(Refused):
    """A refused identity check: `code` for programs, `message` for people. Nothing changed."""


def _check_player(player):
    if not isinstance(player, get_user_model()) or player.pk is None:
        raise VerificationError("unknown_player", _("No such player."))
    return player


def age_on(born: date, day: date) -> int:
    """Whole years from `born` to `day` (a 29 February birthday ages on 1 March)."""
    return day.year - born.year - ((day.month, day.day) < (born.month, born.day))


def identity_birth_date_set(*, player, date_of_birth, now: datetime | None = None) -> Identity:
    """Keep the player's date of birth, refused below the legal age (`VERIFICATION_LEGAL_AGE`)."""
    player = _check_player(player)
    now = now or timezone.now()
    today = timezone.localdate(now)
    if not isinstance(date_of_birth, date) or date_of_birth > today:
        raise VerificationError("bad_birth_date", _("Enter a real date of birth."))
    if age_on(date_of_birth, today) > 130:
        raise VerificationError("bad_birth_date", _("Enter a real date of birth."))
    legal_age = settings.VERIFICATION_LEGAL_AGE
    if age_on(date_of_birth, today) < legal_age:
        raise VerificationError(
            "under_age",
            _("You must be %(age)s or older to play for money here.") % {"age": legal_age},
        )
    with transaction.atomic():
        identity, _created = Identity.objects.update_or_create(
            player=player, defaults={"date_of_birth": date_of_birth, "updated_at": now}
        )
        audit_record(
            action="verification.birth_date",
            actor=player,
            subject=player,
            payload={"player": player.pk},
            now=now,
        )
    return identity


def _file_type(head: bytes) -> tuple[str, str]:
    for signature, content_type, extension in SIGNATURES:
        if head.startswith(signature):
            return content_type, extension
    raise VerificationError(
        "bad_file_type", _("Send a PDF, PNG or JPEG file (a scan or a photo of the document).")
    )


def document_upload(*, player, kind: str, file, now: datetime | None = None) -> Document:
    """Keep an uploaded document in the private folder for compliance staff to review.

    At most `VERIFICATION_MAX_UPLOAD_BYTES`, and a PDF, PNG or JPEG by its content."""
    player = _check_player(player)
    if kind not in Document.Kind.values:
        raise VerificationError("bad_kind", _("Choose which document this is."))
    size = getattr(file, "size", None)
    if not size:
        raise VerificationError("empty_file", _("Choose a file to send: this one is empty."))
    limit = settings.VERIFICATION_MAX_UPLOAD_BYTES
    if size > limit:
        raise VerificationError(
            "file_too_large",
            _("The file is %(size)s MB; the most we take is %(limit)s MB.")
            % {"size": f"{size / 1_000_000:.1f}", "limit": f"{limit / 1_000_000:.1f}"},
        )
    file.seek(0)
    content_type, extension = _file_type(file.read(16))
    file.seek(0)
    now = now or timezone.now()
    document = Document(
        player=player,
        kind=kind,
        token=secrets.token_hex(16),
        extension=extension,
        content_type=content_type,
        size=size,
        original_name=str(getattr(file, "name", "") or "")[-200:],
        uploaded_at=now,
    )
    with transaction.atomic():
        document.file.save("upload", file, save=False)
        name = document.file.name
        try:
            document.save()
            audit_record(
                action="verification.document_uploaded",
                actor=player,
                subject=document,
                payload={"player": player.pk, "kind": kind, "size": size, "type": content_type},
                now=now,
            )
        except Exception:
            private_storage.delete(name)
            raise
    return document


def _check_reviewer(staff):
    if (
        not isinstance(staff, get_user_model())
        or staff.pk is None
        or not staff.is_active
        or not staff.is_staff
        or not staff.has_perm("verification.review_document")
    ):
        raise VerificationError(
            "not_compliance", _("Only staff with the compliance role may decide documents.")
        )
    return staff


def _document_decide(*, document, staff, reason, status: str, now) -> Document:
    staff, reason = _check_reviewer(staff), parse_staff_reason(reason, error=VerificationError)
    now = now or timezone.now()
    with transaction.atomic():
        document_id = getattr(document, "pk", document)
        locked = Document.objects.select_for_update().filter(pk=document_id).first()
        if locked is None:
            raise VerificationError("unknown_document", _("No such document."))
        if locked.status != Document.Status.PENDING:
            raise VerificationError(
                "already_decided",
                _("Document #%(id)s was already %(status)s.")
                % {"id": locked.pk, "status": locked.get_status_display()},
            )
        if locked.player_id == staff.pk:
            raise VerificationError("own_document", _("Staff cannot decide their own documents."))
        locked.status, locked.decided_by, locked.decided_at = status, staff, now
        locked.decision_reason = reason
        locked.save(update_fields=["status", "decided_by", "decided_at", "decision_reason"])
        audit_record(
            action=f"verification.document_{status}",
            actor=staff,
            subject=locked,
            payload={"player": locked.player_id, "kind": locked.kind, "document": locked.pk},
            reason=reason,
            now=now,
        )
    return locked


def document_approve(*, document, approved_by, reason: str, now=None) -> Document:
    """Approve a waiting document (compliance staff only, never their own)."""
    return _document_decide(
        document=document, staff=approved_by, reason=reason, status="approved", now=now
    )


def document_reject(*, document, rejected_by, reason: str, now=None) -> Document:
    """Reject a waiting document; the player sees the reason and may send another."""
    return _document_decide(
        document=document, staff=rejected_by, reason=reason, status="rejected", now=now
    )


def documents_expire(*, now: datetime | None = None) -> int:
    """Delete the files of documents decided more than `VERIFICATION_RETENTION_DAYS` ago (the
    rows and decisions stay); each deletion audited. Files go once the rows' change commits."""
    now = now or timezone.now()
    cutoff = now - timedelta(days=settings.VERIFICATION_RETENTION_DAYS)
    with transaction.atomic():
        due = list(
            Document.objects.select_for_update(skip_locked=True)
            .filter(decided_at__lt=cutoff, file_deleted_at__isnull=True)
            .exclude(status=Document.Status.PENDING)
            .order_by("id")[:500]
        )
        for document in due:
            name = document.file.name
            document.file, document.file_deleted_at = "", now
            document.save(update_fields=["file", "file_deleted_at"])
            audit_record(
                action="verification.document_deleted",
                subject=document,
                payload={
                    "player": document.player_id,
                    "kind": document.kind,
                    "document": document.pk,
                    "retention_days": settings.VERIFICATION_RETENTION_DAYS,
                },
                now=now,
            )
            if name:
                transaction.on_commit(partial(private_storage.delete, name))
    return len(due)


def document_file_opened(*, document: Document, staff) -> None:
    """Note in the audit log that a compliance staff member opened a document's file."""
    audit_record(
        action="verification.document_opened",
        actor=staff,
        subject=document,
        payload={"player": document.player_id, "kind": document.kind, "document": document.pk},
    )
