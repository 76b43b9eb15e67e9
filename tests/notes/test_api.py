"""/api/notes/ and the "My notes" page: the author's notes only, whoever asks; bad input a 4xx
with its code and nothing changed; the download; the hand page shows the viewer's own notes
beside the names, and another player's page never shows them."""

import json

import pytest
from django.test import Client
from rest_framework.test import APIClient

from histories.views import hand_share_token
from notes.models import PlayerNote, TagLabel
from notes.services import note_set
from poker.selectors import table_snapshot_for
from tests.factories import call_down, deal_hand, make_player, make_seated_player, make_table
from tests.sweep import DECK

pytestmark = pytest.mark.django_db


def signed_in(user, client_class=APIClient):
    client = client_class()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def test_the_api_writes_reads_and_deletes_the_authors_own_notes(player, other_player):
    api = signed_in(player)
    eve = make_player("eve")
    put = api.put(f"/api/notes/{other_player.pk}/", {"text": "slowplays sets", "colour": "teal"},
                  format="json")  # fmt: skip
    assert put.status_code == 200, put.content
    assert put.json()["player"] == {"id": other_player.pk, "display_name": "bob"}
    assert (put.json()["colour"], put.json()["label"]) == ("teal", "Teal")
    api.put(f"/api/notes/{eve.pk}/", {"text": "", "colour": "grey"}, format="json")
    assert api.put("/api/notes/palette/", {"colour": "teal", "label": "Trappy"},
                   format="json").json()[4]["label"] == "Trappy"  # fmt: skip
    listed = api.get("/api/notes/").json()
    assert [n["player"]["display_name"] for n in listed["notes"]] == ["bob", "eve"]
    assert listed["count"] == 2 and listed["limits"]["note_length"] == 500
    assert listed["notes"][0]["label"] == "Trappy"
    only = api.get(f"/api/notes/?players={eve.pk},{player.pk}").json()["notes"]
    assert [n["player"]["id"] for n in only] == [eve.pk]
    assert api.get(f"/api/notes/{other_player.pk}/").json()["text"] == "slowplays sets"
    # Emptied, the note is gone (204), as by DELETE.
    assert api.put(f"/api/notes/{eve.pk}/", {"text": "", "colour": ""},
                   format="json").status_code == 204  # fmt: skip
    assert api.delete(f"/api/notes/{other_player.pk}/").status_code == 204
    assert api.delete(f"/api/notes/{other_player.pk}/").status_code == 404
    assert api.get(f"/api/notes/{other_player.pk}/").status_code == 404
    assert not PlayerNote.objects.exists()


def test_another_player_never_sees_nor_changes_the_authors_notes(player, other_player):
    eve = make_player("eve")
    note_set(author=player, player_id=eve.pk, text="alice's read on eve", colour="red")
    bob = signed_in(other_player)
    assert bob.get("/api/notes/").json()["notes"] == []
    assert bob.get(f"/api/notes/?players={eve.pk}").json()["notes"] == []
    assert bob.get(f"/api/notes/{eve.pk}/").status_code == 404
    assert bob.delete(f"/api/notes/{eve.pk}/").status_code == 404
    bob.put(f"/api/notes/{eve.pk}/", {"text": "bob's own"}, format="json")
    assert PlayerNote.objects.get(author=player).text == "alice's read on eve"
    for path in ("/notes/", "/notes/download/"):
        assert (
            "alice's read on eve" not in signed_in(other_player, Client).get(path).content.decode()
        )
    assert APIClient().get("/api/notes/").status_code in (401, 403)
    assert Client().get("/notes/").status_code == 302  # to the login page


@pytest.mark.parametrize(
    ("path", "body", "code"),
    [
        ("self", {"text": "me"}, "note_on_yourself"),
        (10**9, {"text": "who"}, "unknown_player"),
        ("other", {"text": "x" * 501}, "note_too_long"),
        ("other", {"text": 5}, "bad_text"),
        ("other", {"text": "a", "colour": "pink"}, "bad_colour"),
        ("other", {"text": "a", "colour": {"red": 1}}, "bad_colour"),
        ("palette", {"colour": "red", "label": "x" * 25}, "label_too_long"),
        ("palette", {"colour": ["red"], "label": "x"}, "bad_colour"),
    ],
)
def test_bad_input_is_a_400_with_its_code_and_changes_nothing(player, other_player, path, body,
                                                               code):  # fmt: skip
    note_set(author=player, player_id=other_player.pk, text="kept", colour="red")
    target = {"self": player.pk, "other": other_player.pk}.get(path, path)
    answer = signed_in(player).put(f"/api/notes/{target}/", body, format="json")
    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == code and answer.json()["message"]
    assert list(PlayerNote.objects.values_list("text", "colour")) == [("kept", "red")]
    assert not TagLabel.objects.exists()


def test_bad_addresses_and_bodies_are_refused_not_errors(player):
    api = signed_in(player)
    assert api.get("/api/notes/?players=1,x").json()["code"] == "bad_parameter"
    many = ",".join(str(n) for n in range(1, 52))
    assert api.get(f"/api/notes/?players={many}").status_code == 400
    assert api.get(f"/api/notes/{2**64}/").status_code == 404
    assert api.put(f"/api/notes/{2**64}/", {"text": "a"}, format="json").status_code == 400
    refused = api.put("/api/notes/1/", "[1]", content_type="application/json")
    assert refused.status_code == 400 and refused.json()["code"] == "bad_json"


def test_the_my_notes_page_adds_edits_names_and_downloads(player, other_player):
    page = signed_in(player, Client)
    added = page.post("/notes/save/", {"display_name": "BOB", "text": "limps", "colour": "yellow"})
    assert added.status_code == 302
    html = page.get("/notes/").content.decode()
    assert f'id="note-{other_player.pk}"' in html and "limps" in html
    refused = page.post("/notes/save/", {"display_name": "nobody", "text": "ghost"})
    assert refused.status_code == 400 and 'id="notes-error"' in refused.content.decode()
    assert "ghost" in refused.content.decode()  # what was typed is kept for a second try
    assert page.post("/notes/save/", {"display_name": "alice", "text": "me"}).status_code == 400
    edit = page.post("/notes/save/", {"player": other_player.pk, "text": "a", "colour": "pink"})
    assert edit.status_code == 400  # its note opened again with what was typed
    assert f'id="note-{other_player.pk}"' in edit.content.decode()
    assert 'value="pink"' not in edit.content.decode() and "<details open>" in edit.content.decode()
    page.post("/notes/palette/", {"label-yellow": "Station", "label-red": ""})
    page.post(
        "/notes/save/", {"player": other_player.pk, "text": "limps, calls", "colour": "yellow"}
    )
    download = page.get("/notes/download/")
    assert download["Content-Disposition"] == 'attachment; filename="my-notes.json"'
    data = json.loads(download.content)
    assert [(n["text"], n["label"]) for n in data["notes"]] == [("limps, calls", "Station")]
    page.post("/notes/save/", {"player": other_player.pk, "delete": "1"})
    assert not PlayerNote.objects.exists()


def test_the_hand_page_shows_the_viewers_own_notes_only(player, other_player):
    table = make_table(next_hand_delay_seconds=3600)
    ann = make_seated_player(table, "ann", 1)
    ben = make_seated_player(table, "ben", 2)
    hand = call_down(deal_hand(table, DECK), {1: ann, 2: ben})
    note_set(author=ann, player_id=ben.pk, text="ben never bluffs", colour="orange")
    page = signed_in(ann, Client).get(f"/hands/{hand.pk}/").content.decode()
    assert "ben never bluffs" in page and 'data-colour="orange"' in page
    notes = json.loads(page.split('id="hand-notes" type="application/json">')[1].split("<")[0])
    assert notes == {"2": {"colour": "orange", "label": "Orange", "text": "ben never bluffs"}}
    theirs = signed_in(ben, Client).get(f"/hands/{hand.pk}/").content.decode()
    assert "ben never bluffs" not in theirs and 'data-colour="orange"' not in theirs
    table_page = signed_in(ben, Client).get(f"/tables/{table.pk}/").content.decode()
    assert 'id="note-dialog"' in table_page and "ben never bluffs" not in table_page
    # No table frame carries a note, not even to its author (the page fetches them).
    for viewer in (ann, ben):
        assert "ben never bluffs" not in json.dumps(table_snapshot_for(table=table, player=viewer))
    # A shared hand shows its viewer's own notes: eve's, never the sharer's; a visitor none.
    eve = make_player("eve")
    note_set(author=eve, player_id=ben.pk, text="eve's read", colour="")
    link = f"/hands/shared/{hand_share_token(hand_id=hand.pk, sharer_id=ann.pk)}/"
    shared = signed_in(eve, Client).get(link).content.decode()
    assert "eve's read" in shared and "ben never bluffs" not in shared
    anonymous = Client().get(link).content.decode()
    assert "ben never bluffs" not in anonymous and "eve's read" not in anonymous
