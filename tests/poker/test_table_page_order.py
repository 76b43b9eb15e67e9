"""The table page applies update v only after v-1 (static/js/table.js, docs/protocol.md
"Versions and resync").

Broadcasts from different server processes may cross on the way to a page. An update that
skips a version waits a moment for the one it follows, and is applied right after it; when
that one never comes the page asks for what it missed (`resync` since the version it shows),
never for the whole state. Playwright stands between the page and the server
(`page.route_web_socket`) and delivers the table's frames out of order, or drops one.
"""

import re

import pytest

from poker.models import Hand, Table
from tests.factories import act_for_the_player_to_act, deal_hand, make_seated_player, make_table
from tests.poker.table_page import (
    HAND_STARTED,
    LAPTOP,
    FrameTamper,
    beside_the_browser,
    close_and_settle,
    frames_sent,
    open_table,
    record_calls,
    relayed_all,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOWN_VERSION = "(version) => window.tablePage.state().version >= version"


def act_twice(table, players: dict) -> int:
    """The players to act call in turn, twice (two updates); the table's version after."""
    hand = Hand.objects.get(table=table, status=Hand.Status.RUNNING)
    for _ in range(2):
        beside_the_browser(act_for_the_player_to_act, hand=hand, players=players, action="call")
    return Table.objects.get(pk=table.pk).version


def seat_and_deal():
    """Three players in a hand and a fourth watching from seat 6 (services on their own
    thread: Playwright's loop runs in the test's)."""
    table = make_table(next_hand_delay_seconds=600)
    players = {n: make_seated_player(table, f"order{n}", n) for n in (1, 2, 3)}
    deal_hand(table)
    return table, players, make_seated_player(table, "watcher", 6)


@pytest.mark.parametrize("mode", ["swap", "drop"])
def test_updates_that_cross_are_applied_in_order(signed_in_page, mode):
    table, players, viewer = beside_the_browser(seat_and_deal)
    page = signed_in_page(viewer, LAPTOP)
    record_calls(page)
    tamper = FrameTamper()
    tamper.install(page, re.compile(r"/ws/tables/"))
    open_table(page, table)
    page.wait_for_function(HAND_STARTED)
    before = page.evaluate("window.tablePage.state().version")
    tamper.arm(mode)
    version = act_twice(table, players)
    assert version == before + 2
    if mode == "swap":
        page.wait_for_function(SHOWN_VERSION, arg=version)  # Playwright relays frames meanwhile
        assert frames_sent(page, "resync") == [], "the crossed update came: nothing to ask"
        tamper.timers_resume()
    else:
        relayed_all(tamper, page)
        assert frames_sent(page, "resync") == [], "asked before its wait ran out"
        tamper.timers_resume()
        page.wait_for_function(SHOWN_VERSION, arg=version)
        assert frames_sent(page, "resync") == [{"type": "resync", "since": before}]
    assert tamper.mode is None, "the first update was kept back"
    state = page.evaluate("window.tablePage.state()")
    assert state["hand"]["turn"] == Hand.objects.get(table=table, status="running").turn
    assert frames_sent(page, "snapshot") == []
    assert page.errors == []
    close_and_settle(table, [page])
