"""Hidden cards stay hidden by construction: with a hand running, no admin page of any app, no
page or API answer, no STATE and no log line carries a card still in the deck, a burn, or
(for anyone but their owner) a hole card.

The pages are not listed by hand: every model registered in the admin (its list, and the page,
history and delete page of each of its rows) and every route without a parameter, so a page
added later is swept too. The deck itself is read only by the services that play the hand
(`Hand.objects.with_deck()`); everything else gets hands without it.
"""

import logging

import pytest
from django.contrib import admin
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver, reverse

from poker.engine.hand import Hand as EngineHand
from poker.models import Hand
from poker.selectors import table_state_for
from tests.factories import call_down, deal_hand, make_funded_player, make_player, make_table
from tests.factories import make_seated_player as seat_player
from tests.poker.test_admin import DECK, cards_in

pytestmark = pytest.mark.django_db

# GET routes that are not pages to sweep: leaving the session, and the schema's own UIs and
# document (they describe the API, they show no data).
SKIPPED = ("accounts/logout/", "api/schema/", "api/docs/", "api/redoc/")


def _parameterless_routes(patterns=None, prefix: str = "") -> list[str]:
    """Every route of the URL map that takes no parameter, as a path."""
    paths = []
    for entry in get_resolver().url_patterns if patterns is None else patterns:
        route = str(entry.pattern)
        if "<" in route or route.startswith("^") or "(?P" in route:
            continue  # takes a parameter (or is a regex: the admin's own, swept below)
        if isinstance(entry, URLResolver):
            if route == "admin/":
                continue
            paths += _parameterless_routes(entry.url_patterns, prefix + route)
        elif isinstance(entry, URLPattern):
            paths.append("/" + prefix + route)
    return [path for path in paths if not path.lstrip("/").startswith(SKIPPED)]


def _admin_pages() -> list[str]:
    """The list of every model in the admin, and each row's change, history and delete page."""
    pages = ["/admin/"]
    for model in admin.site._registry:
        label = f"admin:{model._meta.app_label}_{model._meta.model_name}"
        pages.append(reverse(f"{label}_changelist"))
        for pk in model._default_manager.values_list("pk", flat=True)[:25]:
            pages += [reverse(f"{label}_{page}", args=[pk]) for page in ("change", "history")]
            pages.append(reverse(f"{label}_delete", args=[pk]))
    return pages


def _secrets(hand: Hand) -> tuple[set[str], dict[int, set[str]]]:
    """(cards nobody may see now: the rest of the deck and the burns, each seat's hole cards),
    read the way only a service playing the hand may: with its deck."""
    row = Hand.objects.with_deck().get(pk=hand.pk)
    engine = EngineHand.from_snapshot(row.state, row.deck)
    undealt = set(engine.deck[engine.next_card :]) | set(engine.burns)
    holes = {seat: set(cards) for seat, cards in zip(engine.seats, engine.hole_cards, strict=True)}
    assert undealt and all(holes.values())
    return undealt, holes


def _get(client: Client, path: str) -> str:
    response = client.get(path)
    assert response.status_code < 500, (path, response.status_code)
    body = b"".join(response.streaming_content) if response.streaming else response.content
    return body.decode(errors="replace")


def test_no_page_api_state_or_log_line_shows_a_running_hands_hidden_cards(caplog):
    caplog.set_level(logging.DEBUG)
    table = make_table()
    players = {n: seat_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"), (4, "cy"))}
    hand = call_down(deal_hand(table, DECK), players, until_street="flop")
    assert hand.status == Hand.Status.RUNNING
    undealt, holes = _secrets(hand)
    every_hole = set().union(*holes.values())

    staff = make_player("boss", is_staff=True, is_superuser=True)
    watcher = make_funded_player("sam")
    table_page = f"/tables/{table.pk}/"
    routes = _parameterless_routes()
    assert "/api/accounts/me/" in routes and "/" in routes, "the sweep reaches the API and pages"
    admin_pages = _admin_pages()
    assert f"/admin/poker/hand/{hand.pk}/change/" in admin_pages

    viewers = [(staff, None), (watcher, None), *((p, seat) for seat, p in players.items())]
    swept = 0
    for user, seat in viewers:
        client = Client()
        client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
        # What this viewer may see: their own hole cards, nothing else of the hand's secrets.
        hidden = undealt | (every_hole - holes.get(seat, set()))
        for path in [*routes, table_page, *(admin_pages if user.is_staff else [])]:
            leaked = cards_in(_get(client, path)) & hidden
            assert not leaked, f"{path} shows {sorted(leaked)} to {user.username}"
            swept += 1
        state = str(table_state_for(table=table, player=user))
        assert not cards_in(state) & hidden, f"the STATE of {user.username} leaks"
    assert swept > 3 * len(routes)
    logged = "\n".join(record.getMessage() for record in caplog.records)
    assert not cards_in(logged) & (undealt | every_hole)


def test_the_admin_sweep_would_see_a_leaked_deck(monkeypatch):
    """The sweep is not blind: a page that did show the deck is caught by it."""
    table = make_table()
    players = {n: seat_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
    hand = deal_hand(table, DECK)
    undealt, _ = _secrets(hand)
    from poker import admin as poker_admin

    leaky = poker_admin.HandAdmin.history
    monkeypatch.setattr(
        poker_admin.HandAdmin,
        "history",
        lambda self, row: leaky(self, row) + " ".join(Hand.objects.with_deck().get(pk=row.pk).deck),
    )
    client = Client()
    client.force_login(
        make_player("boss", is_staff=True, is_superuser=True),
        backend="django.contrib.auth.backends.ModelBackend",
    )
    found = set()
    for path in _admin_pages():
        found |= cards_in(_get(client, path)) & undealt
    assert found == undealt
    assert players
