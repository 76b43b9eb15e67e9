"""Every player-facing page in Chromium, in each language, with no script error and no error in
the console: a French page once wrote its chart's coordinates with a decimal comma ("76,7"),
which the browser refused. Set I18N_SCREENSHOTS=<dir> to keep screenshots."""

import os
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client

from accounts.services import profile_set_language
from notes.services import note_set
from poker.guides import GUIDES
from poker.models import Hand
from showdown.services import round_deal, round_decide
from tests.factories import (
    call_down,
    deal_hand,
    make_seated_player,
    make_showdown_table,
    make_table,
)
from tests.poker.table_page import beside_the_browser

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}


def player_with_history():
    """ann, with hands won and lost at a poker table and a settled Showdown round: her
    results have a chart, her hands a page, her deals a fairness check."""
    table = make_table(next_hand_delay_seconds=3600)
    players = {
        n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"), (4, "cy"))
    }
    for _ in range(3):
        call_down(deal_hand(table), players)
    ann = players[1]
    # A tagged note on ben: drawn on his seat, on the hand's page and on "My notes".
    note_set(author=ann, player_id=players[2].pk, text="tight", colour="teal")
    showdown = make_showdown_table()
    round_ = round_deal(player=ann, table=showdown, ante=500, idempotency_key="pages-deal-1")
    round_decide(player=ann, round_id=round_.pk, decision="call", idempotency_key="pages-call-1")
    live = make_showdown_table(seats=7)
    return ann, table, showdown, live, round_


def pages_of(table, showdown, live, round_, hand) -> list[str]:
    return [
        "/",
        f"/tables/{table.pk}/",
        "/help/",
        *(f"/help/{slug}/" for slug in GUIDES),
        "/accounts/profile/",
        "/cashier/",
        "/hands/",
        f"/hands/{hand.pk}/",
        "/hands/results/",
        "/notes/",
        f"/showdown/{showdown.pk}/",
        f"/showdown/live/{live.pk}/",
        "/showdown/history/",
        "/fairness/",
        f"/fairness/hand/{hand.pk}/",
        f"/fairness/round/{round_.pk}/",
    ]


def test_every_page_in_every_language_runs_without_an_error(chromium, asgi_server):
    ann, table, showdown, live, round_ = beside_the_browser(player_with_history)
    hand = Hand.objects.filter(table=table).order_by("pk").first()
    client = Client()
    client.force_login(ann, backend="django.contrib.auth.backends.ModelBackend")
    session = client.cookies[settings.SESSION_COOKIE_NAME].value
    folder = os.environ.get("I18N_SCREENSHOTS")
    failures = []
    for language, _name in settings.LANGUAGES:
        profile_set_language(user=ann, language=language)
        context = chromium.new_context(viewport=LAPTOP, base_url=asgi_server)
        context.set_default_timeout(30_000)
        context.add_cookies(
            [{"name": settings.SESSION_COOKIE_NAME, "value": session, "url": asgi_server}]
        )
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error, errors=errors: errors.append(f"script: {error}"))
        page.on(
            "console",
            lambda message, errors=errors: (
                errors.append(f"console: {message.text}") if message.type == "error" else None
            ),
        )
        try:
            for url in pages_of(table, showdown, live, round_, hand):
                errors.clear()
                response = page.goto(url, wait_until="load")
                assert response is not None and response.status == 200, (language, url)
                assert page.get_attribute("html", "lang") == language, url
                if "/tables/" in url or "/live/" in url:
                    page.wait_for_timeout(200)  # the socket's first frames drawn
                if folder:
                    Path(folder).mkdir(parents=True, exist_ok=True)
                    name = url.strip("/").replace("/", "-") or "lobby"
                    page.screenshot(path=str(Path(folder) / f"{language}-{name}.png"))
                failures += [(language, url, error) for error in errors]
        finally:
            context.close()
    assert failures == []


def test_the_results_chart_is_drawn_where_its_numbers_say_in_french(chromium, asgi_server):
    """The $0 line of "My results" at its place (not at the top) when the page is French."""
    ann, *_ = beside_the_browser(player_with_history)
    profile_set_language(user=ann, language="fr")
    client = Client()
    client.force_login(ann, backend="django.contrib.auth.backends.ModelBackend")
    context = chromium.new_context(viewport=LAPTOP, base_url=asgi_server)
    context.add_cookies(
        [
            {
                "name": settings.SESSION_COOKIE_NAME,
                "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                "url": asgi_server,
            }
        ]
    )
    try:
        page = context.new_page()
        page.goto("/hands/results/")
        assert page.get_attribute("html", "lang") == "fr"
        written = page.get_attribute("#profit-graph line.zero", "y1")
        assert "," not in written, written
        drawn = page.evaluate("document.querySelector('#profit-graph line.zero').y1.baseVal.value")
        assert drawn == pytest.approx(float(written)), written
    finally:
        context.close()
