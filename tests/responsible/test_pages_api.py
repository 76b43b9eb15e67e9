"""The profile page and the REST API set limits and exclusions with the services' rules;
the cashier page and API refuse what the rules refuse."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from cashier.models import Entry
from cashier.selectors import wallet_balance
from responsible.models import DepositLimit, Exclusion
from tests.factories import make_funded_player, make_player

pytestmark = pytest.mark.django_db


def api_for(player) -> APIClient:
    api = APIClient()
    api.force_authenticate(player)
    return api


def test_the_profile_page_sets_a_limit_that_the_cashier_page_enforces(client):
    alice = make_player("alice")
    client.force_login(alice)
    page = client.get(reverse("lobby:profile"))
    assert "Responsible gaming" in page.content.decode()
    client.post(reverse("responsible:limit_set"), {"period": "day", "amount": "50.00"})
    assert DepositLimit.objects.get(player=alice, period="day").amount == 5_000
    assert "$50.00" in client.get(reverse("lobby:profile")).content.decode()

    refused = client.post(
        reverse("cashier:deposit"), {"amount": "50.01", "idempotency_key": "page-1"}, follow=True
    )
    assert "your day limit of $50.00" in refused.content.decode()
    assert not Entry.objects.filter(player=alice).exists()
    client.post(reverse("cashier:deposit"), {"amount": "50.00", "idempotency_key": "page-2"})
    assert wallet_balance(player=alice) == 5_000

    # A raise waits; the page says when.
    answer = client.post(
        reverse("responsible:limit_set"), {"period": "day", "amount": "80.00"}, follow=True
    )
    assert "a higher limit waits 24 hours" in answer.content.decode()
    assert DepositLimit.objects.get(player=alice, period="day").amount == 5_000


def test_the_api_sets_limits_and_the_cashier_api_enforces_them():
    alice = make_player("alice")
    api = api_for(alice)
    answer = api.post(
        reverse("api-responsible-limits"), {"period": "week", "amount": 3_000}, format="json"
    )
    assert answer.status_code == 200
    week = next(limit for limit in answer.json()["limits"] if limit["period"] == "week")
    assert week["limit"] == 3_000 and week["left"] == 3_000
    refused = api.post(
        reverse("cashier-api:deposit"), {"amount": 3_001, "idempotency_key": "k1"}, format="json"
    )
    assert refused.status_code == 400 and refused.json()["code"] == "deposit_limit"
    bad = api.post(
        reverse("api-responsible-limits"), {"period": "week", "amount": -5}, format="json"
    )
    assert bad.status_code == 400 and bad.json()["code"] == "bad_amount"
    assert DepositLimit.objects.get(player=alice, period="week").amount == 3_000


def test_self_exclusion_through_the_page_logs_out_and_stops_deposits(client):
    alice = make_funded_player("alice")
    client.force_login(alice)
    unconfirmed = client.post(
        reverse("responsible:exclusion"), {"kind": "self_exclusion", "length": "6m"}
    )
    assert unconfirmed.status_code == 302 and not Exclusion.objects.exists()

    answer = client.post(
        reverse("responsible:exclusion"),
        {"kind": "self_exclusion", "length": "6m", "confirm": "on"},
    )
    assert answer.status_code == 302 and answer.url == reverse("lobby:login")
    assert Exclusion.objects.get(player=alice).kind == "self_exclusion"
    assert client.get(reverse("lobby:profile")).status_code == 302  # logged out

    # Logging in again shows the exclusion; deposits are refused on the page.
    client.force_login(alice)
    assert "self-exclusion until" in client.get(reverse("lobby:profile")).content.decode()
    refused = client.post(
        reverse("cashier:deposit"), {"amount": "10.00", "idempotency_key": "after"}, follow=True
    )
    assert "no deposits and no play" in refused.content.decode()
    assert wallet_balance(player=alice) == 100_000


def test_time_out_through_the_api_ends_the_token_and_cannot_be_shortened():
    alice = make_funded_player("alice")
    api = APIClient()
    token = api.post(
        reverse("api-token"),
        {"username": "alice", "password": "correct-horse-battery-staple-42"},
        format="json",
    ).json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    bad = api.post(
        reverse("api-responsible-exclusion"), {"kind": "time_out", "length": 43}, format="json"
    )
    assert bad.status_code == 400 and bad.json()["code"] == "bad_length"
    started = api.post(
        reverse("api-responsible-exclusion"), {"kind": "time_out", "length": 2}, format="json"
    )
    assert started.status_code == 201
    assert started.json()["exclusion"]["kind"] == "time_out"
    assert api.get(reverse("api-responsible")).status_code in (401, 403)  # the token is gone

    again = api_for(alice)
    shorter = again.post(
        reverse("api-responsible-exclusion"), {"kind": "time_out", "length": 1}, format="json"
    )
    assert shorter.status_code == 400 and shorter.json()["code"] == "already_excluded"
    refused = again.post(
        reverse("cashier-api:deposit"), {"amount": 100, "idempotency_key": "k"}, format="json"
    )
    assert refused.status_code == 400 and refused.json()["code"] == "excluded"
    ends = Exclusion.objects.get(player=alice).ends_at
    assert timedelta(days=2) - (ends - timezone.now()) < timedelta(minutes=1)


def test_reality_check_through_the_page_and_the_api(client):
    alice = make_player("alice")
    client.force_login(alice)
    client.post(reverse("responsible:reality_check"), {"minutes": "45"})
    api = api_for(alice)
    check = api.get(reverse("api-responsible-reality-check")).json()
    assert check["interval_minutes"] == 45 and check["net"] == 0
    assert check["seconds_played"] >= 0
    bad = api.put(reverse("api-responsible-reality-check"), {"minutes": 9}, format="json")
    assert bad.status_code == 400 and bad.json()["code"] == "bad_interval"
    api.put(reverse("api-responsible-reality-check"), {"minutes": None}, format="json")
    assert api.get(reverse("api-responsible")).json()["reality_check_minutes"] is None
