"""The accounts API: tokens for bots, the player's own profile, session and token auth."""

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from tests.factories import DEFAULT_PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def api():
    return APIClient()


def test_token_for_right_credentials_authenticates_the_api(api, player):
    response = api.post(
        reverse("api-token"), {"username": "alice", "password": DEFAULT_PASSWORD}, format="json"
    )
    assert response.status_code == 200
    token = response.json()["token"]
    api.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    me = api.get(reverse("api-me"))
    assert me.status_code == 200
    assert me.json() == {
        "username": "alice",
        "email": "alice@example.test",
        "display_name": "alice",
    }


def test_token_refused_for_wrong_credentials(api, player):
    response = api.post(reverse("api-token"), {"username": "alice", "password": "x"})
    assert response.status_code == 400
    assert "Wrong username or password" in response.json()["detail"]


def test_token_refused_while_locked_out(api, player, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        api.post(reverse("api-token"), {"username": "alice", "password": "x"})
    response = api.post(reverse("api-token"), {"username": "alice", "password": DEFAULT_PASSWORD})
    assert response.status_code == 429
    assert "locked" in response.json()["detail"]
    assert "token" not in response.json()


def test_me_needs_authentication(api):
    assert api.get(reverse("api-me")).status_code in (401, 403)


def test_me_accepts_the_session(player_client):
    assert player_client.get(reverse("api-me")).json()["username"] == "alice"


def test_me_changes_the_display_name_and_validates_it(player_client):
    ok = player_client.patch(
        reverse("api-me"), {"display_name": "Ally"}, content_type="application/json"
    )
    assert ok.status_code == 200
    assert ok.json()["display_name"] == "Ally"
    bad = player_client.patch(
        reverse("api-me"), {"display_name": "x"}, content_type="application/json"
    )
    assert bad.status_code == 400


def test_openapi_schema_and_docs_are_published(client):
    schema = client.get(reverse("api-schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/accounts/me/" in paths
    assert "/api/accounts/token/" in paths
    assert client.get(reverse("api-docs")).status_code == 200
