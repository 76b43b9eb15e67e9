"""Answers meant for one signed-in player are never kept by a shared or browser cache."""

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token

from tests.factories import make_player

pytestmark = pytest.mark.django_db

PRIVATE = {"private", "no-store"}


def directives(response) -> set[str]:
    return {part.strip() for part in response.get("Cache-Control", "").split(",") if part}


@pytest.mark.parametrize(
    "path", ["lobby:home", "lobby:profile", "cashier:home", "histories:my_hands"]
)
def test_a_signed_in_players_pages_are_private_and_not_stored(player_client, path):
    response = player_client.get(reverse(path))
    assert response.status_code == 200
    assert directives(response) >= PRIVATE


def test_api_answers_are_private_and_not_stored(player_client):
    player = make_player("tokened")
    token = Token.objects.create(user=player)
    for response in (
        player_client.get("/api/accounts/me/"),
        player_client.get(reverse("cashier-api:wallet")),
        # A token, no session: the API authenticates inside the view.
        player_client.__class__().get("/api/accounts/me/", HTTP_AUTHORIZATION=f"Token {token.key}"),
        # Refusals too: they name the account.
        player_client.__class__().get("/api/accounts/me/"),
    ):
        assert directives(response) >= PRIVATE, response


def test_an_anonymous_answer_without_cookies_is_left_to_the_view(client):
    response = client.get(reverse("healthz"))
    assert not response.cookies
    assert "no-store" not in directives(response)
