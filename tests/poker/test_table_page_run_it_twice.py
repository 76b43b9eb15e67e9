"""Run it twice on the table page: the asked player gets a Yes/No prompt (keyboard first), and
when both agree the runout deals the first run on the board's row, then the second on the row
under it, each row named, and only then says who won each run's half of the pot (docs/rules.md
"Run it twice", docs/protocol.md "Run it twice").

The page runs on `asgi_server_quick_runout`: the runout's pace is a tenth of the room's, and
what the felt showed at each step is recorded in the page as it happens (a MutationObserver),
so the test checks the order of the steps without racing them."""

import pytest

from poker import services
from poker.models import Hand, Seat
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

# What the felt shows after each change of it: [first row's cards, second row's (-1 while
# hidden), the runs' winners shown, rows named], each different from the one before.
RECORD_FELT = """(() => {
  window.feltSeen = [];
  const look = () => {
    const two = document.getElementById("board-two");
    const seen = [
      document.querySelectorAll("#board .card").length,
      two.hidden ? -1 : two.querySelectorAll(".card").length,
      [1, 2].every((run) => !document.getElementById(`run-winners-${run}`).hidden),
      document.querySelectorAll("#felt .run-label").length,
    ];
    const last = window.feltSeen[window.feltSeen.length - 1];
    if (!last || String(last) !== String(seen)) window.feltSeen.push(seen);
  };
  document.addEventListener("DOMContentLoaded", () => new MutationObserver(look).observe(
    document.getElementById("felt"),
    { childList: true, subtree: true, attributes: true, attributeFilter: ["hidden"] },
  ));
})();"""
# All in preflop: the first run's flop, turn and river on the first row, then the second run's
# on the second, and the winners once both are out.
RUNOUT_STEPS = [
    [0, -1, False, 1],
    [3, -1, False, 1],
    [4, -1, False, 1],
    [5, -1, False, 1],
    [5, 3, False, 2],
    [5, 4, False, 2],
    [5, 5, False, 2],
    [5, 5, True, 2],
]
# tests.sweep's deck with the second run's turn (Qs) and an undealt Ac swapped: ann (seat 1,
# 2c 5h 9c Qh) takes the first run with a pair of twos (4s 6h 8d Js 2d), ben (3s 7d Ts Ad) the
# second with aces and sevens (5s 7h 9d Ac 3d).
SPLIT_DECK = [{"Qs": "Ac", "Ac": "Qs"}.get(card, card) for card in DECK]
LABELS = {"en": ["Run 1", "Run 2"], "fr": ["Tirage 1", "Tirage 2"], "ja": ["1回目", "2回目"]}
RUNS_OVER = "!document.getElementById('run-winners-2').hidden"


def run_winners(hand: Hand) -> list[list[int]]:
    """The seats that won part of each run, from the hand's own result."""
    hand.refresh_from_db()
    runs = [[], []]
    for pot in hand.result["pots"]:
        for run, half in enumerate(pot.get("runs", [])):
            for share in half["high"] + half["low"]:
                if share["amount"] > 0 and share["seat"] not in runs[run]:
                    runs[run].append(share["seat"])
    return runs


@pytest.mark.parametrize("size", [SMALL_LAPTOP, PHONE], ids=["1366x768", "390x844"])
def test_both_agree_and_both_runs_are_dealt_one_after_the_other(
    signed_in_page, asgi_server_quick_runout, size
):
    def short_stacks_dealt():
        table = make_table(
            run_it_twice=True,
            next_hand_delay_seconds=3600,
            min_buy_in_big_blinds=3,
            max_buy_in_big_blinds=3,
        )
        players = {n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
        Seat.objects.filter(table=table, number=2).update(connected=True)  # ben plays elsewhere
        return table, players, deal_hand(table, SPLIT_DECK)

    table, players, hand = beside_the_browser(short_stacks_dealt)
    page = signed_in_page(players[1], size, base_url=asgi_server_quick_runout)
    page.add_init_script(RECORD_FELT)
    width = size["width"]
    try:
        open_table(page, table)
        page.wait_for_function("window.tablePage.state().hand !== null")
        opponent_acts(hand, players, "all_in")
        opponent_acts(hand, players, "call")
        page.wait_for_selector("#runs-ask:not([hidden])")
        assert page.evaluate("document.activeElement.id") == "runs-yes"
        assert horizontal_overflow(page) <= 0
        screenshot(page, f"run-it-twice-ask-{width}")
        page.keyboard.press("Enter")  # the focused Yes
        page.wait_for_selector("#runs-ask", state="hidden")
        beside_the_browser(services.table_runs_answer, table=table, player=players[2], agree=True)
        page.wait_for_function(RUNS_OVER)

        seen = page.evaluate("window.feltSeen")
        named = next(i for i, step in enumerate(seen) if step[3])
        assert seen[named:] == RUNOUT_STEPS, seen
        assert page.locator("#board .run-label").inner_text() == "Run 1"
        assert page.locator("#board-two .run-label").inner_text() == "Run 2"
        # Under each row, the seats that won that run's half of the pot, by name and amount.
        winners = run_winners(hand)
        assert winners == [[1], [2]]
        names = {1: "ann", 2: "ben"}
        for run in (1, 2):
            line = page.locator(f"#run-winners-{run}")
            assert line.get_attribute("data-seats") == " ".join(map(str, winners[run - 1]))
            text = line.inner_text()
            assert all(names[seat] in text for seat in winners[run - 1]), text
            assert "$" in text
        # The last hand's panel: each run's board with its own lines.
        page.wait_for_function(
            "document.querySelectorAll('#result-body .result-board[aria-label]').length === 2"
        )
        assert page.locator("#result-body .run-lines").count() == 2
        assert horizontal_overflow(page) <= 0
        screenshot(page, f"run-it-twice-runs-{width}-en")

        # Between hands the two runs stay, named in the page's language.
        for language in ("fr", "ja"):
            page.context.add_cookies(
                [{"name": "django_language", "value": language, "url": page.url}]
            )
            page.reload()
            page.wait_for_selector("#conn.online")
            page.wait_for_function(RUNS_OVER)
            labels = page.locator("#felt .run-label").all_inner_texts()
            assert labels == LABELS[language]
            assert horizontal_overflow(page) <= 0
            screenshot(page, f"run-it-twice-runs-{width}-{language}")
        assert page.errors == []
    finally:
        close_and_settle(table, [page], elsewhere=(2,))
