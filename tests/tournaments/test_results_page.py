"""A finished Sit & Go's page in a browser: its results, the player's own row marked so that
it stands out from the others, wide and narrow, in every language."""

import pytest

from poker.models import Seat
from tests.factories import deal_hand, make_started_sit_and_go, play_hand_all_in
from tests.poker.table_page import beside_the_browser, horizontal_overflow, screenshot
from tournaments.models import Registration, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1366, "height": 768}
# A row's look as a reader sees it: its first cell's background and edge, its weight.
ROW_LOOK = """(selector) => {
  const cell = document.querySelector(selector + " td");
  const style = getComputedStyle(cell);
  return [style.backgroundColor, style.boxShadow, style.fontWeight].join(" | ");
}"""


def finished_heads_up():
    """A heads-up Sit & Go played out all in through the services, paying 65/35."""
    sng, players = make_started_sit_and_go(
        ("ann", "bob"),
        starting_chips=100,
        payouts=[{"min_entrants": 2, "max_entrants": 2, "percents": [65, 35]}],
    )
    seats = Seat.objects.filter(table=sng.table).select_related("player")
    by_seat = {seat.number: seat.player for seat in seats}
    for _ in range(30):
        play_hand_all_in(deal_hand(sng.table), by_seat)
        sng.refresh_from_db()
        if sng.status == Tournament.Status.FINISHED:
            return sng, players
    pytest.fail("the Sit & Go did not end")


def test_the_results_mark_the_players_own_row(signed_in_page):
    sng, (ann, bob) = beside_the_browser(finished_heads_up)
    mine = Registration.objects.get(tournament=sng, player=ann)
    page = signed_in_page(ann, DESKTOP)
    try:
        page.goto(f"/tournaments/{sng.pk}/")
        for viewport, size in ((DESKTOP, "desktop"), (PHONE, "phone")):
            page.set_viewport_size(viewport)
            for language in ("en", "fr", "ja"):
                page.evaluate(f"document.cookie = 'django_language={language}; path=/'")
                page.goto(f"/tournaments/{sng.pk}/")
                page.wait_for_selector('#sit-and-go[data-status="finished"]')
                own = f'#sng-players tr.mine[data-player="{ann.pk}"]'
                other = f'#sng-players tr[data-player="{bob.pk}"]'
                assert page.text_content(f"{own} .sng-place").strip() == str(mine.place)
                assert page.evaluate(ROW_LOOK, own) != page.evaluate(ROW_LOOK, other)
                assert "rgba(0, 0, 0, 0)" not in page.evaluate(ROW_LOOK, own)
                screenshot(page, f"sit-and-go-results-{size}-{language}")
                assert horizontal_overflow(page) <= 0, (size, language)
        assert page.errors == []
    finally:
        page.context.close()
