"""Writing a player's notes and colour names: every check before anything is written.

A refusal is a `NoteRefused` (`code` for programs, `message` for people; the API answers it
400). The author's user row is locked FOR NO KEY UPDATE first (docs/architecture.md "Lock
order"), so two notes written at once cannot both pass the count limit.
"""

from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from config.errors import Refused
from notes.models import (
    LABEL_MAX_LENGTH,
    NOTE_MAX_LENGTH,
    NOTES_PER_AUTHOR,
    Colour,
    PlayerNote,
    TagLabel,
)


class NoteRefused(Refused):
    """A refused note or colour name: nothing changed."""


def _player_id(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 < value < 2**63:
        raise NoteRefused("bad_player", _("Name the player by their id, a whole number."))
    return value


def _colour(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str) or (value and value not in Colour.values):
        raise NoteRefused(
            "bad_colour",
            _("Choose a colour of the palette: %(colours)s, or none.")
            % {"colours": ", ".join(Colour.values)},
        )
    return value


def _text(value: Any, *, most: int, code: str, too_long: str) -> str:
    """Text as typed, line ends made one kind and the ends trimmed; `too_long` is the refusal's
    message, with %(most)s and %(length)s."""
    if value is None:
        return ""
    if not isinstance(value, str):
        raise NoteRefused("bad_text", _("A note and a colour's name are text."))
    text = value.replace("\r\n", "\n").replace("\r", "\n").strip()
    if len(text) > most:
        raise NoteRefused(code, too_long % {"most": most, "length": len(text)})
    return text


def _author_lock(author) -> None:
    get_user_model().objects.select_for_update(no_key=True).filter(pk=author.pk).first()


@transaction.atomic
def note_set(*, author, player_id: Any, text: Any = "", colour: Any = "") -> PlayerNote | None:
    """Write the author's note and colour tag on another player. Empty text and no colour
    removes the note (None back)."""
    player_id = _player_id(player_id)
    text = _text(
        text,
        most=NOTE_MAX_LENGTH,
        code="note_too_long",
        too_long=_("A note is at most %(most)s characters (this one has %(length)s)."),
    )
    colour = _colour(colour)
    if player_id == author.pk:
        raise NoteRefused("note_on_yourself", _("Notes are on other players, not on yourself."))
    if not get_user_model().objects.filter(pk=player_id, is_active=True).exists():
        raise NoteRefused("unknown_player", _("There is no such player."))
    _author_lock(author)
    note = PlayerNote.objects.filter(author=author, player_id=player_id).first()
    if not text and not colour:
        if note is not None:
            note.delete()
        return None
    if note is None:
        if PlayerNote.objects.filter(author=author).count() >= NOTES_PER_AUTHOR:
            raise NoteRefused(
                "too_many_notes",
                _("You keep at most %(most)s notes: delete one before writing another.")
                % {"most": NOTES_PER_AUTHOR},
            )
        return PlayerNote.objects.create(
            author=author, player_id=player_id, text=text, colour=colour
        )
    note.text, note.colour = text, colour
    note.save(update_fields=["text", "colour", "updated_at"])
    return note


@transaction.atomic
def note_delete(*, author, player_id: Any) -> bool:
    """Remove the author's note on a player; False if there was none."""
    deleted, _by_model = PlayerNote.objects.filter(
        author=author, player_id=_player_id(player_id)
    ).delete()
    return bool(deleted)


@transaction.atomic
def palette_set(*, author, labels: Any) -> None:
    """Name colours of the author's palette ({colour: name}); an empty name gives a colour back
    its own. All are checked before any is written."""
    if not isinstance(labels, dict) or not labels:
        raise NoteRefused("bad_colour", _("Choose a colour of the palette."))
    checked: dict[str, str] = {}
    for colour, label in labels.items():
        colour = _colour(colour)
        if not colour:
            raise NoteRefused("bad_colour", _("Choose a colour of the palette."))
        checked[colour] = _text(
            label,
            most=LABEL_MAX_LENGTH,
            code="label_too_long",
            too_long=_("A colour's name is at most %(most)s characters (this one has %(length)s)."),
        )
    for colour, label in checked.items():
        if label:
            TagLabel.objects.update_or_create(
                author=author, colour=colour, defaults={"label": label}
            )
        else:
            TagLabel.objects.filter(author=author, colour=colour).delete()


def tag_label_set(*, author, colour: Any, label: Any) -> None:
    """Name one colour (the API's call): `palette_set` for one."""
    if not isinstance(colour, str):
        raise NoteRefused("bad_colour", _("Choose a colour of the palette."))
    palette_set(author=author, labels={colour: label})
