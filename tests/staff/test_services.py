"""Notes on players: staff only, never empty, one audit record each; a refused note writes
neither the note nor a record."""

import pytest

from audit.models import AuditRecord
from staff.models import PlayerNote
from staff.services import NOTE_MAX_CHARS, StaffError, player_note_add
from tests.factories import make_player, make_staff

pytestmark = pytest.mark.django_db


def test_a_note_is_kept_with_one_audit_record():
    player, author = make_player("pat"), make_staff("sue", "support")
    note = player_note_add(player=player, author=author, text="  asked about limits  ")
    assert note.text == "asked about limits" and note.author == author
    record = AuditRecord.objects.get(action="staff.player_note")
    assert record.actor == author and record.payload == {"note": note.pk}
    assert record.subject_id == str(player.pk)


@pytest.mark.parametrize(
    ("text", "staff", "code"),
    [
        ("   ", True, "note_empty"),
        ("x" * (NOTE_MAX_CHARS + 1), True, "note_too_long"),
        (None, True, "note_empty"),
        ("hello", False, "not_staff"),
    ],
)
def test_refused_notes_leave_nothing(text, staff, code):
    player = make_player("pat")
    author = make_staff("sue", "support") if staff else make_player("joe")
    with pytest.raises(StaffError) as refused:
        player_note_add(player=player, author=author, text=text)
    assert refused.value.code == code
    assert not PlayerNote.objects.exists()
    assert not AuditRecord.objects.filter(action="staff.player_note").exists()
