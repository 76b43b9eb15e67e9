"""A Sit & Go's own page (Django's test client): its structure and payouts while it registers,
the players' chips, the level and the time to the next while it runs, the results once over."""

import pytest
from django.urls import reverse

from poker.models import Seat
from tests.factories import make_funded_player, make_player, make_started_sit_and_go
from tests.factories import make_sit_and_go as make_sng
from tournaments.models import Registration
from tournaments.services import tournament_register

pytestmark = pytest.mark.django_db


def page_of(client, sng) -> str:
    response = client.get(reverse("tournaments:sit_and_go", args=[sng.pk]))
    assert response.status_code == 200
    return response.content.decode()


def started(seats=2, **overrides):
    overrides.setdefault("breaks", [{"after_level": 2, "minutes": 3}])
    return make_started_sit_and_go([f"p{k}" for k in range(seats)], **overrides)


def test_a_registering_sit_and_go_shows_its_structure_payouts_and_players(client):
    sng = make_sng(breaks=[{"after_level": 2, "minutes": 3}])
    alice = make_funded_player("alice", cents=5_000)
    tournament_register(player=alice, tournament=sng, idempotency_key="k")
    html = page_of(client, sng)
    # Three levels with their blinds, minutes and the break after level II; I-II-III.
    assert '<tr data-level="1"><td>I</td><td class="amount">10/20</td>' in html
    assert '<tr data-level="3"><td>III</td><td class="amount">25/50</td>' in html
    assert 'class="sng-break"' in html
    # Payouts for a full table of 6 (65/35 of $60), and alice among the players.
    assert "65%" in html and "$39.00" in html and "$21.00" in html
    assert "1 of 6 players registered" in html and "alice" in html
    # Signed out: no Register button; the lobby links the page.
    assert "sng-register" not in html
    lobby = client.get(reverse("lobby:home")).content.decode()
    assert reverse("tournaments:sit_and_go", args=[sng.pk]) in lobby


def test_the_register_form_on_the_page_comes_back_to_it(client):
    sng = make_sng()
    bob = make_funded_player("bob", cents=5_000)
    client.force_login(bob)
    assert "sng-register" in page_of(client, sng)
    url = reverse("tournaments:register", args=[sng.pk])
    response = client.post(url, {"idempotency_key": "page-1", "next": "page"})
    assert response.url == reverse("tournaments:sit_and_go", args=[sng.pk])
    assert "sng-unregister" in page_of(client, sng)


def test_a_running_sit_and_go_shows_chips_level_and_the_next_level(client):
    sng, players = started(seats=2)
    seat = Seat.objects.filter(table=sng.table, player=players[0]).get()
    Seat.objects.filter(pk=seat.pk).update(chips=1_234)
    html = page_of(client, sng)
    assert "Level I" in html and 'Blinds <span id="sng-blinds">10/20<' in html
    assert 'id="sng-next-level"' in html and 'sng-next-blinds">15/30<' in html
    assert ">1,234<" in html and "2 of 2 players left" in html and "1 place paid." in html
    # The page polls its API and ticks the clock (static/js/sit_and_go.js).
    assert f'data-api="/api/tournaments/{sng.pk}/"' in html and "js/sit_and_go.js" in html
    assert reverse("poker:table", args=[sng.table_id]) in html
    assert "Watch the table" in html
    # The heads-up payout: 100% of $20.
    assert "$20.00" in html
    client.force_login(players[0])
    assert "Go to your table" in page_of(client, sng)


def test_a_running_sit_and_go_on_a_break_says_so(client):
    from django.utils import timezone

    from tournaments.services import tournament_level_up

    sng, _players = started(seats=2, breaks=[{"after_level": 1, "minutes": 3}])
    assert "sng-break-note" in page_of(client, sng)
    assert 'id="sng-break-note" hidden' in page_of(client, sng)
    assert tournament_level_up(tournament_id=sng.pk, level=2, now=timezone.now()) == "break"
    html = page_of(client, sng)
    assert 'id="sng-break-note">Break.' in html
    assert ">3:00<" in html or ">2:59<" in html


def test_a_finished_sit_and_go_shows_places_and_prizes(client):
    from django.utils import timezone

    sng, players = started(seats=2)
    Registration.objects.filter(tournament=sng, player=players[0]).update(place=1, prize=2_000)
    Registration.objects.filter(tournament=sng, player=players[1]).update(place=2, prize=0)
    type(sng).objects.filter(pk=sng.pk).update(status="finished", ended_at=timezone.now())
    html = page_of(client, sng)
    assert "Results" in html and "Finished" in html
    first = html.index(f'data-player="{players[0].pk}"')
    second = html.index(f'data-player="{players[1].pk}"')
    assert first < second
    assert "$20.00" in html


def test_no_such_sit_and_go_is_a_404(client):
    make_player("carol")
    assert client.get(reverse("tournaments:sit_and_go", args=[999_999])).status_code == 404


@pytest.mark.parametrize("language", ["fr", "ja"])
def test_the_page_is_translated(client, language):
    sng = make_sng()
    client.cookies["django_language"] = language
    html = page_of(client, sng)
    assert {"fr": "Structure", "ja": "ストラクチャー"}[language] in html
    assert {"fr": "Niveau", "ja": "レベル"}[language] in html


def test_the_table_state_carries_the_level_clock_and_places_no_more(client):
    from poker.selectors import table_state_for

    sng, players = started(seats=2)
    state = table_state_for(table=sng.table, player=None)
    clock = state["table"]["tournament"]
    assert (clock["id"], clock["level"], clock["levels"]) == (sng.pk, 1, 3)
    assert (clock["small_blind"], clock["big_blind"], clock["ante"]) == (10, 20, 0)
    assert (clock["next_small_blind"], clock["next_big_blind"]) == (15, 30)
    assert clock["next_level_at"] == sng.next_level_at.isoformat()
    assert (clock["entrants"], clock["players_left"], clock["places"]) == (2, 2, [])
    # One out in second place: their place shows; nothing else about them.
    Registration.objects.filter(tournament=sng, player=players[1]).update(place=2)
    clock = table_state_for(table=sng.table, player=players[1])["table"]["tournament"]
    assert clock["players_left"] == 1
    assert clock["places"] == [
        {"player": {"id": players[1].pk, "display_name": "p1"}, "place": 2, "prize": 0}
    ]
    # The table page links the tournament's page; a cash table's STATE has no such field.
    client.force_login(players[0])
    page = client.get(reverse("poker:table", args=[sng.table_id])).content.decode()
    assert 'id="tournament-bar"' in page
    assert reverse("tournaments:sit_and_go", args=[sng.pk]) in page
    from tests.factories import make_table

    assert "tournament" not in table_state_for(table=make_table(), player=None)["table"]


def finish(sng, places: dict) -> None:
    """Mark a started Sit & Go over with these {player: (place, prize)} (the page reads only)."""
    from django.utils import timezone

    for player, (place, prize) in places.items():
        Registration.objects.filter(tournament=sng, player=player).update(place=place, prize=prize)
    type(sng).objects.filter(pk=sng.pk).update(status="finished", ended_at=timezone.now())


def test_my_tournaments_lists_entries_places_prizes_and_net(client):
    from tournaments.services import tournament_unregister

    won, players = started(seats=2)
    finish(won, {players[0]: (1, 2_000), players[1]: (2, 0)})
    refunded = make_sng(name="Refunded")
    tournament_register(player=players[0], tournament=refunded, idempotency_key="r")
    tournament_unregister(player=players[0], tournament=refunded)
    client.force_login(players[0])
    response = client.get(reverse("tournaments:mine"))
    html = response.content.decode()
    # Won: +$20 - $10 - $1 = +$9; the refunded entry nets nothing and is not counted.
    assert f'data-tournament="{won.pk}"' in html and f'data-tournament="{refunded.pk}"' in html
    assert "+$9.00" in html and "1 entry, 1 in the money." in html
    assert 'id="sng-net">+$9.00<' in html
    # My results carries the same figures; the tournament's chip hands are not its money.
    results = client.get(reverse("histories:my_results")).content.decode()
    assert 'id="results-tournaments"' in results and "+$9.00" in results
    client.force_login(players[1])
    assert "-$11.00" in client.get(reverse("tournaments:mine")).content.decode()


def test_tournament_hands_stay_out_of_the_cash_results(client):
    from histories.selectors import player_results
    from tests.tournaments.sng_play import play_out

    sng, players = started(seats=2, starting_chips=100)
    assert play_out(sng, players)
    assert player_results(player=players[0])["totals"]["hands"] == 0


def test_the_statement_lists_the_buy_in_and_the_prize(client):
    sng, players = started(seats=2)
    client.force_login(players[0])
    csv = client.get(reverse("cashier:statement")).content.decode()
    assert "tournament_buy_in" in csv and f"tournament {sng.pk}" in csv


def test_the_top_menu_links_my_tournaments_for_a_signed_in_player_only(client):
    link = f'href="{reverse("tournaments:mine")}"'
    assert link not in client.get(reverse("lobby:home")).content.decode()
    client.force_login(make_player("carol"))
    assert link in client.get(reverse("lobby:home")).content.decode()
