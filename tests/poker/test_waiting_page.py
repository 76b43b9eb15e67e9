"""Waiting lists and "join a game" in Chromium: several players, each in their own
browser context, against daphne and the Redis channel layer. The sweep that lets overdue offers
pass runs here as beat's task body, in this process: a real worker with beat runs that sweep in
tests/poker/test_tasks.py."""

from datetime import timedelta

import pytest
from django.utils import timezone

from poker import services
from poker.models import Seat, Table, WaitingEntry
from poker.tasks import sweep_tables
from tests.factories import make_funded_player, make_seated_player, make_table
from tests.poker.table_page import (
    LAPTOP,
    PHONE,
    beside_the_browser,
    close_and_settle,
    horizontal_overflow,
    open_table,
    screenshot,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def offer_banner(table) -> str:
    return f'#seat-offers .seat-offer[data-table="{table.pk}"]'


def lobby_row(table) -> str:
    return f'#lobby-tables tr[data-table="{table.pk}"]'


def full_table_sitting_out() -> Table:
    """Two seats, both taken by players sitting out (so no hand starts under the test)."""
    table = make_table(name="Queue Street", max_seats=2, seat_offer_seconds=60)
    for number, name in ((1, "ann"), (2, "ben")):
        player = make_seated_player(table, name, number)
        services.table_sit_out(table=table, player=player)
    return table


def test_the_waiting_list_end_to_end(signed_in_page):
    """Queue from the lobby and from the table, an offer seen live, declined, taken with the
    sit dialog; then an offer let pass, which the sweep ends and the page hears of."""
    table = beside_the_browser(full_table_sitting_out)
    ann, ben = (Seat.objects.get(table=table, number=n).player for n in (1, 2))
    cat, dan, eve = (make_funded_player(name) for name in ("cat", "dan", "eve"))
    pages = {
        "cat": signed_in_page(cat, LAPTOP),
        "dan": signed_in_page(dan, PHONE),
        "eve": signed_in_page(eve, LAPTOP),
    }
    try:
        # Cat queues from the lobby, Dan from the table page.
        lobby = pages["cat"]
        lobby.goto("/")
        lobby.click(f"{lobby_row(table)} .waiting-join")
        lobby.wait_for_selector(f"{lobby_row(table)} .waiting-place")
        assert "#1" in lobby.inner_text(f"{lobby_row(table)} .waiting-place")
        lobby.wait_for_selector("body[data-lobby='live']")
        at_table = pages["dan"]
        open_table(at_table, table)
        assert at_table.locator("#seats .sit-here").count() == 0
        at_table.click("#waiting-join")
        at_table.wait_for_selector("#waiting-leave:not([hidden])")
        assert "2" in at_table.inner_text("#waiting-place")
        lobby.wait_for_function(
            "(row) => document.querySelector(row + ' .waiting-count').textContent.trim() === '2'",
            arg=lobby_row(table),
        )
        screenshot(lobby, "waiting-lobby-laptop")
        screenshot(at_table, "waiting-table-phone")
        assert horizontal_overflow(at_table) <= 0

        # Ann leaves: the seat is offered to Cat, live on her lobby page, and held for her.
        beside_the_browser(services.table_leave, table=table, player=ann)
        lobby.wait_for_selector(offer_banner(table))
        assert table.name in lobby.inner_text(offer_banner(table))
        screenshot(lobby, "waiting-offer-laptop")
        assert at_table.locator("#seats .sit-here").count() == 0  # held for Cat, not Dan

        # Cat declines: her banner goes, Dan is offered the seat on the table page.
        lobby.click(f"{offer_banner(table)} .seat-offer-decline button")
        lobby.wait_for_selector(offer_banner(table), state="detached")
        # Told it was declined, not left guessing or shown her old place.
        said = lobby.inner_text(".seat-offer-notice")
        assert f"You declined the seat at {table.name} and left its waiting list." == said
        screenshot(lobby, "waiting-declined-laptop")
        at_table.wait_for_selector(offer_banner(table))
        screenshot(at_table, "waiting-offer-phone")
        assert horizontal_overflow(at_table) <= 0
        at_table.click(f"{offer_banner(table)} .seat-offer-take")
        at_table.wait_for_selector("#sit-dialog[open]")
        at_table.click("#sit-confirm")
        at_table.wait_for_selector("#seat-1.me")
        at_table.wait_for_selector(offer_banner(table), state="detached")
        assert not WaitingEntry.objects.filter(table=table).exists()
        assert Seat.objects.get(table=table, number=1).player == dan

        # Eve queues; Ben leaves; the offer runs out and the sweep passes it on to nobody.
        eve_page = pages["eve"]
        eve_page.goto("/")
        eve_page.click(f"{lobby_row(table)} .waiting-join")
        eve_page.wait_for_selector(f"{lobby_row(table)} .waiting-place")
        eve_page.wait_for_selector("body[data-lobby='live']")
        beside_the_browser(services.table_leave, table=table, player=ben)
        eve_page.wait_for_selector(offer_banner(table))
        # The offer's time runs out (set in the past rather than waited for), then beat's
        # sweep runs: it ends the offer and the lobby hears of it (the seat is anyone's again).
        overdue = timezone.now() - timedelta(seconds=1)
        WaitingEntry.objects.filter(table=table).update(offer_expires_at=overdue)
        assert beside_the_browser(sweep_tables)["offers"] == 1
        eve_page.wait_for_selector(f"{lobby_row(table)} .button:has-text('Play')")
        assert not WaitingEntry.objects.filter(table=table).exists()
        eve_page.wait_for_selector(offer_banner(table), state="detached")
        for page in pages.values():
            assert page.errors == []
    finally:
        close_and_settle(table, pages.values())


def test_join_a_game_from_the_lobby_opens_the_sit_dialog_or_queues(signed_in_page):
    def tables():
        quiet = make_table(name="Quiet Lane", small_blind=25, big_blind=50, max_seats=2)
        make_seated_player(quiet, "sam", 1)
        return quiet

    quiet = beside_the_browser(tables)
    cat, dan = make_funded_player("cat"), make_funded_player("dan")
    pages = [signed_in_page(cat, LAPTOP), signed_in_page(dan, PHONE)]
    try:
        page = pages[0]
        page.goto("/")
        page.select_option("#join-kind", label=f"Omaha High · Pot limit · {quiet.stakes_label}")
        page.click("#join-submit")
        page.wait_for_url(f"**/tables/{quiet.pk}/")
        page.wait_for_selector("#sit-dialog[open]")
        assert page.inner_text("#sit-seat") == "2"
        page.click("#sit-confirm")
        page.wait_for_selector("#seat-2.me")

        # The only table of that kind is now full: Dan joins its list.
        phone = pages[1]
        phone.goto("/")
        screenshot(phone, "join-game-phone")
        assert horizontal_overflow(phone) <= 0
        phone.select_option("#join-kind", label=f"Omaha High · Pot limit · {quiet.stakes_label}")
        phone.click("#join-submit")
        phone.wait_for_selector(".messages li.success")
        assert "number 1" in phone.inner_text(".messages")
        assert "#1" in phone.inner_text(f"{lobby_row(quiet)} .waiting-place")
        screenshot(phone, "join-game-queued-phone")
        assert all(p.errors == [] for p in pages)
    finally:
        close_and_settle(quiet, pages)
