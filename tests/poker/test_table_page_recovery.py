"""The table page catches up after its socket went silent (static/js/table.js, "the watchdog").

Two players sit in a hand. Playwright stands between each page and the server
(`page.route_web_socket`) and, once armed, swallows everything the server sends (a socket that
stays open and hears nothing), or only the next update (a frame lost on the way, with nothing
after it to show a gap). First with no heartbeat at all (no beat running), the page notices
the silence and asks for what it missed (`resync`); then with Celery beat sending the room's
heartbeat, the page sees a version it has not shown and asks the same. Either way the player
whose turn it is sees their buttons again, and play goes on. A real `FLUSHDB` of the channel
layer's Redis changes nothing for the pages: their groups are subscriptions of the server.
"""

import json
import re
import uuid

import pytest

from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Table
from tests.factories import channel_layer_flush, make_seated_player, make_table
from tests.poker.table_page import (
    CHECK_OR_CALL,
    HAND_STARTED,
    LAPTOP,
    PHONE,
    YOUR_TURN,
    beside_the_browser,
    close_and_settle,
    frames_sent,
    open_table,
    record_calls,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Silence is noticed after two missed heartbeats plus 2 s (POKER_HEARTBEAT_SECONDS is 1 in
# tests); with room to spare on a busy machine (15 s ran out with three suites at load 20).
RECOVERY_MS = 30_000


class Silencer:
    """Forwards the server's frames to the page, except while armed: `"all"` swallows every
    frame until the page sends `resync` (then forwards its answer and everything after),
    `"update"` swallows the next `update` alone, `"act"` the page's next `act` (it never
    reaches the server)."""

    def __init__(self) -> None:
        self.mode: str | None = None
        self.acts_dropped = self.acts_passed = 0

    def route(self, socket) -> None:
        server = socket.connect_to_server()
        server.on_message(lambda message: self.from_server(socket, message))
        socket.on_message(lambda message: self.from_page(server, message))

    def from_server(self, socket, message) -> None:
        if self.mode == "all":
            return
        if self.mode == "update" and json.loads(message).get("type") == "update":
            self.mode = None
            return
        socket.send(message)

    def from_page(self, server, message) -> None:
        kind = json.loads(message).get("type")
        if self.mode == "all" and kind == "resync":
            self.mode = None
        if self.mode == "act" and kind == "act":
            self.mode = None
            self.acts_dropped += 1
            return
        self.acts_passed += kind == "act"
        server.send(message)


TURN_SHOWN = """(turn) => {
  const s = window.tablePage && window.tablePage.state();
  return Boolean(s && s.hand && s.hand.turn >= turn);
}"""


def seat_and_deal(table) -> tuple[dict, object]:
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    Table.objects.filter(pk=table.pk).update(next_hand_at=None)
    return players, services.table_hand_start(table=table)


def to_act(hand_id: int) -> int:
    return EngineHand.from_dict(Hand.objects.get(pk=hand_id).state).to_act


def both_catch_up(pages: dict, hand_id: int, turn: int, timeout: int) -> int:
    """Both pages show `turn`, and the player to act has their buttons; returns that seat."""
    for page in pages.values():
        page.wait_for_function(TURN_SHOWN, arg=turn, timeout=timeout)
    seat = to_act(hand_id)
    pages[seat].wait_for_function(YOUR_TURN, arg=turn, timeout=timeout)
    return seat


def pages_open(pages: dict, silencers: dict, table, hand_id: int) -> int:
    """Each page opens the table through its silencer and shows the hand's first turn;
    returns the seat to act."""
    for number, page in pages.items():
        record_calls(page)
        page.route_web_socket(re.compile(r"/ws/tables/"), silencers[number].route)
        open_table(page, table)
    for page in pages.values():
        page.wait_for_function(HAND_STARTED)
    return both_catch_up(pages, hand_id, 1, 5_000)


def test_a_page_whose_socket_went_silent_catches_up(signed_in_page, celery_worker_factory):
    table = make_table(next_hand_delay_seconds=3600, action_seconds=120)
    players, hand = beside_the_browser(seat_and_deal, table=table)
    pages = {1: signed_in_page(players[1], LAPTOP), 2: signed_in_page(players[2], PHONE)}
    silencers = {n: Silencer() for n in pages}
    try:
        seat = pages_open(pages, silencers, table, hand.pk)

        # No heartbeat anywhere, the sockets silent: the pages notice it by themselves.
        for silencer in silencers.values():
            silencer.mode = "all"
        pages[seat].locator(CHECK_OR_CALL).first.click()
        seat = both_catch_up(pages, hand.pk, 2, RECOVERY_MS)
        assert all(frames_sent(page, "resync") for page in pages.values())

        # With beat sending the room's heartbeat: an update lost, nothing after it but beats.
        queue = f"recovery-test-{uuid.uuid4().hex[:8]}"
        celery_worker_factory(queue=queue, name="beat", beat=True)
        for silencer in silencers.values():
            silencer.mode = "update"
        pages[seat].locator(CHECK_OR_CALL).first.click()
        seat = both_catch_up(pages, hand.pk, 3, RECOVERY_MS)

        # Redis losing its data: the next action reaches both pages as a plain update.
        beside_the_browser(channel_layer_flush)
        pages[seat].locator(CHECK_OR_CALL).first.click()
        both_catch_up(pages, hand.pk, 4, 5_000)
        for page in pages.values():
            assert frames_sent(page, "snapshot") == []
            assert page.errors == []
    finally:
        close_and_settle(table, pages.values())


def test_an_action_the_table_never_answers_is_shown_and_can_be_made_again(signed_in_page):
    """The page's action is lost on the way: the buttons wait for the answer, then the player
    is told the table did not answer and chooses again; the second click plays."""
    table = make_table(next_hand_delay_seconds=3600, action_seconds=120)
    players, hand = beside_the_browser(seat_and_deal, table=table)
    pages = {1: signed_in_page(players[1], LAPTOP), 2: signed_in_page(players[2], PHONE)}
    silencers = {n: Silencer() for n in pages}
    try:
        seat = pages_open(pages, silencers, table, hand.pk)
        page = pages[seat]
        silencers[seat].mode = "act"
        page.locator(CHECK_OR_CALL).first.click()
        page.wait_for_function(
            "() => document.querySelector('#act-check, #act-call') && "
            "[...document.querySelectorAll('#act-check, #act-call')].every((b) => b.disabled "
            "|| b.hidden)"
        )
        assert silencers[seat].acts_dropped == 1
        page.wait_for_function(
            "() => [...document.querySelectorAll('#toasts .toast.error')].some("
            "(t) => t.textContent.includes('did not answer your action'))",
            timeout=20_000,
        )
        page.wait_for_function(YOUR_TURN, arg=1, timeout=5_000)
        page.locator(CHECK_OR_CALL).first.click()
        both_catch_up(pages, hand.pk, 2, 10_000)
        assert silencers[seat].acts_dropped == 1 and silencers[seat].acts_passed == 1
        for shown in pages.values():
            assert shown.errors == []
    finally:
        close_and_settle(table, pages.values())
