"""Staff's own writes: notes on players (the other tools live in the apps they act on)."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from audit.services import audit_record
from config.errors import Refused
from staff.models import PlayerNote

NOTE_MAX_CHARS = 4000


class StaffError(Refused):
    """A refused staff request: `code` for programs, `message` for people. Nothing changed."""


@transaction.atomic
def player_note_add(*, player, author, text: str) -> PlayerNote:
    """Keep a staff member's note on a player; notes are never edited, only added."""
    User = get_user_model()
    if not isinstance(author, User) or author.pk is None or not author.is_staff:
        raise StaffError("not_staff", _("Only staff may write notes on players."))
    if not isinstance(player, User) or player.pk is None:
        raise StaffError("unknown_player", _("No such player."))
    if not isinstance(text, str) or not text.strip():
        raise StaffError("note_empty", _("A note needs some text."))
    if len(text) > NOTE_MAX_CHARS:
        raise StaffError("note_too_long", f"A note is at most {NOTE_MAX_CHARS:,} characters.")
    note = PlayerNote.objects.create(player=player, author=author, text=text.strip())
    audit_record(
        action="staff.player_note",
        actor=author,
        subject=player,
        payload={"note": note.pk},
        reason=note.text,
    )
    return note
