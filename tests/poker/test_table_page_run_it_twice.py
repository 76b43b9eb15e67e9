"""Run it twice on the table page: the asked player gets a Yes/No prompt (keyboard first), and
when both agree the two boards are shown (docs/protocol.md "Run it twice")."""

import pytest

from poker import services
from poker.models import Seat
from tests.factories import deal_hand, make_seated_player, make_table
from tests.poker.table_page import (
    PHONE,
    SMALL_LAPTOP,
    beside_the_browser,
    close_and_settle,
    horizontal_overflow,
    open_table,
    opponent_acts,
    screenshot,
)
from tests.sweep import DECK

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("size", [SMALL_LAPTOP, PHONE], ids=["1366x768", "390x844"])
def test_both_agree_and_both_boards_are_shown(signed_in_page, size):
    def short_stacks_dealt():
        table = make_table(
            run_it_twice=True,
            next_hand_delay_seconds=3600,
            min_buy_in_big_blinds=3,
            max_buy_in_big_blinds=3,
        )
        players = {n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
        Seat.objects.filter(table=table, number=2).update(connected=True)  # ben plays elsewhere
        return table, players, deal_hand(table, DECK)

    table, players, hand = beside_the_browser(short_stacks_dealt)
    page = signed_in_page(players[1], size)
    try:
        open_table(page, table)
        page.wait_for_function("window.tablePage.state().hand !== null")
        opponent_acts(hand, players, "all_in")
        opponent_acts(hand, players, "call")
        page.wait_for_selector("#runs-ask:not([hidden])")
        assert page.evaluate("document.activeElement.id") == "runs-yes"
        assert horizontal_overflow(page) <= 0
        screenshot(page, f"run-it-twice-ask-{size['width']}")
        page.keyboard.press("Enter")  # the focused Yes
        page.wait_for_selector("#runs-ask", state="hidden")
        beside_the_browser(services.table_runs_answer, table=table, player=players[2], agree=True)
        page.wait_for_function("document.querySelectorAll('#board-two .card').length === 5")
        assert page.locator("#board .card").count() == 5
        assert horizontal_overflow(page) <= 0
        screenshot(page, f"run-it-twice-boards-{size['width']}")
        # The last hand's panel shows both runs once the runout is over.
        page.wait_for_function(
            "document.querySelectorAll('#result-body .result-board[aria-label]').length === 2"
        )
        screenshot(page, f"run-it-twice-result-{size['width']}")
        assert page.errors == []
    finally:
        close_and_settle(table, [page])
