"""The dealer button is drawn at the table (RULES.md 4, seed 003): the marker sits at
the seat of the hand's button, and moves with it to the next player dealt in."""

import pytest

from poker.models import Hand, Table
from tests.factories import act_for_the_player_to_act, deal_hand, make_seated_player, make_table
from tests.poker.table_page import (
    HAND_AFTER,
    HAND_STARTED,
    LAPTOP,
    PHONE,
    beside_the_browser,
    close_and_settle,
    open_table,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The seat whose place on the page is nearest the dealer marker (the marker is drawn between
# the table's centre and its seat), and how many markers there are.
MARKER = r"""() => {
  const markers = document.querySelectorAll(".dealer");
  if (markers.length !== 1) return { count: markers.length, seat: null };
  const centre = (el) => {
    const box = el.getBoundingClientRect();
    return [box.left + box.width / 2, box.top + box.height / 2];
  };
  const [mx, my] = centre(markers[0]);
  let seat = null, best = Infinity;
  document.querySelectorAll("[id^='seat-']").forEach((node) => {
    if (!/^seat-\d+$/.test(node.id)) return;
    const [sx, sy] = centre(node);
    const distance = Math.hypot(sx - mx, sy - my);
    if (distance < best) { best = distance; seat = Number(node.id.slice(5)); }
  });
  return { count: 1, seat: seat };
}"""
MARKER_AT_BUTTON = f"""() => {{
  const s = window.tablePage && window.tablePage.state();
  if (!s || !s.hand || s.hand.result) return false;
  return ({MARKER})().seat === s.hand.button;
}}"""


def seat_and_deal():
    """Three players at seats 1, 3 and 5 of six, and a hand dealt; its button seat."""
    table = make_table(next_hand_delay_seconds=600)
    players = {n: make_seated_player(table, f"button{n}", n) for n in (1, 3, 5)}
    hand = deal_hand(table)
    return table, players, hand, Table.objects.get(pk=table.pk).button_seat


def fold_around_and_deal_again(hand, players):
    """Everyone but one folds; the next hand is dealt. Its button seat."""
    for _ in range(2):
        act_for_the_player_to_act(hand, players, "fold")
    hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED
    assert deal_hand(hand.table) is not None
    return Table.objects.get(pk=hand.table_id).button_seat


def test_the_dealer_marker_sits_at_the_buttons_seat_and_moves_with_it(signed_in_page):
    table, players, first, button = beside_the_browser(seat_and_deal)
    page = signed_in_page(players[1], LAPTOP)
    open_table(page, table)
    page.wait_for_function(HAND_STARTED)
    page.wait_for_function(MARKER_AT_BUTTON)
    state = page.evaluate("window.tablePage.state()")
    assert state["hand"]["id"] == first.pk and state["hand"]["button"] == button
    assert page.evaluate(MARKER) == {"count": 1, "seat": button}

    moved_to = beside_the_browser(fold_around_and_deal_again, hand=first, players=players)
    page.wait_for_function(HAND_AFTER, arg=first.pk)
    page.wait_for_function(MARKER_AT_BUTTON)
    seats = [1, 3, 5]
    assert moved_to == seats[(seats.index(button) + 1) % 3]  # the next player dealt in
    assert page.evaluate("window.tablePage.state().hand.button") == moved_to
    assert page.evaluate(MARKER) == {"count": 1, "seat": moved_to}
    assert page.errors == []
    close_and_settle(table, [page])


# The boxes of the seat's turn timer and of the dealer marker overlap.
TIMER_UNDER_MARKER = r"""(seat) => {
  const timer = document.querySelector(`#seat-${seat} .timer`);
  const marker = document.querySelector(".dealer");
  const a = timer.getBoundingClientRect(), b = marker.getBoundingClientRect();
  return a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
}"""


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_dealer_marker_leaves_the_turn_timer_in_view(signed_in_page, viewport):
    """The page's own seat sits at the bottom, where the marker is drawn on the name plate: on
    the timer's corner, it hid the seconds left of a button who was first to act."""
    table, players, _, button = beside_the_browser(seat_and_deal)
    page = signed_in_page(players[button], viewport)  # three-handed, the button acts first
    open_table(page, table)
    page.wait_for_function(MARKER_AT_BUTTON)
    page.wait_for_selector(f"#seat-{button} .timer:not([hidden])")
    assert page.evaluate("document.querySelector('.dealer').classList.contains('on-plate')")
    assert not page.evaluate(TIMER_UNDER_MARKER, button)
    assert page.errors == []
    close_and_settle(table, [page])
