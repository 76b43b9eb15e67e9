"""My hands (page and API) and one hand's page: own hands only, filters, pagination, a bad
filter refused with its reason, and no card a viewer may not see."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from poker.models import HandPlayer
from tests.factories import make_player, make_seated_player
from tests.histories.conftest import game_table, play_hand
from tests.poker.test_admin import cards_in

pytestmark = pytest.mark.django_db


def signed_in(user, client_class=Client):
    client = client_class()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def test_my_hands_lists_the_players_hands_newest_first_with_net_and_rake(played):
    _, table, players, calm, wild = played
    page = signed_in(players[2]).get("/hands/").content.decode()
    assert page.index(f'data-hand="{wild.pk}"') < page.index(f'data-hand="{calm.pk}"')
    assert f"Hand #{calm.pk}" in page and table.name in page
    api = signed_in(players[2], APIClient).get("/api/hands/").json()
    assert [line["id"] for line in api["results"]] == [wild.pk, calm.pk]
    line = api["results"][1]
    mine = HandPlayer.objects.get(hand=calm, player=players[2])
    assert line["net"] == mine.net and line["rake"] == calm.result["rake"]
    assert line["table"]["name"] == table.name and line["seat"] == 2
    assert signed_in(make_player("eve"), APIClient).get("/api/hands/").json()["results"] == []


def test_the_filters_narrow_the_list_and_a_bad_one_is_refused(played):
    game, table, players, _, _ = played
    api = signed_in(players[2], APIClient)
    won = {line["id"] for line in api.get("/api/hands/?result=won").json()["results"]}
    lost = {line["id"] for line in api.get("/api/hands/?result=lost").json()["results"]}
    nets = dict(HandPlayer.objects.filter(player=players[2]).values_list("hand_id", "net"))
    assert won == {h for h, n in nets.items() if n > 0}
    assert lost == {h for h, n in nets.items() if n < 0}
    other = "omaha8" if game.startswith("omaha-") else "omaha"
    assert api.get(f"/api/hands/?game={other}").json()["results"] == []
    assert len(api.get(f"/api/hands/?table={table.pk}").json()["results"]) == 2
    assert api.get("/api/hands/?since=2999-01-01").json()["results"] == []
    for bad in ("result=maybe", "table=-1", "since=yesterday", "since=2026-02-02&until=2026-01-01",
                "page=x"):  # fmt: skip
        refused = api.get(f"/api/hands/?{bad}")
        assert refused.status_code == 400, bad
        assert refused.json()["code"] in ("bad_filter", "bad_parameter"), refused.json()
    page = signed_in(players[2]).get("/hands/?result=maybe").content.decode()
    assert 'role="alert"' in page


def test_a_hand_page_and_its_api_show_only_what_the_viewer_may_see(played):
    _, _, players, calm, _ = played
    from poker.engine.hand import Hand as EngineHand

    engine = EngineHand.from_dict(calm.state)
    holes = dict(zip(engine.seats, (set(c) for c in engine.hole_cards), strict=True))
    shown = {e["seat"] for e in engine.result["showdown"] if e.get("shown")}
    for seat, player in players.items():
        visible = holes[seat] | set().union(*(holes[s] for s in shown)) | set(engine.board)
        for client, path in ((signed_in(player), f"/hands/{calm.pk}/"),
                             (signed_in(player, APIClient), f"/api/hands/{calm.pk}/")):  # fmt: skip
            response = client.get(path)
            assert response.status_code == 200
            seen = cards_in(response.content.decode())
            assert seen <= visible and holes[seat] <= seen, (seat, path)
    outsider = make_player("eve")
    assert signed_in(outsider).get(f"/hands/{calm.pk}/").status_code == 404
    assert signed_in(outsider, APIClient).get(f"/api/hands/{calm.pk}/").status_code == 404
    assert Client().get("/hands/").status_code == 302  # to the login page
    assert APIClient().get("/api/hands/").status_code in (401, 403)


def test_pages_of_hands_keep_their_filters(monkeypatch):
    from histories import views

    table = game_table("omaha-pot-limit")
    players = {1: make_seated_player(table, "dee", 1), 2: make_seated_player(table, "eli", 2)}
    for _ in range(3):
        play_hand(table, players, aggressors=set())
    monkeypatch.setattr(views, "PER_PAGE", 2)
    page = signed_in(players[2]).get(f"/hands/?table={table.pk}").content.decode()
    assert f"?table={table.pk}&amp;page=2" in page
    second = signed_in(players[2]).get(f"/hands/?table={table.pk}&page=2").content.decode()
    assert second.count('<tr data-hand="') == 1


def test_the_cashier_names_a_hand_by_its_public_id_and_links_to_it(played):
    _, _, players, calm, _ = played
    page = signed_in(players[2]).get("/cashier/").content.decode()
    assert f'<a href="/hands/{calm.pk}/">#{calm.pk}</a>' in page
