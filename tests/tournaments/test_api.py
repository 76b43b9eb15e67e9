"""The Sit & Go API and the lobby's Tournaments section: list, register, unregister, clear
refusals."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.factories import make_funded_player, make_sit_and_go, make_started_sit_and_go

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


def test_a_running_sit_and_go_live_state_for_anyone_and_its_page_to_poll():
    from django.utils import timezone

    from poker.models import Seat
    from tournaments.models import Registration
    from tournaments.services import tournament_level_up

    sng, players = make_started_sit_and_go(
        [f"p{k}" for k in range(6)], breaks=[{"after_level": 1, "minutes": 3}]
    )
    Seat.objects.filter(table=sng.table, player=players[2]).update(chips=4_000)
    Seat.objects.filter(table=sng.table, player=players[5]).update(chips=0)
    Registration.objects.filter(tournament=sng, player=players[5]).update(place=6)
    url = f"/api/tournaments/{sng.pk}/"
    live = APIClient().get(url)  # signed out: the page is everyone's
    assert live.status_code == 200
    body = live.json()
    assert (body["status"], body["level"], body["levels"]) == ("running", 1, 3)
    assert (body["small_blind"], body["big_blind"], body["ante"]) == (10, 20, 0)
    assert (body["next_small_blind"], body["next_big_blind"]) == (15, 30)
    assert body["next_level_at"] == sng.next_level_at.isoformat()
    assert (body["entrants"], body["players_left"], body["on_break"]) == (6, 5, False)
    # 6 entrants pay two places, 65/35 of $60.
    assert body["places_paid"] == 2 and body["pool"] == 6_000
    assert body["prizes"] == [
        {"place": 1, "percent": 65, "amount": 3_900},
        {"place": 2, "percent": 35, "amount": 2_100},
    ]
    # Those in by chips, most first; those out after them by place.
    assert body["players"][0] == {
        "id": players[2].pk,
        "display_name": "p2",
        "chips": 4_000,
        "place": None,
        "prize": 0,
    }
    assert body["players"][-1]["id"] == players[5].pk and body["players"][-1]["place"] == 6
    # A break: the next level's time is its end.
    assert tournament_level_up(tournament_id=sng.pk, level=2, now=timezone.now()) == "break"
    sng.refresh_from_db()
    body = APIClient().get(url).json()
    assert body["on_break"] is True and body["next_level_at"] == sng.next_level_at.isoformat()
    missing = APIClient().get("/api/tournaments/999999/")
    assert missing.status_code == 404
