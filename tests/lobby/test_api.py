"""The accounts API: tokens for bots, the player's own profile, session and token auth."""

from datetime import datetime, timedelta

import pytest
from axes.models import AccessAttempt
from django.urls import reverse
from django.utils import timezone
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
        "email_verified": True,
        "display_name": "alice",
        "sound_muted": False,
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


def test_token_lockout_says_who_is_locked_from_where_and_until_when(api, player, settings):
    here = {"REMOTE_ADDR": "198.51.100.1"}
    for _ in range(settings.AXES_FAILURE_LIMIT):
        api.post(reverse("api-token"), {"username": "alice", "password": "x"}, **here)
    # The unlock time comes from the recorded failures, not from the configured cool-off.
    last_failure = timezone.now() - timedelta(minutes=5)
    AccessAttempt.objects.filter(username="alice").update(attempt_time=last_failure)
    lifts_at = last_failure + timedelta(hours=settings.AXES_COOLOFF_TIME)

    response = api.post(
        reverse("api-token"), {"username": "alice", "password": DEFAULT_PASSWORD}, **here
    )

    assert response.status_code == 429
    body = response.json()
    assert body["username"] == "alice"
    assert body["ip_address"] == "198.51.100.1"
    assert datetime.fromisoformat(body["locked_until"]) == lifts_at
    assert abs(body["retry_after_seconds"] - 600) <= 2
    assert response["Retry-After"] == str(body["retry_after_seconds"])
    assert '"alice" is locked from 198.51.100.1' in body["detail"]
    assert lifts_at.strftime("%Y-%m-%d %H:%M:%S UTC") in body["detail"]
    assert "(in 10 minutes)" in body["detail"]


def test_token_lockout_is_per_player_and_address(api, player, other_player, settings):
    here, elsewhere = {"REMOTE_ADDR": "198.51.100.1"}, {"REMOTE_ADDR": "203.0.113.2"}
    for _ in range(settings.AXES_FAILURE_LIMIT):
        api.post(reverse("api-token"), {"username": "alice", "password": "x"}, **here)
    bob_here = api.post(
        reverse("api-token"), {"username": "bob", "password": DEFAULT_PASSWORD}, **here
    )
    alice_elsewhere = api.post(
        reverse("api-token"), {"username": "alice", "password": DEFAULT_PASSWORD}, **elsewhere
    )
    alice_here = api.post(
        reverse("api-token"), {"username": "alice", "password": DEFAULT_PASSWORD}, **here
    )
    assert bob_here.status_code == 200
    assert alice_elsewhere.status_code == 200
    assert alice_here.status_code == 429


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


def test_the_sound_switch_is_kept_on_the_profile_and_follows_the_player(player_client, player):
    """The tables' switch PATCHes `sound_muted` alone (the name stays); a page opened from
    another device (another session) draws the switch as the player left it."""
    from django.test import Client

    from tests.factories import make_showdown_table, make_table

    muted = player_client.patch(
        reverse("api-me"), {"sound_muted": True}, content_type="application/json"
    )
    assert muted.status_code == 200
    assert (muted.json()["sound_muted"], muted.json()["display_name"]) == (True, "alice")
    loud = player_client.patch(
        reverse("api-me"), {"sound_muted": "loud"}, content_type="application/json"
    )
    assert loud.status_code == 400
    phone = Client()
    phone.force_login(player, backend="django.contrib.auth.backends.ModelBackend")
    assert phone.get(reverse("api-me")).json()["sound_muted"] is True
    for url in (
        reverse("poker:table", args=[make_table().pk]),
        reverse("showdown:live", args=[make_showdown_table(seats=3).pk]),
    ):
        page = phone.get(url).content.decode()
        assert 'id="sound-switch"' in page and 'data-muted="true"' in page, url
        assert "js/sounds.js" in page, url


def test_openapi_schema_and_docs_are_published(client):
    schema = client.get(reverse("api-schema"), HTTP_ACCEPT="application/vnd.oai.openapi+json")
    assert schema.status_code == 200
    paths = schema.json()["paths"]
    assert "/api/accounts/me/" in paths
    assert "/api/accounts/token/" in paths
    assert client.get(reverse("api-docs")).status_code == 200
