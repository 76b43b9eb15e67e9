"""Logins with inputs axes cannot store: a clean refusal, never a server error."""

import pytest
from axes.models import AccessAttempt
from django.urls import reverse
from rest_framework.test import APIClient

from tests.factories import make_player

pytestmark = pytest.mark.django_db

# django-axes records each failed login's username in a varchar(255).
TOO_LONG = "u" * 300


def test_the_login_page_refuses_a_username_too_long_to_record(client):
    response = client.post(reverse("lobby:login"), {"username": TOO_LONG, "password": "x"})
    assert response.status_code == 200
    assert response.context["form"].errors


def test_the_admin_login_refuses_a_username_too_long_to_record(client):
    response = client.post("/admin/login/", {"username": TOO_LONG, "password": "x"})
    assert response.status_code == 200
    assert response.context["form"].errors


def test_the_token_endpoint_refuses_a_username_too_long_to_record():
    response = APIClient().post(
        "/api/accounts/token/", {"username": TOO_LONG, "password": "x"}, format="json"
    )
    assert response.status_code == 400
    assert "username" in response.json()


def test_failures_with_long_usernames_still_count_towards_a_lock(client, settings):
    """Whatever axes stores for an overlong name still locks that name, as for any other."""
    make_player("carol")
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post("/admin/login/", {"username": TOO_LONG, "password": "x"})
    assert AccessAttempt.objects.filter(username=TOO_LONG[:255]).exists()
    response = client.post("/admin/login/", {"username": TOO_LONG, "password": "x"})
    assert response.status_code == 429
