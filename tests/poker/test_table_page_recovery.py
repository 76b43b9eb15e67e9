"""The table page catches up after its socket went silent (static/js/table.js, "the watchdog").

A real `FLUSHDB` of the channel layer's Redis while two players sit in a hand: the sockets stay
open but fall out of the table's group, so the next action reaches neither page. First with no
heartbeat at all (no beat running), the page notices the silence and asks for a snapshot; then
with Celery beat sending the room's heartbeat, the page sees a version it has not shown.
Either way the player whose turn it is sees their buttons again, and play goes on.
"""

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
    open_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# Silence is noticed after two missed heartbeats plus 2 s (POKER_HEARTBEAT_SECONDS is 1 in
# tests), then the socket re-joins as it answers; with room to spare on a busy machine.
RECOVERY_MS = 15_000


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


def test_a_page_whose_socket_went_silent_catches_up(signed_in_page, celery_worker_factory):
    table = make_table(next_hand_delay_seconds=3600, action_seconds=120)
    players, hand = beside_the_browser(seat_and_deal, table=table)
    pages = {1: signed_in_page(players[1], LAPTOP), 2: signed_in_page(players[2], PHONE)}
    try:
        for page in pages.values():
            open_table(page, table)
        for page in pages.values():
            page.wait_for_function(HAND_STARTED)
        seat = both_catch_up(pages, hand.pk, 1, 5_000)

        # No heartbeat anywhere: the pages notice the silence by themselves.
        channel_layer_flush()
        pages[seat].locator(CHECK_OR_CALL).first.click()
        seat = both_catch_up(pages, hand.pk, 2, RECOVERY_MS)

        # With beat sending the room's heartbeat (and the sweep watching the layer).
        queue = f"recovery-test-{uuid.uuid4().hex[:8]}"
        celery_worker_factory(queue=queue, name="beat", beat=True)
        channel_layer_flush()
        pages[seat].locator(CHECK_OR_CALL).first.click()
        seat = both_catch_up(pages, hand.pk, 3, RECOVERY_MS)

        # Healed: the next action reaches both pages as a plain update.
        pages[seat].locator(CHECK_OR_CALL).first.click()
        both_catch_up(pages, hand.pk, 4, 5_000)
        assert pages[1].errors == [] and pages[2].errors == []
    finally:
        close_and_settle(table, pages.values())
