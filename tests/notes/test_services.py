"""Notes and colour tags: written, changed and removed by their author only; every bad input
refused with its code and nothing written; the limits of length and count; the palette's
names; the author's export."""

import pytest

from notes import models as note_models
from notes.models import PlayerNote, TagLabel
from notes.selectors import notes_by_player, notes_export, notes_of, palette_for
from notes.services import NoteRefused, note_delete, note_set, palette_set, tag_label_set
from tests.factories import make_player

pytestmark = pytest.mark.django_db


def test_a_note_is_written_changed_tagged_and_removed(player, other_player):
    note = note_set(
        author=player, player_id=other_player.pk, text="  raises light \r\n ", colour=""
    )
    assert (note.text, note.colour) == ("raises light", "")
    note_set(author=player, player_id=other_player.pk, text="raises light\r\nfolds to 3-bets",
             colour="red")  # fmt: skip
    [shown] = notes_of(author=player)
    assert shown["player"] == {"id": other_player.pk, "display_name": "bob"}
    assert (shown["text"], shown["colour"], shown["label"]) == (
        "raises light\nfolds to 3-bets",
        "red",
        "Red",
    )
    assert PlayerNote.objects.count() == 1  # one note per author and player, changed in place
    # A tag alone is a note; emptied of both, the note is gone.
    note_set(author=player, player_id=other_player.pk, text="", colour="blue")
    assert notes_of(author=player)[0]["text"] == ""
    assert note_set(author=player, player_id=other_player.pk, text=" ", colour=None) is None
    assert not PlayerNote.objects.exists()
    note_set(author=player, player_id=other_player.pk, text="x")
    assert note_delete(author=player, player_id=other_player.pk) is True
    assert note_delete(author=player, player_id=other_player.pk) is False


def test_only_the_author_reads_their_notes(player, other_player):
    eve = make_player("eve")
    note_set(author=player, player_id=eve.pk, text="alice's secret", colour="green")
    palette_set(author=player, labels={"green": "Fish"})
    assert notes_of(author=other_player) == []
    assert notes_by_player(author=other_player, player_ids=[eve.pk]) == {}
    assert notes_by_player(author=None, player_ids=[eve.pk]) == {}
    assert palette_for(author=other_player)[3] == {
        "colour": "green",
        "label": "Green",
        "name": "Green",
        "named": False,
    }
    assert notes_export(author=other_player)["notes"] == []
    assert notes_by_player(author=player, player_ids=[eve.pk])[eve.pk]["label"] == "Fish"


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"player_id": "me"}, "bad_player"),
        ({"player_id": True}, "bad_player"),
        ({"player_id": 2**63}, "bad_player"),
        ({"player_id": 10**9}, "unknown_player"),
        ({"text": "x" * 501}, "note_too_long"),
        ({"text": 12}, "bad_text"),
        ({"text": ["a"]}, "bad_text"),
        ({"colour": "pink"}, "bad_colour"),
        ({"colour": 3}, "bad_colour"),
    ],
)
def test_bad_input_is_refused_and_writes_nothing(player, other_player, fields, code):
    note_set(author=player, player_id=other_player.pk, text="kept", colour="red")
    with pytest.raises(NoteRefused) as refused:
        note_set(**{"author": player, "player_id": other_player.pk, **fields})
    assert refused.value.code == code and refused.value.message
    assert list(PlayerNote.objects.values_list("text", "colour")) == [("kept", "red")]


def test_no_note_on_oneself_nor_on_a_closed_account(player, other_player):
    with pytest.raises(NoteRefused) as refused:
        note_set(author=player, player_id=player.pk, text="me")
    assert refused.value.code == "note_on_yourself"
    other_player.is_active = False
    other_player.save()
    with pytest.raises(NoteRefused) as refused:
        note_set(author=player, player_id=other_player.pk, text="gone")
    assert refused.value.code == "unknown_player"
    assert not PlayerNote.objects.exists()


def test_an_author_keeps_at_most_the_limit_of_notes(player, monkeypatch):
    import notes.services

    monkeypatch.setattr(notes.services, "NOTES_PER_AUTHOR", 2)
    first, second, third = (make_player(name) for name in ("p1", "p2", "p3"))
    note_set(author=player, player_id=first.pk, text="1")
    note_set(author=player, player_id=second.pk, text="2")
    with pytest.raises(NoteRefused) as refused:
        note_set(author=player, player_id=third.pk, text="3")
    assert refused.value.code == "too_many_notes" and "2" in refused.value.message
    note_set(author=player, player_id=second.pk, text="2, changed")  # a change is no new note
    note_delete(author=player, player_id=first.pk)
    note_set(author=player, player_id=third.pk, text="3")
    assert sorted(PlayerNote.objects.values_list("text", flat=True)) == ["2, changed", "3"]
    assert note_models.NOTES_PER_AUTHOR == 1000


def test_the_palette_is_named_all_at_once_or_not_at_all(player):
    palette_set(author=player, labels={"red": "Maniac", "grey": " Nit "})
    named = {entry["colour"]: entry["label"] for entry in palette_for(author=player)}
    assert (named["red"], named["grey"], named["blue"]) == ("Maniac", "Nit", "Blue")
    with pytest.raises(NoteRefused) as refused:
        palette_set(author=player, labels={"red": "", "blue": "x" * 25})
    assert refused.value.code == "label_too_long"
    assert TagLabel.objects.filter(colour="red").exists()  # the valid half was not written
    for colour, code in (("pink", "bad_colour"), ("", "bad_colour"), (["red"], "bad_colour")):
        with pytest.raises(NoteRefused) as refused:
            tag_label_set(author=player, colour=colour, label="x")
        assert refused.value.code == code
    tag_label_set(author=player, colour="red", label="")  # back to its own name
    assert palette_for(author=player)[0] == {
        "colour": "red",
        "label": "Red",
        "name": "Red",
        "named": False,
    }


def test_the_export_holds_every_note_and_the_palette(player, other_player):
    palette_set(author=player, labels={"purple": "Reg"})
    note_set(author=player, player_id=other_player.pk, text="3-bets the button", colour="purple")
    export = notes_export(author=player)
    [note] = export["notes"]
    assert note["player"] == {"id": other_player.pk, "display_name": "bob"}
    assert (note["text"], note["colour"], note["label"]) == ("3-bets the button", "purple", "Reg")
    assert note["created_at"] and note["updated_at"]
    assert [entry["colour"] for entry in export["palette"]] == list(note_models.Colour.values)
