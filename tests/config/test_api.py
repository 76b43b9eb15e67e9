"""The REST API's parser, error shape and pagination (config/api.py), on every kind of view."""

import pytest
from rest_framework.test import APIClient

from tests.factories import DEFAULT_PASSWORD

pytestmark = pytest.mark.django_db

NESTED_1000 = "[" * 1000 + "]" * 1000
NESTED_OBJECT = '{"username": ' + '{"a": ' * 40 + "1" + "}" * 40 + "}"


@pytest.mark.parametrize(
    "body",
    [NESTED_1000, NESTED_OBJECT, "[]", '"alice"', "{", '{"username": NaN}'],
    ids=["nested-1000", "nested-object", "list", "string", "truncated", "nan"],
)
def test_the_public_token_endpoint_refuses_bad_json_with_400(player, body):
    """Unauthenticated, and a RecursionError (a 500) at 1,000 levels before."""
    response = APIClient().post("/api/accounts/token/", body, content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_json" and response.json()["message"]


def test_the_token_endpoint_still_takes_json_and_forms(player):
    client = APIClient()
    credentials = {"username": "alice", "password": DEFAULT_PASSWORD}
    assert client.post("/api/accounts/token/", credentials, format="json").status_code == 200
    assert client.post("/api/accounts/token/", credentials).status_code == 200


def test_a_profile_patch_must_be_an_object(player):
    client = APIClient()
    client.force_authenticate(player)
    response = client.patch("/api/accounts/me/", "[1]", content_type="application/json")
    assert response.status_code == 400 and response.json()["code"] == "bad_json"
    response = client.patch("/api/accounts/me/", {"display_name": "Alice B"}, format="json")
    assert response.status_code == 200 and response.json()["display_name"] == "Alice B"


def test_a_body_in_another_charset_than_it_says_is_refused(player):
    response = APIClient().post(
        "/api/accounts/token/",
        b'{"username": "\xff"}',
        content_type="application/json; charset=utf-8",
    )
    assert response.status_code == 400 and response.json()["code"] == "bad_json"
