"""What the cashier and the pages read of a player's identity checks."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils import timezone

from verification.models import Document, Identity


def _age_ok(identity: Identity | None) -> bool:
    if identity is None:
        return False
    born, today = identity.date_of_birth, timezone.localdate()
    age = today.year - born.year - ((today.month, today.day) < (born.month, born.day))
    return age >= settings.VERIFICATION_LEGAL_AGE


def player_verified(*, player_id: int) -> bool:
    """Checked: a date of birth of the legal age, and an identity document and a proof of
    address each approved by compliance staff."""
    if not _age_ok(Identity.objects.filter(player_id=player_id).first()):
        return False
    approved = set(
        Document.objects.filter(player_id=player_id, status=Document.Status.APPROVED)
        .values_list("kind", flat=True)
        .distinct()
    )
    return approved >= set(Document.Kind.values)


def verification_state(*, player) -> dict[str, Any]:
    """The player's own view: date of birth, the latest document of each kind, and whether
    large withdrawals pay at once."""
    identity = Identity.objects.filter(player=player).first()
    latest: dict[str, Document] = {}
    for document in Document.objects.filter(player=player).order_by("-uploaded_at", "-id"):
        latest.setdefault(document.kind, document)
    kinds = [{"kind": kind, "label": label, "document": latest.get(kind)}
             for kind, label in Document.Kind.choices]  # fmt: skip
    return {
        "identity": identity,
        "kinds": kinds,
        "verified": player_verified(player_id=player.pk),
    }
