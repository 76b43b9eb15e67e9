"""The player's cashier API: own money only, clear refusals, in the OpenAPI schema."""

import pytest
from rest_framework.test import APIClient

from cashier.models import Entry
from cashier.selectors import wallet_balance
from cashier.services import table_buy_in, wallet_deposit
from tests.factories import make_funded_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def api(player):
    client = APIClient()
    client.force_authenticate(player)
    return client


def test_wallet_shows_balance_and_stacks(api, player, table):
    wallet_deposit(player=player, amount=20_000, idempotency_key="d")
    table_buy_in(player=player, table=table, amount=7_500, idempotency_key="b")
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
        ({"amount": 0, "idempotency_key": "a"}, "invalid_amount"),
        ({"amount": -5, "idempotency_key": "a"}, "invalid_amount"),
        ({"amount": 12.5, "idempotency_key": "a"}, "invalid_amount"),
        ({"amount": "12.50", "idempotency_key": "a"}, "invalid_amount"),
        ({"amount": 10**15, "idempotency_key": "a"}, "invalid_amount"),
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
