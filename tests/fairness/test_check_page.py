"""The deal checker page in Chromium: the browser's own SubtleCrypto check agrees with the
room's on a real round, and catches a deck changed after the deal; a running round shows
its commitment only, and another player's round is not found."""

import pytest
from django.conf import settings

from fairness.models import Commitment
from showdown.models import ShowdownRound
from showdown.services import round_deal, round_decide
from tests.factories import make_funded_player, make_showdown_table

pytestmark = pytest.mark.django_db(transaction=True)

PHONE = {"width": 390, "height": 844}


def client_checks(page) -> dict[str, str]:
    page.wait_for_selector("#client-checks:not([data-state='pending'])")
    return {
        item.get_attribute("data-check"): item.get_attribute("class")
        for item in page.query_selector_all("#client-checks li")
    }


def test_the_browser_checks_a_round_itself(signed_in_page):
    player = make_funded_player("checker", cents=100_000)
    table = make_showdown_table()
    round_ = round_deal(player=player, table=table, ante=500, idempotency_key="page-1")
    page = signed_in_page(player, PHONE)
    try:
        page.goto(f"/fairness/round/{round_.pk}/")
        commitment = Commitment.objects.get(kind="round", ref_id=round_.pk)
        assert page.text_content("[data-commitment]") == commitment.commitment
        assert page.query_selector("[data-running]") is not None
        assert commitment.salt not in page.content()
        assert commitment.server_seed not in page.content()

        round_decide(player=player, round_id=round_.pk, decision="call", idempotency_key="c-1")
        page.goto(f"/fairness/round/{round_.pk}/")
        assert client_checks(page) == {
            "deck": "ok",
            "commitment": "ok",
            "seeds": "ok",
            "dealt": "ok",
        }
        assert page.get_attribute("#client-checks", "data-state") == "pass"
        assert page.get_attribute("[data-server-checks]", "data-ok") == "true"
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= PHONE["width"], f"the page is {width} px wide on a phone"

        # Someone changes two undealt cards after the round: both checks see it.
        stored = ShowdownRound.objects.get(pk=round_.pk)
        deck = list(stored.deck)
        deck[50], deck[51] = deck[51], deck[50]
        ShowdownRound.objects.filter(pk=round_.pk).update(deck=deck)
        page.goto(f"/fairness/round/{round_.pk}/")
        checks = client_checks(page)
        assert checks["commitment"] == "warn" and checks["seeds"] == "warn"
        assert checks["deck"] == "ok" and checks["dealt"] == "ok"
        assert page.get_attribute("#client-checks", "data-state") == "fail"
        assert page.get_attribute("[data-server-checks]", "data-ok") == "false"
        assert page.errors == []
    finally:
        page.context.close()


def test_another_players_round_is_not_found(signed_in_page):
    owner = make_funded_player("owner", cents=100_000)
    round_ = round_deal(
        player=owner, table=make_showdown_table(), ante=500, idempotency_key="page-2"
    )
    round_decide(player=owner, round_id=round_.pk, decision="fold", idempotency_key="f-2")
    page = signed_in_page(make_funded_player("snoop", cents=0), PHONE)
    try:
        response = page.goto(f"/fairness/round/{round_.pk}/")
        assert response.status == 404
    finally:
        page.context.close()


def test_the_checks_read_in_the_players_language_and_link_to_the_help_page(
    signed_in_page, asgi_server
):
    """Both checks name what they check in words ("Paquet", not "deck:"), and the page points to
    the room's own help page, not to a file of the room's source."""
    player = make_funded_player("lecteur", cents=100_000)
    round_ = round_deal(
        player=player, table=make_showdown_table(), ante=500, idempotency_key="page-3"
    )
    round_decide(player=player, round_id=round_.pk, decision="call", idempotency_key="c-3")
    page = signed_in_page(player, PHONE)
    page.context.add_cookies(
        [{"name": settings.LANGUAGE_COOKIE_NAME, "value": "fr", "url": asgi_server}]
    )
    try:
        page.goto(f"/fairness/round/{round_.pk}/")
        client_checks(page)
        text = page.inner_text("#deal-check")
        for code in ("deck:", "commitment:", "seeds:", "dealt:", "server_seed", "docs/"):
            assert code not in text, code
        labels = {
            "deck": "Paquet",
            "commitment": "Engagement",
            "seeds": "Graines",
            "dealt": "Cartes distribuées",
        }
        for name, label in labels.items():
            for checks in ("[data-server-checks]", "#client-checks"):
                shown = page.inner_text(f'{checks} li[data-check="{name}"]')
                assert f" {label}:" in shown, (checks, shown)
        page.click("[data-fairness-help]")
        page.wait_for_selector("#fairness")
        assert page.url.endswith("/help/#fairness")
        assert page.errors == []
    finally:
        page.context.close()
