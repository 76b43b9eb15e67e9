"""The table page in a real browser: Playwright drives Debian's Chromium against daphne, the
Redis channel layer and a real Celery worker, on the test database.
"""

import pytest

from cashier.selectors import table_stack_balance, wallet_balance
from poker.models import Seat
from tests.factories import make_funded_player, make_table
from tests.poker.table_page import (
    BUY_IN,
    FUNDS,
    HAND_OVER,
    HAND_STARTED,
    LAPTOP,
    PHONE,
    assert_ledger_agrees,
    beside_the_browser,
    check_or_call,
    close_and_settle,
    frames_sent,
    horizontal_overflow,
    one_hand_only,
    open_table,
    play_hand,
    record_calls,
    screenshot,
    seat_everyone,
    sit,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]


def test_two_players_sit_and_check_a_hand_down_to_showdown(signed_in_page, celery_worker_process):
    table = make_table(next_hand_delay_seconds=1.0)
    alice = make_funded_player("alice", cents=FUNDS)
    bob = make_funded_player("bob", cents=FUNDS)
    alice_page = signed_in_page(alice, LAPTOP)
    bob_page = signed_in_page(bob, PHONE)
    pages = {1: alice_page, 2: bob_page}
    try:
        seat_everyone(table, pages)

        # The hand starts by itself; each decision is made by clicking on the page whose turn
        # it is, checking when possible and calling otherwise, until the hand is over.
        alice_page.wait_for_function(HAND_STARTED)
        one_hand_only(table)
        hand_id = alice_page.evaluate("window.tablePage.state().hand.id")

        def check_or_call_shot(page, hand):
            if page is bob_page and hand["turn"] <= 2:
                screenshot(page, "phone-to-act")
            check_or_call(page, hand)

        result = play_hand(pages, hand_id, check_or_call_shot)

        for page in pages.values():
            page.wait_for_function(HAND_OVER, arg=hand_id)
            result_box = page.locator("#result")
            result_box.wait_for(state="visible")
            text = result_box.inner_text()
            assert " with " in text  # the winning hand is named
            assert "wins" in text or "split" in text
        screenshot(alice_page, "laptop-result")
        screenshot(bob_page, "phone-result")

        assert len(result["showdown"]) == 2
        # The cashier agrees with the page: stacks as shown, nothing created or lost.
        assert_ledger_agrees(table, {1: alice, 2: bob}, result, rake=result["rake"])
        assert wallet_balance(player=alice) == FUNDS - BUY_IN
        stacks = alice_page.locator(".seat-stack")
        assert stacks.count() == 2
        assert horizontal_overflow(bob_page) <= 0
        assert alice_page.errors == [] and bob_page.errors == []
    finally:
        close_and_settle(table, pages.values())


def test_the_table_page_fits_a_phone_screen_and_a_waiting_player_can_post_now(signed_in_page):
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

        # Seated waiting for the big blind (the dialog's default): she changes her mind, posts
        # one to play at once, then goes back to waiting.
        page.wait_for_selector("#seat-3[data-status='waiting_big_blind']")
        page.click("#post-bb-now")
        page.wait_for_selector("#seat-3[data-status='playing']")
        page.wait_for_selector("#wait-bb:not([hidden])")
        assert page.locator("#post-bb-now").is_hidden()
        assert Seat.objects.get(table=table, player=carol).posts_big_blind_next
        page.click("#wait-bb")
        page.wait_for_selector("#seat-3[data-status='waiting_big_blind']")
        assert "waits for the big blind" in page.inner_text("#log")
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
        seat_everyone(table, pages)
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
        seat_everyone(table, pages)
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
        assert "Out since" in slow.inner_text(f"#seat-{slow_seat}")
        screenshot(slow, "laptop-sitting-out")
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


def test_a_reload_in_mid_hand_keeps_the_table_log(signed_in_page):
    from tests.factories import call_down, deal_hand, make_seated_player
    from tests.sweep import DECK

    table = make_table(next_hand_delay_seconds=3600)

    def seat_and_play_to_the_flop():
        players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
        call_down(deal_hand(table, DECK), players, until_street="flop")
        return players

    players = beside_the_browser(seat_and_play_to_the_flop)
    page = signed_in_page(players[1], LAPTOP)
    try:
        for visit in ("first", "reload"):
            if visit == "first":
                open_table(page, table)
            else:
                page.reload()
                page.wait_for_selector("#conn.online")
            page.wait_for_selector("#log li.ev-street_dealt")
            kinds = page.eval_on_selector_all("#log li", "items => items.map(i => i.className)")
            assert sum("ev-blind_posted" in k for k in kinds) == 2, kinds
            assert sum("ev-street_dealt" in k for k in kinds) == 1, kinds
        assert page.errors == []
    finally:
        close_and_settle(table, [page])


def test_a_player_who_cannot_cover_the_buy_in_is_shown_the_way_to_the_cashier(signed_in_page):
    table = make_table(max_seats=6)
    dan = make_funded_player("dan", cents=table.min_buy_in - 1)
    page = signed_in_page(dan, LAPTOP)
    try:
        open_table(page, table)
        page.click("#seat-2 .sit-here")
        page.wait_for_selector("#sit-cashier")
        assert "less than the minimum buy-in" in page.inner_text("#sit-range")
        assert page.get_attribute("#sit-cashier", "href") == "/cashier/"
        assert page.errors == []
    finally:
        close_and_settle(table, [page])


def test_folding_when_checking_is_free_takes_a_second_click(signed_in_page):
    """Fold is open at any point; with a free check the page asks once more."""
    from poker.engine.hand import Hand as EngineHand
    from tests.factories import call_down, deal_hand, make_seated_player
    from tests.sweep import DECK

    table = make_table(next_hand_delay_seconds=3600)

    def seat_and_play_to_the_flop():
        players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
        hand = call_down(deal_hand(table, DECK), players, until_street="flop")
        return players, hand

    players, hand = beside_the_browser(seat_and_play_to_the_flop)
    first = EngineHand.from_dict(hand.state).to_act
    page = signed_in_page(players[first], LAPTOP)
    record_calls(page)
    try:
        open_table(page, table)
        page.wait_for_selector("#act-check:not([hidden])")
        page.click("#act-fold")
        page.wait_for_selector("#act-fold.confirm")  # the click was handled: it only asked
        assert "Checking is free" in page.inner_text("#act-fold")
        assert frames_sent(page, "act") == []  # nothing sent yet
        page.click("#act-fold")
        page.wait_for_function(HAND_OVER, arg=hand.pk)
        assert [f["action"] for f in frames_sent(page, "act")] == ["fold"]
        hand.refresh_from_db()
        folds = [e for e in hand.state["events"] if e.get("action") == "fold"]
        assert [e["seat"] for e in folds] == [first]
        assert page.errors == []
    finally:
        close_and_settle(table, [page])
