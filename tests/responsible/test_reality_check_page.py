"""The table page in Chromium: the reality check dialog comes after N minutes of the session
(the page's clock is Playwright's, fast-forwarded) with the time played and the net result,
and a time-out started elsewhere stops the page with the reason. The profile's responsible
gaming section fits a phone, a waiting limit change included."""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from config.inputs import dollars
from responsible.selectors import net_result_since
from responsible.services import (
    deposit_limit_set,
    exclusion_start,
    reality_check_set,
    session_limit_set,
)
from tests.factories import call_down, deal_hand, make_seated_player, make_table
from tests.poker.table_page import (
    LAPTOP,
    PHONE,
    beside_the_browser,
    close_and_settle,
    fetched,
    frames_received,
    horizontal_overflow,
    open_table,
    record_calls,
    wait_for_frames_received,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_reality_check_dialog_and_exclusion_on_the_table_page(signed_in_page):
    table = make_table(next_hand_delay_seconds=3600)
    alice, bob = make_seated_player(table, "alice", 1), make_seated_player(table, "bob", 2)
    call_down(deal_hand(table), {1: alice, 2: bob})
    reality_check_set(player=alice, minutes=10)
    page = signed_in_page(alice, LAPTOP)
    # The session began 25 minutes ago: the next reminder is due at 30, five minutes away.
    login = timezone.now() - timedelta(minutes=25)
    type(alice).objects.filter(pk=alice.pk).update(last_login=login)
    net = net_result_since(player=alice, since=login)
    reality_url = reverse("api-responsible-reality-check")
    page.clock.install()
    record_calls(page)
    open_table(page, table)
    # The reminder is armed once the page has asked the server (a busy machine may answer
    # after the table is drawn); the fake clock must not run ahead of that.
    page.wait_for_function("window.realityCheck && window.realityCheck.armed()")
    assert (
        page.evaluate("window.realityCheck.delayMs({interval_minutes: 10, seconds_played: 1500})")
        == 5 * 60 * 1000
    )
    assert not page.is_visible("#reality-dialog")
    assert len(fetched(page, reality_url)) == 1  # the question when the page opened

    # The real seconds between setting the login time and the page's question (a busy
    # machine: up to half a minute) come off the wait. A fast-forward returns once the timers
    # it made due have run, and the reminder's timer first asks the server again: no second
    # question yet means no reminder coming.
    resyncs = len(frames_received(page, "resync"))
    page.clock.fast_forward("04:30")
    assert len(fetched(page, reality_url)) == 1
    assert not page.is_visible("#reality-dialog")
    # No heartbeat came in those minutes (no beat runs here): the page asked what it missed
    # (`resync`). The answer must be in before the clock jumps again, or the page takes the
    # socket for dead.
    wait_for_frames_received(page, "resync", resyncs + 1)
    page.clock.fast_forward("00:35")
    assert len(fetched(page, reality_url)) == 2
    page.wait_for_selector("#reality-dialog[open]")
    assert page.text_content("#reality-played") == "25 minutes"
    shown = page.text_content("#reality-net")
    assert shown.replace(".00", "") == (("+" if net > 0 else "") + dollars(net)).replace(".00", "")
    page.click("#reality-continue")
    page.wait_for_selector("#reality-dialog:not([open])", state="attached")

    beside_the_browser(exclusion_start, player=alice, kind="time_out", length=1)
    page.wait_for_selector("#notice:not([hidden])")
    assert "time-out" in page.text_content("#notice")
    assert page.errors == []
    close_and_settle(table, [page])


def test_the_responsible_gaming_section_fits_a_phone(signed_in_page):
    alice = make_seated_player(make_table(), "alice", 1)
    deposit_limit_set(player=alice, period="day", amount=10_000)
    deposit_limit_set(player=alice, period="day", amount=50_000)  # waits 24 hours
    session_limit_set(player=alice, minutes=90)  # seated: her session runs
    page = signed_in_page(alice, PHONE)
    page.goto("/accounts/profile/")
    limits = page.text_content("[data-deposit-limits]")
    assert "$100.00" in limits and "then $500.00 from" in limits
    session = page.text_content("[data-session-limit]")
    assert "90 minutes" in session and "0 min played" in session
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # "I understand it cannot be undone" is ticked under its words, not in the middle of a row.
    lefts = page.evaluate(
        """() => [...document.querySelectorAll('.field input[type=checkbox]')].map((box) => [
          box.getBoundingClientRect().left,
          box.closest('.field').querySelector('label').getBoundingClientRect().left,
          box.getBoundingClientRect().width])"""
    )
    assert len(lefts) >= 2
    for box, label, width in lefts:
        assert abs(box - label) <= 1 and width < 30, lefts
    assert page.errors == []
    page.context.close()


@pytest.mark.parametrize("live", [False, True], ids=["online", "live"])
def test_the_reality_check_comes_on_showdown_pages_too(signed_in_page, live):
    """The reality check reminds a Showdown player too, not only the poker table's."""
    from tests.factories import make_funded_player, make_showdown_table

    alice = make_funded_player("alice")
    table = make_showdown_table(seats=3 if live else 1)
    reality_check_set(player=alice, minutes=10)
    page = signed_in_page(alice, PHONE if live else LAPTOP)
    # The session began 25 minutes ago (after the sign-in, which sets the login time).
    login = timezone.now() - timedelta(minutes=25)
    type(alice).objects.filter(pk=alice.pk).update(last_login=login)
    page.clock.install()
    page.goto(reverse("showdown:live" if live else "showdown:table", args=[table.pk]))
    page.wait_for_function("window.realityCheck && window.realityCheck.armed()")
    assert (
        page.evaluate("window.realityCheck.delayMs({interval_minutes: 10, seconds_played: 1500})")
        == 300_000
    )
    assert not page.is_visible("#reality-dialog")
    # The reminder is due at 30 minutes: a little more than five minutes away (the seconds
    # between setting the login and the page's question come off the wait).
    page.clock.fast_forward("05:05")
    page.wait_for_selector("#reality-dialog[open]")
    assert (
        page.text_content("#reality-played") == "25 minutes"
    )  # the server's clock, not the page's
    assert page.text_content("#reality-net") == "$0.00"
    page.click("#reality-continue")
    page.wait_for_selector("#reality-dialog:not([open])", state="attached")
    assert page.evaluate("window.realityCheck.armed()")  # and the next one is on its way
    assert horizontal_overflow(page) <= 0
    assert page.errors == []
    page.context.close()


def test_a_player_on_a_time_out_is_offered_no_seat(signed_in_page):
    """A player on a time-out is shown no seat to take that would fail after a click."""
    from tests.factories import make_funded_player, make_showdown_table

    alice = make_funded_player("alice")
    exclusion_start(player=alice, kind="time_out", length=1)
    live = make_showdown_table(seats=3)
    page = signed_in_page(alice, PHONE)
    page.goto(reverse("showdown:live", args=[live.pk]))
    page.wait_for_selector(".sdl-sit", state="attached")
    assert page.is_visible("#play-blocked")
    assert not page.is_visible(".sdl-sit") and not page.is_visible("#sdl-wager")
    assert horizontal_overflow(page) <= 0
    assert page.errors == []
    page.context.close()
