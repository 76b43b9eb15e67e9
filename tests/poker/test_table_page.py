"""The table page in a real browser: Playwright drives Debian's Chromium against daphne, the
Redis channel layer and a real Celery worker, on the test database.
"""

import os
import time
from pathlib import Path

import pytest

from cashier.selectors import table_stack_balance, wallet_balance
from poker.models import Seat, Table
from tests.factories import make_funded_player, make_table

FUNDS = 100_000  # $1,000 in each wallet
BUY_IN = 10_000  # $100, the table's maximum
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 860}
SCREENSHOTS = os.environ.get("TABLE_PAGE_SCREENSHOTS")  # a folder, to look at the pages

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]

# Clickable only when shown and usable; Playwright waits for that itself.
CHECK_OR_CALL = (
    "#actions:not([hidden]) #act-check:not([hidden]):not([disabled]), "
    "#actions:not([hidden]) #act-call:not([hidden]):not([disabled])"
)
HAND_STARTED = """() => {
  const s = window.tablePage && window.tablePage.state();
  return Boolean(s && s.hand && s.hand.id);
}"""
HAND_OVER = """(handId) => {
  const s = window.tablePage && window.tablePage.state();
  return Boolean(s && s.last_result && s.last_result.hand_id === handId);
}"""
NEXT_DECISION = """([handId, turn]) => {
  const s = window.tablePage && window.tablePage.state();
  if (!s) return false;
  if (s.last_result && s.last_result.hand_id === handId) return true;
  return Boolean(s.hand && s.hand.id === handId && s.hand.to_act && s.hand.turn > turn);
}"""


def open_table(page, table) -> None:
    page.goto(f"/tables/{table.pk}/")
    page.wait_for_selector("#conn.online")


def sit(page, seat: int, buy_in: int) -> None:
    page.click(f"#seat-{seat} .sit-here")
    page.fill("#sit-buy-in", f"{buy_in / 100:.2f}")
    page.click("#sit-confirm")
    page.wait_for_selector(f"#seat-{seat}.me")


def one_hand_only(table) -> None:
    """Keep the next hand from starting while the test looks at this one's result."""
    Table.objects.filter(pk=table.pk).update(next_hand_delay_seconds=600)


def close_and_settle(table, pages) -> None:
    """Close the pages, then wait until the server has seen every socket go, so nothing is
    still writing to the table when the test database is flushed."""
    for page in pages:
        page.context.close()
    deadline = time.monotonic() + 10
    while Seat.objects.filter(table=table, connected=True).exists():
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)


def horizontal_overflow(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def screenshot(page, name: str) -> None:
    if SCREENSHOTS:
        page.screenshot(path=str(Path(SCREENSHOTS) / f"{name}.png"), full_page=True)


def test_two_players_sit_and_check_a_hand_down_to_showdown(signed_in_page, celery_worker_process):
    table = make_table(next_hand_delay_seconds=1.0)
    alice = make_funded_player("alice", cents=FUNDS)
    bob = make_funded_player("bob", cents=FUNDS)
    alice_page = signed_in_page(alice, LAPTOP)
    bob_page = signed_in_page(bob, PHONE)
    pages = {1: alice_page, 2: bob_page}
    try:
        for page in pages.values():
            open_table(page, table)
        sit(alice_page, 1, BUY_IN)
        sit(bob_page, 2, BUY_IN)

        # The hand starts by itself; each decision is made by clicking on the page whose turn
        # it is, checking when possible and calling otherwise, until the hand is over.
        alice_page.wait_for_function(HAND_STARTED)
        one_hand_only(table)
        hand_id = alice_page.evaluate("window.tablePage.state().hand.id")
        turn = 0
        for _ in range(30):
            alice_page.wait_for_function(NEXT_DECISION, arg=[hand_id, turn])
            state = alice_page.evaluate("window.tablePage.state()")
            hand = state["hand"]
            if state["last_result"] and state["last_result"]["hand_id"] == hand_id:
                break
            turn = hand["turn"]
            actor = pages[hand["to_act"]]
            if hand["to_act"] == 2 and turn <= 2:
                screenshot(actor, "phone-to-act")
            actor.locator(CHECK_OR_CALL).first.click()
        else:
            pytest.fail("the hand did not end within 30 decisions")

        for page in pages.values():
            page.wait_for_function(HAND_OVER, arg=hand_id)
            result = page.locator("#result")
            result.wait_for(state="visible")
            text = result.inner_text()
            assert " with " in text  # the winning hand is named
            assert "wins" in text or "split" in text
        screenshot(alice_page, "laptop-result")
        screenshot(bob_page, "phone-result")

        result = alice_page.evaluate("window.tablePage.state().last_result")
        assert len(result["showdown"]) == 2
        rake = result["rake"]
        finals = {entry["seat"]: entry["final_stack"] for entry in result["seats"]}
        # The cashier agrees with the page: stacks as shown, nothing created or lost.
        assert table_stack_balance(player=alice, table=table) == finals[1]
        assert table_stack_balance(player=bob, table=table) == finals[2]
        money = sum(
            wallet_balance(player=p) + table_stack_balance(player=p, table=table)
            for p in (alice, bob)
        )
        assert money + rake == 2 * FUNDS
        assert wallet_balance(player=alice) == FUNDS - BUY_IN
        stacks = alice_page.locator(".seat-stack")
        assert stacks.count() == 2
        assert horizontal_overflow(bob_page) <= 0
        assert alice_page.errors == [] and bob_page.errors == []
    finally:
        close_and_settle(table, pages.values())


def test_the_table_page_fits_a_phone_screen(signed_in_page):
    table = make_table(max_seats=6)
    carol = make_funded_player("carol", cents=FUNDS)
    page = signed_in_page(carol, PHONE)
    try:
        open_table(page, table)
        assert page.locator(".seat .sit-here").count() == 6
        assert horizontal_overflow(page) <= 0
        sit(page, 3, BUY_IN)
        page.wait_for_selector("#seat-controls:not([hidden])")
        assert horizontal_overflow(page) <= 0
        screenshot(page, "phone-seated")
        assert page.errors == []
    finally:
        close_and_settle(table, [page])


def test_a_pot_sized_raise_takes_the_blinds_and_a_second_tab_supersedes_the_first(
    signed_in_page, celery_worker_process
):
    table = make_table(next_hand_delay_seconds=1.0)
    alice = make_funded_player("alice", cents=FUNDS)
    bob = make_funded_player("bob", cents=FUNDS)
    pages = {
        1: signed_in_page(alice, LAPTOP),
        2: signed_in_page(bob, LAPTOP),
    }
    players = {1: alice, 2: bob}
    try:
        for page in pages.values():
            open_table(page, table)
        sit(pages[1], 1, BUY_IN)
        sit(pages[2], 2, BUY_IN)
        pages[1].wait_for_function(HAND_STARTED)
        one_hand_only(table)
        hand = pages[1].evaluate("window.tablePage.state().hand")
        raiser_seat = hand["to_act"]  # heads-up: the button, who posted the small blind
        folder_seat = 3 - raiser_seat
        raiser, folder = pages[raiser_seat], pages[folder_seat]

        # Pot limit: after blinds of 50 and 100 the pot-sized raise is to 300 (RULES.md 3).
        raiser.click("#actions:not([hidden]) #preset-pot")
        legal = raiser.evaluate("window.tablePage.state().hand.legal_actions")
        assert legal["raise"]["max"] == 300
        assert raiser.input_value("#raise-amount") == "3.00"
        assert raiser.get_attribute("#raise-slider", "max") == "300"
        assert raiser.inner_text("#act-raise") == "Raise to $3"
        raiser.click("#act-raise")
        folder.click("#actions:not([hidden]) #act-fold:not([disabled])")

        for page in pages.values():
            page.wait_for_function(HAND_OVER, arg=hand["id"])
            assert "uncontested" in page.locator("#result").inner_text()
        assert table_stack_balance(player=players[raiser_seat], table=table) == BUY_IN + 100
        assert table_stack_balance(player=players[folder_seat], table=table) == BUY_IN - 100

        # The same player opening the table again: the old page stops and says why.
        newer = pages[1].context.new_page()  # closed with its context
        open_table(newer, table)
        pages[1].wait_for_selector("#notice:not([hidden])")
        assert "another tab" in pages[1].inner_text("#notice")
        assert pages[1].inner_text("#conn") == "Not connected"
        assert newer.locator("#seat-1.me").count() == 1
    finally:
        close_and_settle(table, pages.values())


def test_the_countdown_runs_out_then_sit_in_top_up_and_leave(signed_in_page, celery_worker_process):
    # Four seconds to act, the last three shown (short settings; RULES.md 6 says 30 and 20).
    table = make_table(next_hand_delay_seconds=1.0, action_seconds=4, countdown_seconds=3)
    alice = make_funded_player("alice", cents=FUNDS)
    bob = make_funded_player("bob", cents=FUNDS)
    pages = {
        1: signed_in_page(alice, LAPTOP),
        2: signed_in_page(bob, PHONE),
    }
    players = {1: alice, 2: bob}
    try:
        for page in pages.values():
            open_table(page, table)
        sit(pages[1], 1, BUY_IN)
        sit(pages[2], 2, BUY_IN)
        pages[1].wait_for_function(HAND_STARTED)
        one_hand_only(table)
        hand = pages[1].evaluate("window.tablePage.state().hand")
        slow_seat = hand["to_act"]  # the small blind, facing the big blind: no check
        slow, other = pages[slow_seat], pages[3 - slow_seat]

        # Both pages count the slow player down; nobody clicks; the server folds for them.
        for page in (slow, other):
            timer = page.locator(f"#seat-{slow_seat} .timer:not([hidden])")
            timer.wait_for()
            assert timer.inner_text().rstrip("s").isdigit()
        for page in pages.values():
            page.wait_for_function(HAND_OVER, arg=hand["id"])
            assert "uncontested" in page.inner_text("#result")
        slow.wait_for_selector(f"#seat-{slow_seat}[data-status='sitting_out']")
        assert "ran out of time" in slow.inner_text("#log")

        # Back in (no big blind was missed, so straight back to playing); top up to the
        # maximum; then leave.
        slow.click("#sit-in")
        slow.wait_for_selector(f"#seat-{slow_seat}[data-status='playing']")
        stack = table_stack_balance(player=players[slow_seat], table=table)
        assert stack == BUY_IN - 50
        slow.fill("#top-up-amount", "0.50")
        slow.click("#top-up-form button[type=submit]")
        slow.wait_for_selector(f"#seat-{slow_seat} .seat-stack[data-cents='{BUY_IN}']")
        assert table_stack_balance(player=players[slow_seat], table=table) == BUY_IN
        slow.on("dialog", lambda dialog: dialog.accept())
        slow.click("#leave")
        other.wait_for_selector(f"#seat-{slow_seat}.empty")
        assert wallet_balance(player=players[slow_seat]) == FUNDS - 50
        assert slow.errors == [] and other.errors == []
    finally:
        close_and_settle(table, pages.values())
