"""Auditors' hand export beside the ledger's: every player of every hand that is over, with
every card, nets that sum with the rake to nothing, and the ledger entry that settled it;
players may not read it, a running hand is not in it."""

import csv
import io
import json

import pytest
from rest_framework.test import APIClient

from cashier.models import Entry
from tests.factories import deal_hand, make_seated_player
from tests.histories.conftest import game_table
from tests.sweep import DECK

pytestmark = pytest.mark.django_db

URL = "/api/cashier/audit/hands/"


def test_auditors_export_every_finished_hand_with_every_card(auditor, played):
    _, _, players, calm, wild = played
    table = game_table("omaha-pot-limit")
    dealt = {1: make_seated_player(table, "dee", 1), 2: make_seated_player(table, "eli", 2)}
    running = deal_hand(table, DECK)
    rows = auditor.get(URL).json()
    assert running.pk not in {row["hand"] for row in rows}
    for hand in (calm, wild):
        mine = [row for row in rows if row["hand"] == hand.pk]
        assert {row["seat"] for row in mine} == set(players)
        assert sum(row["net"] for row in mine) + mine[0]["hand_rake"] == 0
        assert mine[0]["settlement_entry"] == Entry.objects.get(hand_id=hand.pk).pk
        assert all(len(row["hole_cards"]) == 4 for row in mine)
    as_csv = auditor.get(URL + "?format=csv")
    assert as_csv["Content-Disposition"] == 'attachment; filename="hands.csv"'
    parsed = list(csv.DictReader(io.StringIO(as_csv.getvalue().decode())))
    assert len(parsed) == len(rows) and len(parsed[0]["hole_cards"].split()) == 4
    assert auditor.get(URL + "?from=2999-01-01").json() == []
    assert auditor.get(URL + "?from=someday").status_code == 400
    client = APIClient()
    client.force_authenticate(dealt[1])
    assert client.get(URL).status_code == 403
    assert APIClient().get(URL).status_code == 403


def test_auditors_download_the_hands_as_open_hand_history_with_every_card(auditor, played):
    import zipfile

    from poker.engine.hand import Hand as EngineHand
    from tests.sweep import cards_in

    _, _, players, calm, wild = played
    response = auditor.get(URL + "ohh/")
    assert response.status_code == 200 and response["Content-Type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(response.getvalue())) as archive:
        assert sorted(archive.namelist()) == sorted(f"hand-{h.pk}.ohh" for h in (calm, wild))
        text = archive.read(f"hand-{calm.pk}.ohh").decode()
    assert json.loads(text)["ohh"]["game_number"] == str(calm.pk)
    engine = EngineHand.from_dict(calm.state)
    assert {card for cards in engine.hole_cards for card in cards} <= cards_in(text)
    client = APIClient()
    client.force_authenticate(players[1])
    assert client.get(URL + "ohh/").status_code == 403
    assert auditor.get(URL + "ohh/?to=yesterday").status_code == 400


def test_the_hands_export_pages_by_hand_and_seat_with_a_link_to_the_next(auditor, played):
    _, _, players, calm, _ = played
    whole = auditor.get(URL, {"limit": 100}).json()
    assert len(whole) == 2 * len(players) and "Link" not in auditor.get(URL, {"limit": 100})
    pages, params = [], {"limit": 2}
    while True:
        response = auditor.get(URL, params)
        assert response.status_code == 200
        pages.append(response.json())
        if "Link" not in response:
            break
        next_url = response["Link"].split(";")[0].strip("<>")
        after = next_url.split("after=")[1].split("&")[0]
        assert after == f"{pages[-1][-1]['hand']}.{pages[-1][-1]['seat']}"
        params = {"limit": 2, "after": after}
    assert [len(page) for page in pages] == [2, 2, 2]  # a page ends inside a hand, too
    assert [row for page in pages for row in page] == whole
    as_csv = auditor.get(URL, {"format": "csv", "after": f"{calm.pk}.2"})
    parsed = list(csv.DictReader(io.StringIO(as_csv.getvalue().decode())))
    assert [(int(r["hand"]), int(r["seat"])) for r in parsed] == [
        (row["hand"], row["seat"]) for row in whole[2:]
    ]


@pytest.mark.parametrize(
    "params",
    [
        {"after": "12"},
        {"after": "a.b"},
        {"after": "1.2.3"},
        {"limit": "0"},
        {"limit": "10001"},
        {"limit": "many"},
        {"after": "1.2", "format": "csv", "from": "nope"},
    ],
)
def test_a_bad_page_of_the_hands_export_is_a_400(auditor, params):
    response = auditor.get(URL, params)
    assert response.status_code == 400, response.content
    assert b"bad_parameter" in response.content
