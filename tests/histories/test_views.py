"""My hands (page and API) and one hand's page: own hands only, filters, pagination, a bad
filter refused with its reason, and no card a viewer may not see."""

import pytest
from django.test import Client
from rest_framework.test import APIClient

from poker.models import HandPlayer
from tests.factories import make_player, make_seated_player
from tests.histories.conftest import game_table, play_hand
from tests.poker.engine.conftest import build_deck
from tests.sweep import DECK, cards_in

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


@pytest.mark.django_db
def test_my_results_draws_the_net_after_and_before_rake_and_lists_sessions():
    """A profit graph over time (net won, with and without rake, per game)
    drawn on the server, and a session list."""
    from datetime import timedelta

    from poker.models import Hand

    table = game_table("omaha-pot-limit")
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    # Aces full against nothing, whoever gets which: a shuffled deck chopped a pot now and then,
    # and a chop's rake is taken from a player whose net is below zero.
    no_chop = build_deck(["AhAdKhKd", "2c3c7d8s"], "As Ks Kc 9h 4d")
    first = play_hand(table, players, aggressors=set(), deck=no_chop)
    second = play_hand(table, players, aggressors=set(), deck=no_chop)
    Hand.objects.filter(pk=first.pk).update(started_at=second.started_at - timedelta(hours=2))
    rows = {row.player_id: row for row in HandPlayer.objects.filter(hand=second)}
    winner = max(rows.values(), key=lambda row: row.net).player
    nets = HandPlayer.objects.filter(player=winner).values_list("net", flat=True)
    rakes = [hand.result["rake"] for hand in Hand.objects.filter(pk__in=[first.pk, second.pk])]
    assert sum(rakes) > 0
    client = Client()
    client.force_login(winner, backend="django.contrib.auth.backends.ModelBackend")
    response = client.get("/hands/results/")
    assert response.status_code == 200
    results = response.context["results"]
    assert results["totals"]["net"] == sum(nets) and results["totals"]["hands"] == 2
    # Heads-up, one pot a hand: the rake of a hand the player won was taken from their pot.
    won_rake = sum(
        hand.result["rake"]
        for hand in Hand.objects.filter(pk__in=[first.pk, second.pk])
        if HandPlayer.objects.get(hand=hand, player=winner).net > 0
    )
    assert results["totals"]["before_rake"] == sum(nets) + won_rake
    assert list(results["per_game"]) == ["omaha"]
    assert [s["hands"] for s in results["sessions"]] == [1, 1]  # two hours apart: two sessions
    page = response.content.decode()
    assert '<svg id="profit-graph"' in page and page.count("<polyline") == 2
    # Over time: the graph says when its first and last hands were dealt (two hours apart).
    from django.utils import timezone
    from django.utils.formats import date_format

    when = [date_format(timezone.localtime(Hand.objects.get(pk=h.pk).started_at),
                        "SHORT_DATETIME_FORMAT") for h in (first, second)]  # fmt: skip
    span = page[page.index('id="profit-graph-span"') :]
    span = span[: span.index("</span>")]
    assert when[0] in span and when[1] in span and when[0] != when[1], (span, when)
    assert client.get("/hands/results/?game=holdem-nope").status_code == 200  # shown as an error
    assert client.get("/hands/results/?table=999999").context["results"]["totals"]["hands"] == 0
    stranger = Client()
    stranger.force_login(make_player("eve"), backend="django.contrib.auth.backends.ModelBackend")
    assert 'id="profit-graph"' not in stranger.get("/hands/results/").content.decode()


@pytest.mark.django_db
def test_a_share_link_shows_the_hand_as_its_sharers_history_does_and_nothing_more():
    """A link for one hand, for anyone, that shows the sharer's cards and
    those shown at showdown, never another player's hidden cards; a forged link is a 404."""
    import re

    from poker.engine.hand import Hand as EngineHand

    table = game_table("omaha-pot-limit")
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    from poker import services
    from tests.factories import deal_hand

    folded = deal_hand(table)
    first = EngineHand.from_dict(folded.state).legal_actions().seat
    services.table_act(table=table, player=players[first], action="fold", amount=None,
                       turn=folded.turn, seq=folded.turn)  # fmt: skip
    folded.refresh_from_db()
    owner_page = signed_in(players[2]).get(f"/hands/{folded.pk}/").content.decode()
    link = re.search(r'value="(http[^"]+/hands/shared/[^"/]+/)"', owner_page).group(1)
    path = link.split("testserver", 1)[1]
    shared = Client().get(path)  # nobody signed in
    assert shared.status_code == 200
    page = shared.content.decode()
    engine = EngineHand.from_dict(folded.state)
    holes = dict(zip(engine.seats, engine.hole_cards, strict=True))
    shown = {e["seat"] for e in folded.events.values_list("payload", flat=True)
             if e["type"] == "cards_shown"}  # fmt: skip
    record_cards = cards_in(page)
    assert set(holes[2]) <= record_cards  # the sharer's own cards
    assert 1 not in shown and not set(holes[1]) & record_cards  # Ann's stay hidden
    assert 'id="hand-downloads"' not in page and 'id="share-url"' not in page
    assert 'id="shared-note"' in page
    # A link made for another hand, or edited, leads nowhere.
    from django.core import signing

    forged = signing.dumps([folded.pk, players[2].pk], salt="another purpose")
    assert Client().get(f"/hands/shared/{forged}/").status_code == 404
    assert Client().get(path[:-3] + "xx/").status_code == 404


@pytest.mark.django_db
def test_my_hands_shows_cards_position_pot_and_stakes_and_filters_by_position():
    """Columns for the hole cards, the position, the pot and the stakes;
    a filter by position (the page, the API and the download all honour it)."""
    from poker.engine.hand import Hand as EngineHand

    table = game_table("omaha-pot-limit")
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    hand = play_hand(table, players, aggressors=set())
    engine = EngineHand.from_dict(hand.state)
    rows = {row.seat: row for row in HandPlayer.objects.filter(hand=hand)}
    assert {row.position for row in rows.values()} == {"BTN", "BB"}
    ben = rows[2]
    page = signed_in(players[2]).get("/hands/").content.decode()
    line = page[page.index(f'data-hand="{hand.pk}"') :]
    line = line[: line.index("</tr>")]
    own = set(engine.hole_cards[engine.seats.index(2)])
    other = set(engine.hole_cards[engine.seats.index(1)])
    assert cards_in(line) == own and not other & cards_in(line)
    assert f'<td class="position">{ben.position}</td>' in line
    pot = sum(p["amount"] for p in hand.result["pots"])
    assert f"${pot // 100:,}.{pot % 100:02d}" in line and table.stakes_label in line
    api = signed_in(players[2], APIClient)
    (api_line,) = api.get(f"/api/hands/?position={ben.position}").json()["results"]
    assert api_line["position"] == ben.position and set(api_line["hole_cards"]) == own
    assert api_line["pot"] == pot
    elsewhere = "SB" if ben.position != "SB" else "CO"
    assert api.get(f"/api/hands/?position={elsewhere}").json()["results"] == []
    assert api.get("/api/hands/?position=dealer").status_code == 400
    filtered = signed_in(players[2]).get(f"/hands/?position={elsewhere}").content.decode()
    assert f'data-hand="{hand.pk}"' not in filtered


@pytest.mark.django_db
def test_every_players_share_link_shows_what_their_own_history_shows_and_no_secret():
    """Share links against the hidden-card sweep's secrets: three players, one folds on
    the flop and two go to showdown. Each one's link, followed by nobody signed in, shows exactly
    the cards of that player's own hand page (their cards, the board, the cards shown at
    showdown): never cards folded or mucked by others, a burn or an undealt card."""
    import re

    from poker import services
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand
    from tests.factories import call_down, deal_hand

    table = game_table("omaha-pot-limit")
    players = {
        n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"), (3, "cy"))
    }
    hand = call_down(deal_hand(table, DECK), players, until_street="flop")
    folder = EngineHand.from_dict(hand.state).legal_actions().seat
    services.table_act(table=table, player=players[folder], action="fold", amount=None,
                       turn=hand.turn, seq=hand.turn)  # fmt: skip
    hand = call_down(hand, players)
    assert hand.status == Hand.Status.FINISHED
    row = Hand.objects.with_deck().get(pk=hand.pk)
    engine = EngineHand.from_snapshot(row.state, row.deck)
    never = set(engine.deck[engine.next_card :]) | set(engine.burns)
    holes = {seat: set(cards) for seat, cards in zip(engine.seats, engine.hole_cards, strict=True)}
    shown = {e["seat"] for e in engine.result["showdown"] if e.get("shown")}
    assert folder not in shown and shown  # a loser shown second may muck (RULES.md)
    for seat, player in players.items():
        own = signed_in(player).get(f"/hands/{hand.pk}/").content.decode()
        link = re.search(r'value="(http[^"]+/hands/shared/[^"/]+/)"', own).group(1)
        shared = Client().get(link.split("testserver", 1)[1])
        assert shared.status_code == 200, seat
        seen = cards_in(shared.content.decode())
        may_see = holes[seat] | set(engine.board) | set().union(*(holes[s] for s in shown))
        assert seen == cards_in(own.replace(link, "")), seat  # what the sharer's history shows
        assert holes[seat] <= seen <= may_see, seat
        assert not seen & never, (seat, sorted(seen & never))
        unseen = set().union(*(holes[s] for s in holes if s != seat and s not in shown))
        assert holes[folder] <= unseen or seat == folder
        assert not seen & unseen, (seat, sorted(seen & unseen))  # folded or mucked: hidden
