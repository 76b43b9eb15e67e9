"""A Sit & Go's table page in a browser: the player's place by chips in the tournament bar, and
the break's banner counting down from the level's end until play resumes."""

import pytest
from django.utils import timezone

from poker.models import Seat
from tests.factories import make_started_sit_and_go
from tests.poker.table_page import beside_the_browser, horizontal_overflow, screenshot
from tournaments.services import tournament_level_up

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}
BANNER = "#break-banner:not([hidden])"
# The banner's countdown, read twice a second apart by the page's own clock.
TICKED = "(first) => document.getElementById('break-banner').textContent !== first"


def test_the_bar_shows_the_place_and_a_break_counts_down_until_play_resumes(signed_in_page):
    sng, players = make_started_sit_and_go(
        ("ann", "bob", "cyd", "dan", "eve", "fay"), breaks=[{"after_level": 1, "minutes": 2}]
    )
    # Two of the six have more chips than Ann.
    for player, chips in zip(players, (1_500, 3_000, 2_000, 1_000, 1_200, 800), strict=True):
        Seat.objects.filter(table=sng.table, player=player).update(chips=chips)
    ann = players[0]
    page = signed_in_page(ann, DESKTOP)
    try:
        page.goto(f"/tables/{sng.table_id}/")
        page.wait_for_selector("#conn.online")
        page.wait_for_selector("#tournament-bar:not([hidden])")
        assert page.text_content("#tournament-place") == "3rd of 6"
        assert not page.locator("#break-banner").is_visible()
        # The level ends and its break starts: the page hears it and counts down.
        level_up = {"tournament_id": sng.pk, "level": 2}
        assert beside_the_browser(tournament_level_up, **level_up, now=timezone.now()) == "break"
        page.wait_for_selector(BANNER)
        first = page.text_content("#break-banner")
        assert first.startswith("Break: play resumes in ") and first[-4:] in ("2:00", "1:59")
        page.wait_for_function(TICKED, arg=first)
        assert not page.locator("#table-message").is_visible()
        for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
            page.set_viewport_size(viewport)
            for language in ("en", "fr", "ja"):
                page.evaluate(f"document.cookie = 'django_language={language}; path=/'")
                page.goto(f"/tables/{sng.table_id}/")
                page.wait_for_selector(BANNER)
                page.wait_for_selector("#tournament-bar:not([hidden])")
                place = page.text_content("#tournament-place")
                assert place == {"en": "3rd of 6", "fr": "3e sur 6", "ja": "6人中3位"}[language]
                screenshot(page, f"sit-and-go-table-break-{size}-{language}")
                assert horizontal_overflow(page) <= 0, (size, language)
        assert "休憩" in page.text_content("#break-banner")
        # The break's end: the next level starts, the banner goes.
        sng.refresh_from_db()
        assert beside_the_browser(tournament_level_up, **level_up, now=sng.next_level_at) == "level"
        page.wait_for_selector("#break-banner", state="hidden")
        assert page.locator("#table-message").is_visible()
        assert page.errors == []
    finally:
        page.context.close()


# The bar at fixed limit names the level's bets (its big blind and twice that), as the hand
# page does, in every language; level I is 10/20 (bets 20/40), level II 15/30 (bets 30/60).
FIXED_LIMIT_BAR = {
    "en": ("Level I: bets 20/40", "bets 30/60"),
    "fr": ("Niveau I : mises 20/40", "mises 30/60"),
    "ja": ("レベル I\uff1aベット 20/40", "ベット 30/60"),  # a full-width colon
}


def test_the_bar_names_the_bets_at_a_fixed_limit_sit_and_go(signed_in_page):
    sng, players = make_started_sit_and_go(("ann", "bob"), structure="limit")
    page = signed_in_page(players[0], DESKTOP)
    try:
        page.goto(f"/tables/{sng.table_id}/")
        for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
            page.set_viewport_size(viewport)
            for language, (level, following) in FIXED_LIMIT_BAR.items():
                page.evaluate(f"document.cookie = 'django_language={language}; path=/'")
                page.goto(f"/tables/{sng.table_id}/")
                page.wait_for_selector("#tournament-bar:not([hidden])")
                page.wait_for_function(
                    "() => document.getElementById('tournament-next').textContent !== ''"
                )
                assert page.text_content("#tournament-level") == level
                assert following in page.text_content("#tournament-next")
                screenshot(page, f"sit-and-go-table-fixed-limit-{size}-{language}")
                assert horizontal_overflow(page) <= 0, (size, language)
        assert page.errors == []
    finally:
        page.context.close()
