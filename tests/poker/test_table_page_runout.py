"""An all-in on the table page: the hands go face up, the remaining streets
are turned over one by one, only then the result shows; the middle is cleared after the hand
and nobody "wins $0"."""

from datetime import timedelta

import pytest

from poker.engine.views import RUNOUT_STREET_SECONDS, SHOWDOWN_READ_SECONDS
from poker.models import Table
from poker.services import table_sit
from tests.factories import make_funded_player, make_seated_player, make_table
from tests.poker.table_page import (
    LAPTOP,
    SMALL_LAPTOP,
    beside_the_browser,
    close_and_settle,
    open_table,
    opponent_acts,
)
from tests.sweep import DECK

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOARD_CARDS = "document.querySelectorAll('#board .card').length"
RESULT_SHOWN = "!document.getElementById('result').hidden"


def test_an_all_in_is_run_out_street_by_street(signed_in_page):
    from tests.factories import deal_hand

    def short_stacks_dealt():
        # Buy-ins of three big blinds: a pot-sized raise before the flop is all-in.
        table = make_table(
            next_hand_delay_seconds=3600, min_buy_in_big_blinds=3, max_buy_in_big_blinds=3
        )
        players = {n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
        return table, players, deal_hand(table, DECK)

    table, players, hand = beside_the_browser(short_stacks_dealt)
    page = signed_in_page(players[1], LAPTOP)
    try:
        open_table(page, table)
        page.wait_for_function("window.tablePage.state().hand !== null")
        opponent_acts(hand, players, "all_in")
        opponent_acts(hand, players, "call")  # both all-in: the server deals the rest
        # At once: both hands face up, no board yet, no winner.
        page.wait_for_function("document.querySelectorAll('#seat-2 .card:not(.back)').length === 4")
        assert page.evaluate(BOARD_CARDS) == 0
        assert not page.evaluate(RESULT_SHOWN)
        assert page.locator(".badge.won").count() == 0
        assert "All in" in page.inner_text("#table-message")
        # Then the flop, the turn and the river, each on its own, before the result.
        for count in (3, 4, 5):
            page.wait_for_function(f"{BOARD_CARDS} === {count}")
            assert not page.evaluate(RESULT_SHOWN) or count == 5
        page.wait_for_function(RESULT_SHOWN)
        assert page.locator(".badge.won").count() >= 1
        assert "$0 " not in page.inner_text("#result") and "$0." not in page.inner_text("#result")
        # Between hands the middle shows no pot: the result panel has it.
        assert page.locator("#pots .pot").count() == 0
        # The server waits for the runout and the showdown before the next hand.
        table = Table.objects.get(pk=table.pk)
        assert table.next_hand_at - table.last_hand_ended_at == timedelta(
            seconds=3600 + 3 * RUNOUT_STREET_SECONDS + SHOWDOWN_READ_SECONDS
        )
        assert page.errors == []
    finally:
        close_and_settle(table, [page])


SEAT_STACKS = "[1, 2].map((n) => document.querySelector(`#seat-${n} .seat-stack`).dataset.cents)"


def test_nothing_on_the_felt_gives_the_runout_away(signed_in_page):
    """While the board is turned over, the stacks are those with the chips in
    the middle, no hand name, "Out since" or re-buy shows; all of it once the river is out."""
    from tests.factories import deal_hand

    def short_stacks_dealt():
        table = make_table(
            next_hand_delay_seconds=3600, min_buy_in_big_blinds=3, max_buy_in_big_blinds=3
        )
        players = {n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
        return table, players, deal_hand(table, DECK)

    table, players, hand = beside_the_browser(short_stacks_dealt)
    page = signed_in_page(players[1], LAPTOP)
    try:
        open_table(page, table)
        page.wait_for_function("window.tablePage.state().hand !== null")
        opponent_acts(hand, players, "all_in")
        opponent_acts(hand, players, "call")
        page.wait_for_function("document.querySelectorAll('#seat-2 .card:not(.back)').length === 4")
        for count in (0, 3, 4):
            page.wait_for_function(f"{BOARD_CARDS} >= {count}")
            if page.evaluate(RESULT_SHOWN):
                break  # a loaded machine may have run past this street: checked up to here
            assert page.evaluate(SEAT_STACKS) == ["0", "0"], count
            assert page.locator(".hand-name").count() == 0, count
            assert page.locator(".badge.out, .badge.won").count() == 0, count
            assert page.locator(".badge.all-in").count() == 2, count
            assert page.is_hidden("#rebuy-form"), count
        page.wait_for_function(RESULT_SHOWN)
        assert page.evaluate(BOARD_CARDS) == 5
        assert sum(int(cents) for cents in page.evaluate(SEAT_STACKS)) > 0
        assert page.locator("#seats .hand-name").count() == 2
        assert page.errors == []
    finally:
        close_and_settle(table, [page])


def test_a_player_who_leaves_all_in_stays_on_the_felt_until_the_hand_ends(signed_in_page):
    """The confirmation says the all-in hand plays on (no folding), and the
    others see the leaver's seat, cards and all, through the runout."""
    from tests.factories import deal_hand
    from tests.poker.table_page import to_act

    def short_stacks_dealt():
        table = make_table(
            next_hand_delay_seconds=3600, min_buy_in_big_blinds=3, max_buy_in_big_blinds=3
        )
        players = {n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
        return table, players, deal_hand(table, DECK)

    table, players, hand = beside_the_browser(short_stacks_dealt)
    leaver = to_act(hand)
    other = 3 - leaver
    pages = {n: signed_in_page(players[n], LAPTOP) for n in (leaver, other)}
    questions = []
    try:
        for page in pages.values():
            open_table(page, table)
            page.wait_for_function("window.tablePage.state().hand !== null")
        opponent_acts(hand, players, "all_in")
        pages[leaver].wait_for_selector(f"#seat-{leaver} .badge.all-in")
        pages[leaver].once("dialog", lambda d: (questions.append(d.message), d.accept()))
        pages[leaver].click("#leave")
        pages[other].wait_for_selector("#log li:has-text('leaves after this hand')")
        assert "all-in" in questions[0] and "fold" not in questions[0]
        opponent_acts(hand, players, "call")
        watcher = pages[other]
        watcher.wait_for_function(
            f"document.querySelectorAll('#seat-{leaver} .card:not(.back)').length === 4"
        )
        assert not watcher.evaluate(RESULT_SHOWN)
        assert watcher.locator(f"#seat-{leaver}.empty").count() == 0
        assert watcher.locator(f"#seat-{leaver} .seat-name").count() == 1
        watcher.wait_for_function(RESULT_SHOWN)
        assert all(page.errors == [] for page in pages.values())
    finally:
        close_and_settle(table, pages.values())


def test_a_busted_player_is_offered_a_re_buy_and_plays_on(signed_in_page):
    """Out of chips, the page offers a buy-in in the table's range, then sits
    the player in."""
    from cashier.selectors import table_stack_balance
    from poker.models import Seat
    from tests.factories import call_down, deal_hand

    def bust_one():
        table = make_table(
            next_hand_delay_seconds=3600, min_buy_in_big_blinds=3, max_buy_in_big_blinds=3
        )
        players = {n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
        hand = deal_hand(table, DECK)
        opponent_acts(hand, players, "all_in")
        call_down(hand, players)
        return table, players

    table, players = beside_the_browser(bust_one)
    busted = next(p for p in players.values() if table_stack_balance(player=p, table=table) == 0)
    page = signed_in_page(busted, LAPTOP)
    try:
        open_table(page, table)
        page.wait_for_selector("#rebuy-form:not([hidden])")
        # One way back: no "Sit in" that the server would refuse.
        assert page.is_hidden("#sit-in") and page.is_hidden("#post-bb-wrap")
        assert "$3" in page.inner_text("#rebuy-text")
        assert page.input_value("#rebuy-amount") == "3.00"
        page.click("#rebuy-submit")
        page.wait_for_selector("#rebuy-form", state="hidden")
        page.wait_for_function(
            "() => { const s = window.tablePage.state(); return s.you && !s.you.sitting_out; }"
        )
        assert table_stack_balance(player=busted, table=table) == 300
        assert Seat.objects.get(table=table, player=busted).status != Seat.Status.SITTING_OUT
        assert page.errors == []
    finally:
        close_and_settle(table, [page])


def test_a_player_who_folded_may_show_their_cards_after_the_hand(signed_in_page):
    """ "Show my cards" between hands; the other player sees them face up."""
    from tests.factories import deal_hand
    from tests.poker.table_page import to_act

    def deal_two():
        table = make_table(next_hand_delay_seconds=3600)
        players = {n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
        return table, players, deal_hand(table, DECK)

    table, players, hand = beside_the_browser(deal_two)
    folder = to_act(hand)
    other = 3 - folder
    pages = {n: signed_in_page(players[n], LAPTOP) for n in (folder, other)}
    try:
        for page in pages.values():
            open_table(page, table)
            page.wait_for_function("window.tablePage.state().hand !== null")
        assert pages[folder].is_hidden("#show-cards")
        opponent_acts(hand, players, "fold")
        pages[folder].wait_for_selector("#show-cards:not([hidden])")
        # Between hands a player still sees their own cards (dimmed); the others do not.
        assert pages[folder].locator(f"#seat-{folder} .hole.own-last .card:not(.back)").count() == 4
        assert pages[other].locator(f"#seat-{folder} .card:not(.back)").count() == 0
        assert pages[other].is_visible("#show-cards")  # a winner nobody called may show too
        pages[folder].click("#show-cards")
        pages[other].wait_for_function(
            f"document.querySelectorAll('#seat-{folder} .card:not(.back)').length === 4"
        )
        pages[other].wait_for_selector("#log li:has-text('chooses to show')")
        pages[folder].wait_for_selector("#show-cards", state="hidden")
        assert all(page.errors == [] for page in pages.values())
    finally:
        close_and_settle(table, pages.values())


@pytest.mark.parametrize("size", ["PHONE", "LAPTOP"])
def test_the_phone_table_header_and_seat_badges_stay_whole(signed_in_page, size):
    """At 390 px "Log out", the language selector, the badges and the names
    are whole; at 1366 px the names and badges too (a touch laptop has no tooltip either)."""
    from accounts.models import Profile
    from tests.poker import table_page

    def seated():
        table = make_table(next_hand_delay_seconds=3600)  # no hand takes the badges away
        ann = make_seated_player(table, "ann", 1)
        Profile.objects.update_or_create(user=ann, defaults={"display_name": "Annemarie Wolkenste"})
        # The longest name the room allows, in one word.
        bart = make_funded_player("bart")
        Profile.objects.update_or_create(
            user=bart, defaults={"display_name": "Bartholomew_Fitzgera"}
        )
        table_sit(
            table=table, player=bart, seat_number=2, buy_in=table.max_buy_in,
            post_big_blind=False, idempotency_key="sit-bart",
        )  # fmt: skip
        return table, ann

    table, player = beside_the_browser(seated)
    page = signed_in_page(player, {"PHONE": table_page.PHONE, "LAPTOP": SMALL_LAPTOP}[size])
    try:
        open_table(page, table)
        outside = page.evaluate(
            """() => [...document.querySelectorAll('.topbar nav > *')]
                .filter((node) => { const box = node.getBoundingClientRect();
                                    return box.width && (box.left < 0 || box.right > innerWidth); })
                .map((node) => node.textContent.trim())"""
        )
        assert outside == []
        # Seat badges and names wrap rather than end in "…": a touch screen has no tooltip.
        page.wait_for_selector("#seat-1 .badge")
        page.wait_for_selector("#seat-2 .seat-name")
        cut = page.evaluate(
            """[...document.querySelectorAll('.seat .badge, .seat .seat-name')]
               .filter((b) => b.scrollWidth > b.clientWidth + 1 ||
                              b.getBoundingClientRect().right > b.parentElement
                                .getBoundingClientRect().right + 1)
               .map((b) => b.textContent)"""
        )
        assert cut == []
        names = page.locator(".seat-name").all_inner_texts()
        assert {"Bartholomew_Fitzgera", "Annemarie Wolkenste"} <= {n.strip() for n in names}
        table_page.screenshot(page, f"seat-names-{size}")
        assert page.errors == []
    finally:
        close_and_settle(table, [page])
