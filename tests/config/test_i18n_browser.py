"""Languages in Chromium: the pages' scripts speak the page's language, also
after the player logs in with a saved choice or changes it with the selector."""

import pytest
from django.conf import settings

from accounts.services import profile_set_language
from tests.factories import DEFAULT_PASSWORD, make_funded_player, make_table

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}


def test_the_scripts_speak_the_pages_language_after_login_and_after_a_switch(chromium, asgi_server):
    """The scripts' catalogue (jsi18n/) is kept by the browser: the login page's English one
    was used on the French table of a player who logged in with French saved, which then read
    "Wallet", "Empty", "Fold" and English hand names under a French header."""
    player = make_funded_player("ann")
    profile_set_language(user=player, language="fr")
    table = make_table()
    context = chromium.new_context(viewport=LAPTOP, base_url=asgi_server)
    context.set_default_timeout(30_000)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    try:
        page.goto("/accounts/login/")  # anonymous: English, and its catalogue cached
        assert page.get_attribute("html", "lang") == "en"
        assert page.evaluate("gettext('Empty')") == "Empty"
        page.fill("input[name=username]", "ann")
        page.fill("input[name=password]", DEFAULT_PASSWORD)
        with page.expect_navigation():
            page.locator("main form button[type=submit]").click()
        assert any(c["name"] == settings.SESSION_COOKIE_NAME for c in context.cookies())
        for language, empty in (("fr", "Libre"), ("ja", "空席"), ("en", "Empty"), ("fr", "Libre")):
            if page.get_attribute("html", "lang") != language:
                with page.expect_navigation():
                    page.select_option("#language-switch select", language)
            page.goto(f"/tables/{table.pk}/")
            page.wait_for_selector("#conn.online")
            assert page.get_attribute("html", "lang") == language
            assert page.evaluate("gettext('Empty')") == empty, language
        assert errors == []
    finally:
        context.close()
