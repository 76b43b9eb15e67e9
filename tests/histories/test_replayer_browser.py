"""The replayer in Debian's Chromium against a real daphne: a hand stepped through street by
street and action by action, with buttons and keys, to its showdown; the stacks it ends on are
the hand's; a phone has no sideways scroll. HISTORY_SCREENSHOTS=<dir> keeps screenshots."""

import os
import re
from pathlib import Path

import pytest

from tests.factories import call_down, deal_hand, make_seated_player
from tests.histories.conftest import game_table
from tests.poker.test_admin import DECK

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


def screenshot(page, name: str) -> None:
    folder = os.environ.get("HISTORY_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


def board_size(page) -> int:
    return page.locator("#replay-board .card").count()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_player_steps_through_their_hand_to_the_showdown(signed_in_page, viewport):
    table = game_table("omaha8-pot-limit")
    players = {n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
    hand = call_down(deal_hand(table, DECK), players)
    steps = hand.events.count()
    page = signed_in_page(players[2], viewport)
    try:
        page.goto(f"/hands/{hand.pk}/")
        page.wait_for_selector("#replay-seats .replay-seat")
        assert page.inner_text("#replay-position").endswith(f"1 of {steps}")
        assert board_size(page) == 0
        page.click("#replay-street-next")  # to the flop
        assert board_size(page) == 3 and "flop" in page.inner_text("#replay-step")
        # The flop's cards as every other screen writes them ("10♦"), not as codes ("Td").
        flop = page.inner_text("#replay-step")
        assert re.search("[♠♥♦♣]", flop) and not re.search(r"\b[2-9TJQKA][shdc]\b", flop), flop
        page.keyboard.press("PageDown")  # the turn
        assert board_size(page) == 4
        page.keyboard.press("ArrowLeft")
        assert board_size(page) == 3
        page.keyboard.press("ArrowRight")
        assert board_size(page) == 4
        page.keyboard.press("End")
        assert page.inner_text("#replay-position").endswith(f"{steps} of {steps}")
        assert "over" in page.inner_text("#replay-step")
        finals = {e["seat"]: e["final_stack"] for e in hand.result["seats"]}
        for seat, stack in finals.items():
            shown = page.inner_text(f'.replay-seat[data-seat="{seat}"] .replay-stack')
            assert shown == f"${stack // 100:,}.{stack % 100:02d}", (seat, shown)
        # Ben's own cards face up from the deal; Ann's only if she showed them.
        assert page.locator('.replay-seat[data-seat="2"] .card[data-card]').count() == 4
        page.keyboard.press("Home")
        assert page.inner_text("#replay-position").endswith(f"1 of {steps}")
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= viewport["width"], f"sideways scroll: {width}px"
        screenshot(page, f"hand-{'phone' if viewport is PHONE else 'laptop'}")
        page.keyboard.press("End")
        screenshot(page, f"hand-end-{'phone' if viewport is PHONE else 'laptop'}")
        page.goto("/hands/")
        assert page.locator(f'tr[data-hand="{hand.pk}"]').count() == 1
        screenshot(page, f"my-hands-{'phone' if viewport is PHONE else 'laptop'}")
        assert page.errors == []
    finally:
        page.context.close()
