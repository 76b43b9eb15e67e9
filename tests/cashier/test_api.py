"""The player's cashier API: own money only, clear refusals, in the OpenAPI schema."""

import json

import pytest
from rest_framework.test import APIClient

from cashier.models import Entry
from cashier.selectors import wallet_balance
from cashier.services import table_buy_in, wallet_deposit
from tests.factories import make_funded_player, table_stakes

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(player):
    client = APIClient()
    client.force_authenticate(player)
    return client


def test_wallet_shows_balance_and_stacks(api, player, table):
    wallet_deposit(player=player, amount=20_000, idempotency_key="d")
    table_buy_in(player=player, **table_stakes(table), amount=7_500, idempotency_key="b")
    body = api.get("/api/cashier/wallet/").json()
    assert body == {
        "balance": 12_500,
        "stacks": [{"table_id": table.pk, "table": table.name, "balance": 7_500, "in_hand": False}],
    }


def test_deposit_then_withdraw(api, player):
    response = api.post("/api/cashier/deposit/", {"amount": 5_000, "idempotency_key": "k1"})
    assert response.status_code == 201
    assert response.json()["balance"] == 5_000 and response.json()["amount"] == 5_000
    response = api.post(
        "/api/cashier/withdraw/", {"amount": 1_250}, format="json", HTTP_IDEMPOTENCY_KEY="k2"
    )
    assert response.status_code == 201, response.json()
    assert wallet_balance(player=player) == 3_750


def test_resending_a_request_moves_money_once(api, player):
    first = api.post("/api/cashier/deposit/", {"amount": 900, "idempotency_key": "same"})
    again = api.post("/api/cashier/deposit/", {"amount": 900, "idempotency_key": "same"})
    assert first.json()["entry_id"] == again.json()["entry_id"]
    assert wallet_balance(player=player) == 900
    conflict = api.post("/api/cashier/deposit/", {"amount": 901, "idempotency_key": "same"})
    assert conflict.status_code == 400
    assert conflict.json()["code"] == "idempotency_conflict"


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"amount": 0, "idempotency_key": "a"}, "bad_amount"),
        ({"amount": -5, "idempotency_key": "a"}, "bad_amount"),
        ({"amount": 12.5, "idempotency_key": "a"}, "bad_amount"),
        ({"amount": "12.50", "idempotency_key": "a"}, "bad_amount"),
        ({"amount": 10**15, "idempotency_key": "a"}, "bad_amount"),
        ({"amount": 100}, "missing_idempotency_key"),
        ({"amount": 100, "idempotency_key": ""}, "missing_idempotency_key"),
    ],
)
def test_bad_requests_get_a_code_and_a_sentence(api, player, body, code):
    response = api.post("/api/cashier/deposit/", body, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert response.json()["message"]
    assert Entry.objects.count() == 0


def test_withdrawing_too_much_is_refused(api, player):
    wallet_deposit(player=player, amount=100, idempotency_key="d")
    response = api.post("/api/cashier/withdraw/", {"amount": 101, "idempotency_key": "w"})
    assert response.status_code == 400 and response.json()["code"] == "insufficient_funds"


def test_transactions_are_the_players_own_and_paginated(api, player):
    bob = make_funded_player("bob")
    for i in range(30):
        wallet_deposit(player=player, amount=100 + i, idempotency_key=f"d{i}")
    body = api.get("/api/cashier/transactions/").json()
    assert body["count"] == 30 and len(body["results"]) == 25
    assert body["results"][0]["amount"] == 129 and body["results"][0]["reason"] == "deposit"
    page2 = api.get("/api/cashier/transactions/?page=2").json()
    assert len(page2["results"]) == 5
    bob_entry = Entry.objects.get(player=bob)
    all_ids = {r["entry_id"] for r in body["results"] + page2["results"]}
    assert bob_entry.pk not in all_ids


def test_anonymous_users_see_nothing(client):
    for url in ("/api/cashier/wallet/", "/api/cashier/transactions/"):
        assert client.get(url).status_code == 403
    assert client.post("/api/cashier/deposit/", {"amount": 1}).status_code == 403


def test_endpoints_are_in_the_openapi_schema(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    for path in (
        "/api/cashier/wallet/",
        "/api/cashier/deposit/",
        "/api/cashier/withdraw/",
        "/api/cashier/transactions/",
        "/api/cashier/audit/journal/",
        "/api/cashier/audit/balances/",
        "/api/cashier/audit/rake/",
    ):
        assert path in schema["paths"], path


# -- malformed input: a 400 with a code and a sentence, never a 500, and no money moves


@pytest.mark.parametrize("path", ["/api/cashier/deposit/", "/api/cashier/withdraw/"])
@pytest.mark.parametrize(
    "body",
    ["[1, 2]", '"100"', "100", "null", "[" * 1000 + "]" * 1000],
    ids=["list", "string", "number", "null", "nested-1000"],
)
def test_a_body_that_is_not_one_json_object_is_refused(api, path, body):
    response = api.post(path, body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_json" and response.json()["message"]
    assert Entry.objects.count() == 0


@pytest.mark.parametrize(
    "amount",
    ["²", "1" * 5000, "\uff11\uff10\uff10", "100", " 12 ", True, [100], {"cents": 100}],
    ids=["sup", "5000-digits", "fullwidth", "digit-string", "spaced", "bool", "list", "map"],
)
def test_json_amounts_must_be_json_integers(api, amount):
    """A JSON body says 100, not "100"; "²" passed str.isdigit() and then broke int()."""
    response = api.post(
        "/api/cashier/deposit/", {"amount": amount, "idempotency_key": "k"}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["code"] == "bad_amount" and response.json()["message"]
    assert len(response.json()["message"]) < 200
    assert Entry.objects.count() == 0


@pytest.mark.parametrize("amount", ["²", "1" * 5000, "12.50", "-3", ""])
def test_form_amounts_must_be_ascii_digits(api, amount):
    response = api.post("/api/cashier/deposit/", {"amount": amount, "idempotency_key": "k"})
    assert response.status_code == 400
    assert response.json()["code"] == "bad_amount"
    assert Entry.objects.count() == 0


def test_form_amounts_in_digits_still_work(api, player):
    response = api.post("/api/cashier/deposit/", {"amount": "2500", "idempotency_key": "k"})
    assert response.status_code == 201 and wallet_balance(player=player) == 2500


@pytest.mark.parametrize(
    "key", ["k\x00ey", "k\ud800ey", "k\x1bey", "k" * 101], ids=["nul", "surrogate", "esc", "long"]
)
@pytest.mark.parametrize("path", ["/api/cashier/deposit/", "/api/cashier/withdraw/"])
def test_idempotency_keys_postgresql_cannot_store_are_refused(api, player, path, key):
    """NUL bytes and lone surrogates reached PostgreSQL (a DataError, a 500) before."""
    wallet_deposit(player=player, amount=500, idempotency_key="fund")
    body = json.dumps({"amount": 100, "idempotency_key": key})  # "\ud800" as JSON writes it
    response = api.post(path, body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_idempotency_key" and response.json()["message"]
    assert Entry.objects.count() == 1 and wallet_balance(player=player) == 500


@pytest.mark.parametrize("page", ["²", "0", "-1", "x", "1" * 5000])
def test_a_malformed_page_number_is_400(api, page):
    response = api.get(f"/api/cashier/transactions/?page={page}")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_parameter" and "page" in response.json()["message"]


def test_a_page_past_the_end_is_404(api):
    assert api.get("/api/cashier/transactions/?page=2").status_code == 404
    assert api.get("/api/cashier/transactions/?page=last").status_code == 200


def test_the_schema_declares_object_bodies_and_refusals(api):
    schema = api.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    deposit = schema["paths"]["/api/cashier/deposit/"]["post"]
    body = deposit["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    request = schema["components"]["schemas"][body.rsplit("/", 1)[1]]
    assert request["type"] == "object"
    assert request["properties"]["amount"]["minimum"] == 1
    assert request["properties"]["amount"]["maximum"] == 10**11
    assert request["properties"]["idempotency_key"]["maxLength"] == 100
    assert "400" in deposit["responses"]
    for path in ("/api/cashier/transactions/", "/api/cashier/audit/journal/"):
        assert "400" in schema["paths"][path]["get"]["responses"], path
    assert "400" in schema["paths"]["/api/accounts/token/"]["post"]["responses"]
