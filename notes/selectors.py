"""Reads of one author's notes: every function takes the author and returns only theirs."""

from collections.abc import Iterable
from datetime import datetime
from typing import TypedDict

from django.contrib.auth import get_user_model

from accounts.models import Profile
from notes.models import Colour, PlayerNote, TagLabel


class PaletteEntry(TypedDict):
    colour: str
    label: str  # the author's name for it, else `name`
    name: str  # the colour's own name, in the reader's language
    named: bool  # the author named it


class NotedPlayer(TypedDict):
    id: int
    display_name: str


class NoteJson(TypedDict):
    player: NotedPlayer
    text: str
    colour: str  # "" when untagged
    label: str  # the colour's name (the author's or the default); "" when untagged
    updated_at: datetime


def palette_for(*, author) -> list[PaletteEntry]:
    """The palette in its fixed order, each colour with the name the author gave it."""
    named = dict(TagLabel.objects.filter(author=author).values_list("colour", "label"))
    return [
        {
            "colour": value,
            "label": named.get(value) or str(label),
            "name": str(label),
            "named": value in named,
        }
        for value, label in Colour.choices
    ]


def _display_name(user) -> str:
    # As the tables show a player (poker.selectors.player_json): the profile's name.
    try:
        return user.profile.display_name
    except Profile.DoesNotExist:
        return user.get_username()


def _note_json(note: PlayerNote, labels: dict[str, str]) -> NoteJson:
    return {
        "player": {"id": note.player_id, "display_name": _display_name(note.player)},
        "text": note.text,
        "colour": note.colour,
        "label": labels.get(note.colour, ""),
        "updated_at": note.updated_at,
    }


def notes_of(*, author, player_ids: Iterable[int] | None = None) -> list[NoteJson]:
    """The author's notes (on `player_ids` only, when given), by the noted player's name."""
    notes = PlayerNote.objects.filter(author=author).select_related("player__profile")
    if player_ids is not None:
        notes = notes.filter(player_id__in=list(player_ids))
    labels = {entry["colour"]: entry["label"] for entry in palette_for(author=author)}
    rows = [_note_json(note, labels) for note in notes]
    return sorted(rows, key=lambda row: row["player"]["display_name"].lower())


def note_of(*, author, player_id: int) -> NoteJson | None:
    found = notes_of(author=author, player_ids=[player_id])
    return found[0] if found else None


def notes_by_player(*, author, player_ids: Iterable[int]) -> dict[int, NoteJson]:
    """For a page showing these players: the author's note on each that has one."""
    if author is None or not getattr(author, "is_authenticated", False):
        return {}
    return {row["player"]["id"]: row for row in notes_of(author=author, player_ids=player_ids)}


def notes_count(*, author) -> int:
    return PlayerNote.objects.filter(author=author).count()


def player_named(*, display_name: str):
    """The player shown at the tables under this name (any case), or None."""
    profile = (
        Profile.objects.filter(display_name__iexact=(display_name or "").strip())
        .select_related("user")
        .first()
    )
    if profile is not None:
        return profile.user
    # A player made outside sign-up has no profile yet: the tables show their username.
    return (
        get_user_model()
        .objects.filter(username__iexact=(display_name or "").strip(), profile__isnull=True)
        .first()
    )


def notes_export(*, author) -> dict:
    """Everything the room keeps of the author's notes, for their own download."""
    notes = PlayerNote.objects.filter(author=author).select_related("player__profile")
    labels = {entry["colour"]: entry["label"] for entry in palette_for(author=author)}
    return {
        "palette": palette_for(author=author),
        "notes": [
            {
                **_note_json(note, labels),
                "created_at": note.created_at.isoformat(),
                "updated_at": note.updated_at.isoformat(),
            }
            for note in notes.order_by("created_at", "pk")
        ],
    }
