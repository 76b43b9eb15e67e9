"""The Sit & Go API and the lobby's Tournaments section: list, register, unregister, clear
refusals."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import make_funded_player, make_sit_and_go

pytestmark = pytest.mark.django_db


def test_list_register_and_unregister_through_the_api():
    sng = make_sit_and_go()
    alice = make_funded_player("alice", cents=5_000)
    api = APIClient()
    assert api.get("/api/tournaments/").status_code == 403  # signed in only
    api.force_authenticate(alice)
    [listed] = api.get("/api/tournaments/").json()
    assert listed["id"] == sng.pk and listed["registered"] == 0
    assert (listed["buy_in"], listed["fee"], listed["seats"]) == (1_000, 100, 6)
    assert listed["is_registered"] is False and listed["status"] == "registering"
    url = f"/api/tournaments/{sng.pk}/register/"
    done = api.post(url, {}, format="json", HTTP_IDEMPOTENCY_KEY="k1")
    assert done.status_code == 201, done.json()
    assert done.json()["status"] == "active" and done.json()["balance"] == 3_900
    again = api.post(url, {"idempotency_key": "k2"}, format="json")
    assert again.status_code == 400
    assert again.json()["code"] == "already_registered" and again.json()["message"]
    assert api.get("/api/tournaments/").json()[0]["is_registered"] is True
    left = api.post(f"/api/tournaments/{sng.pk}/unregister/")
    assert left.status_code == 200 and left.json()["status"] == "unregistered"
    assert left.json()["balance"] == 5_000
    forged = api.post("/api/tournaments/999999/register/", {"idempotency_key": "k3"})
    assert forged.status_code == 400 and forged.json()["code"] == "unknown_tournament"


def test_the_lobby_lists_open_sit_and_gos_and_registers_from_its_form():
    sng = make_sit_and_go()
    alice = make_funded_player("alice", cents=5_000)
    visitor = Client().get("/").content.decode()
    assert 'id="tournaments"' in visitor and "$10.00" in visitor
    assert 'sng-register"' not in visitor  # visitors are asked to log in, no button
    client = Client()
    client.force_login(alice, backend="django.contrib.auth.backends.ModelBackend")
    page = client.get("/")
    [row] = [s for s in page.context["sit_and_gos"] if s.id == sng.pk]
    answer = client.post(
        f"/tournaments/{sng.pk}/register/", {"idempotency_key": row.register_key}, follow=True
    )
    assert "You are registered" in answer.content.decode()
    assert "sng-unregister" in answer.content.decode()
    # The same form sent again (a double click) registers once and says so plainly.
    client.post(f"/tournaments/{sng.pk}/register/", {"idempotency_key": row.register_key})
    answer = client.post(f"/tournaments/{sng.pk}/unregister/", follow=True)
    assert "back in your wallet" in answer.content.decode()
