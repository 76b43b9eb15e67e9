"""The banked game's REST API: tables with their paytables; deal, read and decide a round as
the signed-in player; the deck and the board to come never leave the server; refusals are 400
with a code and change nothing; a repeated key replays."""

import pytest
from rest_framework.test import APIClient

from cashier.selectors import wallet_balance
from cashier.verify import ledger_verify
from showdown.models import ShowdownRound
from tests.factories import make_funded_player, make_showdown_table
from tests.showdown.play import ROYAL
from tests.sweep import cards_in

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(gambler):
    client = APIClient()
    client.force_authenticate(gambler)
    return client


def test_tables_list_limits_cap_and_paytables(api, showdown_table):
    tables = {t["id"]: t for t in api.get("/api/showdown/tables/").json()}
    table = tables[showdown_table.pk]
    assert table["ante_min"] == 500 and table["max_aggregate_payout"] is None
    kinds = [p["kind"] for p in table["paytables"]]
    assert kinds == ["bet", "hole_card_bonus", "final_hand_bonus"]
    assert table["paytables"][0]["pays"]["royal flush"] == 25
    assert table["seats"] == 1  # the online game; live tables say how many seats they have


def test_the_tables_list_tells_a_live_table_by_its_seats(api):
    live = make_showdown_table(name="Live seven", seats=7)
    tables = {t["id"]: t for t in api.get("/api/showdown/tables/").json()}
    assert tables[live.pk]["seats"] == 7


def test_deal_read_and_raise(api, gambler, showdown_table, next_deck):
    next_deck(*ROYAL)
    body = {"table_id": showdown_table.pk, "ante": 500, "final_hand_bonus": 100}
    response = api.post("/api/showdown/rounds/", body, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert response.status_code == 201, response.json()
    dealt = response.json()
    assert dealt["status"] == "dealt" and dealt["hole"] == ["As", "Ks", "2c", "3d"]
    assert dealt["board"] == [] and "deck" not in dealt and dealt["result"] is None
    assert dealt["costs"] == {"fold": 0, "call": 500, "raise": 1000}
    again = api.post("/api/showdown/rounds/", body, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert again.status_code == 201 and again.json()["id"] == dealt["id"]
    text = api.get(f"/api/showdown/rounds/{dealt['id']}/").content.decode()
    # The board to come, as a card of its own (the commitment's hex may hold "9c" by chance).
    assert not cards_in(text) & {"Qs", "Js", "Ts", "4h", "9c"}
    decided = api.post(
        f"/api/showdown/rounds/{dealt['id']}/decide/",
        {"decision": "raise", "idempotency_key": "d1"},
        format="json",
    )
    assert decided.status_code == 200, decided.json()
    settled = decided.json()
    assert settled["status"] == "settled" and settled["net"] == 500 + 25_000 + 20_000
    assert settled["board"] == ["Qs", "Js", "Ts", "4h", "9c"]
    assert settled["result"]["final_hand"]["category"] == "royal flush"
    assert wallet_balance(player=gambler) == 100_000 + settled["net"]
    listed = api.get("/api/showdown/rounds/").json()
    assert [r["id"] for r in listed["results"]] == [dealt["id"]]
    assert ledger_verify().ok


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"table_id": None, "ante": 500}, "bad_parameter"),
        ({"table_id": "x", "ante": 500}, "bad_parameter"),
        ({"table_id": True, "ante": 500}, "bad_parameter"),
        ({"table_id": 999_999, "ante": 500}, "unknown_table"),
        ({"ante": "500"}, "bad_amount"),
        ({"ante": 500.5}, "bad_amount"),
        ({"ante": 100}, "outside_limits"),
        ({"ante": 500, "hole_card_bonus": -1}, "bad_amount"),
        ({"ante": 500, "idempotency_key": ""}, "missing_idempotency_key"),
    ],
)
def test_refused_deals_are_400_and_change_nothing(api, gambler, showdown_table, body, code):
    body = {"table_id": showdown_table.pk, "idempotency_key": "k", **body}
    response = api.post("/api/showdown/rounds/", body, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert ShowdownRound.objects.count() == 0
    assert wallet_balance(player=gambler) == 100_000


def test_decisions_are_checked_and_rounds_are_private(api, gambler, showdown_table):
    dealt = api.post(
        "/api/showdown/rounds/",
        {"table_id": showdown_table.pk, "ante": 500, "idempotency_key": "k"},
        format="json",
    ).json()
    url = f"/api/showdown/rounds/{dealt['id']}/decide/"
    bad = api.post(url, {"decision": "check", "idempotency_key": "d"}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "bad_decision"
    listy = api.post(url, {"decision": ["fold"], "idempotency_key": "d"}, format="json")
    assert listy.status_code == 400
    other = APIClient()
    other.force_authenticate(make_funded_player("eve"))
    assert other.get(f"/api/showdown/rounds/{dealt['id']}/").status_code == 404
    assert other.post(url, {"decision": "fold", "idempotency_key": "e"}).status_code == 404
    assert APIClient().get("/api/showdown/rounds/").status_code in (401, 403)
    assert ShowdownRound.objects.get().status == "dealt"


def test_the_schema_describes_the_showdown_api(api):
    schema = api.get("/api/schema/", {"format": "json"}).json()
    assert "/api/showdown/rounds/{round_id}/decide/" in schema["paths"]
