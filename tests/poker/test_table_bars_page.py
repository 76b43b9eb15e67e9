"""Bars in Chromium: a player staff removed from a table sees why on the table
page and in the lobby, and a try to sit there is answered with the bar's end; at 1366x768 and
390x844 with no sideways scroll, in English and in French. TABLE_PAGE_SCREENSHOTS=<dir> keeps
screenshots."""

import pytest

from accounts.services import profile_set_language
from poker.models import Seat
from poker.services.staff import staff_seat_remove
from tests.factories import make_seated_player, make_staff, make_table
from tests.poker.table_page import horizontal_overflow, open_table, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}

# What the player reads, by language: the table page's notice, the refusal and the lobby's row.
READS = {
    "en": (
        "Staff removed you from this table",
        "may not sit down",
        "Removed by staff: no seat until",
    ),
    "fr": (
        "L\u2019équipe de la salle vous a retiré de cette table",
        "ne pouvez ni vous y asseoir",
        "Retiré par l\u2019équipe : pas de place avant le",
    ),
}


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_removed_player_is_told_why_they_cannot_sit(signed_in_page, viewport, language):
    table = make_table(next_hand_delay_seconds=3600)
    cy = make_seated_player(table, "cy", 3)
    staff_seat_remove(
        seat=Seat.objects.get(player=cy), staff=make_staff("tm", "table managers"), reason="abuse"
    )
    profile_set_language(user=cy, language=language)
    notice_says, refusal_says, lobby_says = READS[language]
    kind = ("phone" if viewport is PHONE else "laptop") + f"-{language}"
    page = signed_in_page(cy, viewport)
    try:
        open_table(page, table)
        notice = page.inner_text("#barred")
        assert page.get_attribute("html", "lang") == language
        assert notice_says in notice and "UTC" in notice
        page.click("#seat-3 .sit-here")
        page.fill("#sit-buy-in", f"{table.max_buy_in / 100:.2f}")
        page.click("#sit-confirm")
        toast = page.wait_for_selector(".toast.error")
        assert refusal_says in toast.inner_text()
        assert not Seat.objects.filter(player=cy).exists()
        assert horizontal_overflow(page) <= 0
        screenshot(page, f"barred-table-{kind}")
        page.goto("/")
        row = page.locator(f'tr[data-table="{table.pk}"]')
        assert lobby_says in row.inner_text()
        screenshot(page, f"barred-lobby-{kind}")
        assert page.errors == []
    finally:
        page.context.close()


def test_staff_see_the_bar_and_the_players_state_on_the_player_page(signed_in_page):
    """The admin's player page with the bars and the responsible-gaming state, as staff see
    it."""
    from responsible.services import deposit_limit_set, exclusion_start

    table = make_table(next_hand_delay_seconds=3600)
    cy = make_seated_player(table, "cy", 3)
    manager = make_staff("tm", "table managers")
    staff_seat_remove(seat=Seat.objects.get(player=cy), staff=manager, reason="abuse in chat")
    deposit_limit_set(player=cy, period="week", amount=50_000)
    exclusion_start(player=cy, kind="time_out", length=3)
    page = signed_in_page(manager, LAPTOP)
    try:
        page.goto(f"/admin/staff/player/{cy.pk}/change/")
        assert "On a time-out" in page.inner_text("#player-exclusion")
        assert table.name in page.inner_text("#player-bars")
        screenshot(page, "admin-player-page-laptop")
        assert page.errors == []
    finally:
        page.context.close()
