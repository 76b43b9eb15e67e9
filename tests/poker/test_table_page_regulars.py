"""What regulars expect at the table, in Chromium: the time bank counting
down on the seat for everyone, bet-size presets within the legal range, the seat options, and
the chat with its per-player mute, the sound switch, on a laptop (1366x768) and a phone
(390x844)."""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from accounts.models import Profile
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat
from tests.factories import deal_hand, make_seated_player, make_table
from tests.poker.table_page import (
    PHONE,
    beside_the_browser,
    close_and_settle,
    frames_sent,
    horizontal_overflow,
    open_table,
    record_calls,
    screenshot,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP_1366 = {"width": 1366, "height": 768}


def seat_two():
    # A short normal time, so the bank starts soon; a bank of the most a table may give, so
    # the deadline is minutes away and even a slow machine finishes the test well before it.
    table = make_table(
        next_hand_delay_seconds=3600, action_seconds=3, countdown_seconds=3, time_bank_seconds=300
    )
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    return table, players


def deal(table):
    """Deal once both pages are connected: the first turn then starts with the normal time
    (a disconnected actor would get the disconnection grace first, 20 s more to wait), and
    the pages see the turn open, which is what their countdown's clock is set by."""
    hand = deal_hand(table)
    return EngineHand.from_dict(hand.state).to_act


def in_view(page, selector: str) -> bool:
    """The element is wholly inside the window (nothing cut or off screen)."""
    return page.evaluate(
        """(selector) => {
          const r = document.querySelector(selector).getBoundingClientRect();
          return r.width > 0 && r.left >= 0 && r.top >= 0 &&
            r.right <= window.innerWidth && r.bottom <= window.innerHeight;
        }""",
        selector,
    )


def _both_see_the_time_bank(pages, actor):
    """The normal time ran out: both see the bank counting down on the actor's seat."""
    for page in pages:
        bank = page.wait_for_selector(f"#seat-{actor} .timer.bank", timeout=20_000)
        assert "Time bank" in bank.inner_text()
        first = int(page.get_attribute("#turn[data-seconds]", "data-seconds") or 0)
        assert 0 < first <= 300


def _presets_before_the_flop(mine):
    """Raises to 2.5, 3 and 4 big blinds ($1), within the legal range the server sent
    (heads-up, the small blind may raise to $2-$3)."""
    mine.wait_for_selector("#act-raise:not([hidden]):not([disabled])")
    sizes = mine.locator("#preset-sizes button")
    assert sizes.all_inner_texts() == ["2.5 BB", "3 BB", "4 BB"]
    assert [sizes.nth(k).is_disabled() for k in range(3)] == [False, False, True]
    assert "$2" in sizes.nth(2).get_attribute("title")  # says the range it is outside
    sizes.nth(0).click()
    assert mine.inner_text("#act-raise") == "Raise to $2.50"
    assert mine.input_value("#raise-amount") == "2.50"


def _still_in_the_hand(mine):
    """The options need the hand still running (the bank is minutes long): once, in CI,
    "Leave after this hand" went away mid-test; if it does again, say what the page held."""
    try:
        mine.wait_for_selector("#opt-leave-after-wrap:not([hidden])", timeout=5_000)
    except PlaywrightTimeout:
        held = mine.evaluate(
            """() => { const s = window.tablePage.state();
              return JSON.stringify({hand: s.hand && {id: s.hand.id, street: s.hand.street,
                result: Boolean(s.hand.result), to_act: s.hand.to_act}, you: s.you}); }"""
        )
        hands = list(Hand.objects.values("id", "status", "ended_at"))
        raise AssertionError(f"the hand is over on the page: {held}; hands: {hands}") from None


def _seat_options(mine, player):
    """ "Leave after this hand" only while in a hand; each switch reaches the server (its own
    option on the seat, not another's), and auto top-up stays set."""
    assert mine.is_visible("#opt-leave-after-wrap")
    assert mine.is_visible("#opt-sit-out-bb-wrap")
    for box, option in (("#opt-sit-out-bb", "sit_out_next_big_blind"),
                        ("#opt-leave-after", "leave_after_hand")):  # fmt: skip
        for on in (True, False):
            _still_in_the_hand(mine)
            mine.set_checked(box, on)
            mine.wait_for_function(
                f"() => window.tablePage.state().you.options.{option} === {str(on).lower()}"
            )
            seat = Seat.objects.get(player=player)
            assert (seat.sit_out_next_big_blind, seat.leave_after_hand) == (
                on and option == "sit_out_next_big_blind",
                on and option == "leave_after_hand",
            ), (option, on)
    mine.check("#opt-auto-top-up")
    # The server's frame saying so comes after its commit: then the row is read once.
    mine.wait_for_function("() => window.tablePage.state().you.options.auto_top_up === true")
    assert Seat.objects.get(player=player).auto_top_up, "the option never reached the server"
    assert mine.is_checked("#opt-auto-top-up")


def _chat_as_text(mine, theirs):
    """The phone's player writes markup; it arrives as text, by display name."""
    theirs.fill("#chat-text", "hello <b>all</b>")
    theirs.press("#chat-text", "Enter")
    line = mine.wait_for_selector("#chat-lines li .chat-text")
    assert line.inner_text() == "hello <b>all</b>"
    assert mine.locator("#chat-lines b").count() == 0
    theirs.wait_for_selector("#chat-lines li .chat-text")
    assert theirs.locator("#chat-lines .chat-mute").count() == 0  # nobody mutes themself
    mine.fill("#chat-text", "gl")
    mine.press("#chat-text", "Enter")
    theirs.wait_for_function("() => document.querySelectorAll('#chat-lines li').length === 2")


def _everything_fits(mine, theirs):
    for page, name in ((mine, "laptop-1366x768"), (theirs, "phone-390x844")):
        screenshot(page, f"regulars-{name}")
    assert horizontal_overflow(theirs) <= 0 and horizontal_overflow(mine) <= 0
    # The action panel and its presets are in view without scrolling.
    mine.evaluate("window.scrollTo(0, 0)")
    for selector in ("#act-raise", "#raise-amount", "#preset-sizes button:nth-child(3)"):
        assert in_view(mine, selector), selector


def _mutes_are_kept(mine, muted_player, player):
    """Muting the phone's player hides their lines here, on this page and the next. The page
    sounded their line (the player had clicked on it before); the sound switch, muted, is
    kept on the player's profile for the next page."""
    assert "chat" in mine.evaluate("window.roomSounds.page.played")
    switch = "#sound-switch"
    assert mine.get_attribute(switch, "aria-pressed") == "true"
    mine.click(switch)
    mine.wait_for_selector(f"{switch}[aria-pressed=false]:not([aria-busy])")
    assert Profile.objects.get(user=player).sound_muted
    theirs_line = f"#chat-lines li[data-player='{muted_player.pk}']"
    mine.click("#chat-lines li .chat-mute")
    assert not mine.is_visible(theirs_line)
    assert mine.is_visible("#chat-muted")
    mine.reload()
    mine.wait_for_selector("#conn.online")
    assert mine.get_attribute(switch, "aria-pressed") == "false"
    mine.focus(switch)  # by keyboard: sounds on again
    mine.keyboard.press("Enter")
    mine.wait_for_selector(f"{switch}[aria-pressed=true]:not([aria-busy])")
    mine.wait_for_function("() => document.querySelectorAll('#chat-lines li').length === 2")
    assert not mine.is_visible(theirs_line)
    mine.click("#chat-muted .chat-unmute")
    assert mine.is_visible(theirs_line)


def _actor_on_a_phone_then_a_preset_sent(mine):
    """The actor's page on a phone: presets, options and chat fit the width; then the
    preset's amount is what goes to the server."""
    mine.set_viewport_size(PHONE)
    mine.wait_for_selector("#preset-sizes button")
    screenshot(mine, "regulars-actor-phone-390x844")
    assert horizontal_overflow(mine) <= 0
    mine.set_viewport_size(LAPTOP_1366)
    record_calls(mine)
    mine.wait_for_selector("#act-raise:not([hidden]):not([disabled])")
    mine.locator("#preset-sizes button").nth(1).click()
    mine.click("#act-raise")
    mine.wait_for_function("() => window.testCalls.sent.some((t) => t.includes('\"act\"'))")
    (sent,) = frames_sent(mine, "act")
    assert (sent["action"], sent["amount"]) == ("raise", 300)


def test_time_bank_presets_seat_options_and_chat(signed_in_page):
    table, players = beside_the_browser(seat_two)
    by_seat = {seat: signed_in_page(player, LAPTOP_1366) for seat, player in players.items()}
    pages = list(by_seat.values())
    try:
        for page in pages:
            record_calls(page)
            open_table(page, table)
        actor = beside_the_browser(deal, table=table)
        other = 3 - actor
        # The actor's page is the laptop, the other player's the phone.
        mine, theirs = by_seat[actor], by_seat[other]
        theirs.set_viewport_size(PHONE)
        _both_see_the_time_bank([mine, theirs], actor)
        _presets_before_the_flop(mine)
        _seat_options(mine, players[actor])
        _chat_as_text(mine, theirs)
        _everything_fits(mine, theirs)
        _mutes_are_kept(mine, players[other], players[actor])
        _actor_on_a_phone_then_a_preset_sent(mine)
    finally:
        close_and_settle(table, pages)


def test_a_refused_chat_line_stays_in_the_box(signed_in_page):
    """The rate limit's refusal (5 lines in 10 s, docs/rules.md "Table chat") says why and
    leaves the refused line in the box to send again: the box was emptied on sending, so a
    refused line was lost. Lines that went through are not put back."""
    table = beside_the_browser(lambda: make_table(next_hand_delay_seconds=3600))
    ann = beside_the_browser(make_seated_player, table=table, username="ann", seat=1)
    beside_the_browser(make_seated_player, table=table, username="ben", seat=2)
    page = signed_in_page(ann, PHONE)
    try:
        open_table(page, table)
        # The limit counts in fixed windows: a window's edge may let up to ten lines through.
        shown = 0
        for k in range(12):
            page.fill("#chat-text", f"line {k}")
            page.press("#chat-text", "Enter")
            page.wait_for_function(
                """(n) => document.querySelectorAll('#chat-lines li').length > n ||
                  !document.getElementById('chat-error').hidden""",
                arg=shown,
            )
            if page.is_visible("#chat-error"):
                break
            shown += 1
            assert page.input_value("#chat-text") == ""  # sent and shown: the box is empty
        assert 5 <= shown <= 10
        # Said under the box, not in a toast over the seat options ("Leave after this hand").
        assert "5 messages in 10 seconds" in page.inner_text("#chat-error")
        assert page.locator("#toasts .toast").count() == 0
        page.wait_for_function("() => document.getElementById('chat-text').value !== ''")
        assert page.input_value("#chat-text") == f"line {shown}"
        assert page.locator("#chat-lines li").count() == shown
        screenshot(page, "regulars-chat-refused-phone-390x844")
        # Other refusals still toast, but the same one again replaces its toast, and no more
        # than two show at once.
        page.evaluate("() => [1, 2, 3, 4].forEach(() => window.tablePage.toast('No', 'error'))")
        assert page.locator("#toasts .toast").count() == 1
        page.evaluate("() => ['a', 'b', 'c'].forEach((m) => window.tablePage.toast(m, 'error'))")
        assert page.locator("#toasts .toast").all_inner_texts() == ["b", "c"]
        assert horizontal_overflow(page) <= 0 and page.errors == []
    finally:
        close_and_settle(table, [page])
