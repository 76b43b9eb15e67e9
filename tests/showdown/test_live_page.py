"""The live table page in Debian's Chromium against a real daphne: two players (a laptop and
a phone) sit, place wagers, see their own cards and only the backs of the other's, decide, and
see one board settle both; the wallets shown match the ledger. Its `state` frames are shown in
version order, as a poker table's updates are (static/js/table_socket.js). Set
SHOWDOWN_SCREENSHOTS=<dir> to keep screenshots."""

import os
import re
from pathlib import Path

import pytest

from cashier.selectors import wallet_balance
from cashier.verify import ledger_verify
from showdown.live import live_seat_take
from showdown.models import ShowdownRound, ShowdownTable
from tests.factories import make_funded_player, make_showdown_table
from tests.poker.table_page import (
    FrameTamper,
    beside_the_browser,
    frames_sent,
    record_calls,
    relayed_all,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


def screenshot(page, name: str, *, full_page: bool = True) -> None:
    folder = os.environ.get("SHOWDOWN_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"live-{name}.png"), full_page=full_page)


DECISION_IN_VIEW = """(() => {
  const box = document.getElementById("sdl-decide").getBoundingClientRect();
  return box.top >= 0 && box.bottom <= window.innerHeight;
})()"""


def faces(page, seat: int) -> list[str]:
    return page.eval_on_selector_all(
        f'.sdl-seat[data-seat="{seat}"] .card[data-card]', "cards => cards.map(c => c.dataset.card)"
    )


def backs(page, seat: int) -> int:
    return page.locator(f'.sdl-seat[data-seat="{seat}"] .card.back').count()


def test_two_players_play_a_round_at_the_live_table(signed_in_page):
    table = make_showdown_table(seats=7, bet_seconds=60, action_seconds=60)
    ann, bob = make_funded_player("ann"), make_funded_player("bob")
    pages = {"ann": signed_in_page(ann, LAPTOP), "bob": signed_in_page(bob, PHONE)}
    try:
        for page in pages.values():
            page.goto(f"/showdown/live/{table.pk}/")
            page.wait_for_selector(".sdl-sit")
            # Not seated: nothing to wager or decide, so no empty panel beside the table.
            assert not page.is_visible("#sdl-controls")
        pages["ann"].click('.sdl-seat[data-seat="1"] .sdl-sit')
        pages["ann"].wait_for_selector("#sdl-wager:not([hidden])")
        assert pages["ann"].is_visible("#sdl-controls")
        pages["bob"].wait_for_function(
            "() => !document.querySelector('.sdl-seat[data-seat=\"1\"] .sdl-sit')"
        )
        pages["bob"].click('.sdl-seat[data-seat="4"] .sdl-sit')
        pages["bob"].wait_for_selector("#sdl-wager:not([hidden])")
        pages["ann"].fill("#sdl-wager [name=ante]", "abc")
        pages["ann"].click("#sdl-wager button")
        assert "write an amount" in pages["ann"].inner_text("#sdl-message")
        pages["ann"].fill("#sdl-wager [name=ante]", "10")
        pages["ann"].fill("#sdl-wager [name=final_hand_bonus]", "1")
        pages["ann"].click("#sdl-wager button")
        pages["ann"].wait_for_function(
            "() => document.getElementById('sdl-phase').textContent.startsWith('Betting')"
        )
        assert pages["ann"].inner_text("#sdl-countdown").startswith("Cards in")
        screenshot(pages["ann"], "laptop-betting")
        pages["bob"].click("#sdl-wager button")  # the table's minimum Ante, $5
        for page in pages.values():
            page.wait_for_selector("#sdl-board .card")
        # Each sees their own four cards face up and the other's four backs, nothing more.
        assert len(faces(pages["ann"], 1)) == 4 and backs(pages["ann"], 4) == 4
        assert faces(pages["ann"], 4) == [] and faces(pages["bob"], 1) == []
        assert len(faces(pages["bob"], 4)) == 4 and backs(pages["bob"], 1) == 4
        pages["ann"].wait_for_selector("#sdl-decide:not([hidden])")
        # The round's commitment shows from its deal on.
        for page in pages.values():
            page.wait_for_selector("#sdl-commitment:not([hidden])")
        pages["bob"].wait_for_selector("#sdl-decide:not([hidden])")
        # Fold, Call and Raise in full view as the cards come, without scrolling (on a phone
        # too, not starting at the bottom edge).
        for page in pages.values():
            assert page.evaluate(DECISION_IN_VIEW), page.viewport_size
        pages["bob"].set_viewport_size({"width": 390, "height": 600})  # a smaller phone
        assert pages["bob"].evaluate(DECISION_IN_VIEW)
        pages["bob"].set_viewport_size(PHONE)
        screenshot(pages["ann"], "laptop-deciding")
        screenshot(pages["bob"], "phone-deciding")
        screenshot(pages["bob"], "phone-deciding-view", full_page=False)
        ann_cards = faces(pages["ann"], 1)
        pages["ann"].keyboard.press("r")
        pages["bob"].click('#sdl-decide [data-decision="fold"]')
        for page in pages.values():
            page.wait_for_function(
                "() => document.getElementById('sdl-phase').textContent.startsWith('Round settled')"
            )
        assert faces(pages["bob"], 1) == ann_cards
        assert len(pages["bob"].locator("#sdl-board .card[data-card]").all()) == 5
        screenshot(pages["ann"], "laptop-settled")
        screenshot(pages["bob"], "phone-settled")
        rounds = {r.player.username: r for r in ShowdownRound.objects.select_related("player")}
        assert rounds["ann"].decision == "raise" and rounds["bob"].decision == "fold"
        for name, player in (("ann", ann), ("bob", bob)):
            shown = pages[name].inner_text("#sdl-wallet")
            cents = wallet_balance(player=player)
            assert shown == f"${cents // 100:,}.{cents % 100:02d}"
        assert pages["bob"].evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        assert ledger_verify().ok
        assert all(not page.errors for page in pages.values())
    finally:
        for page in pages.values():
            page.context.close()


def test_a_seat_left_after_a_settled_round_is_offered_at_once(signed_in_page, monkeypatch):
    """A player who left after the round settled frees the seat on the page
    straight away, not at the next round."""
    from showdown import services
    from showdown.live import live_decide, live_seat_leave, live_seat_take, live_wagers_place
    from tests.showdown.play import live_deck

    deck = live_deck(["AsKs2c3d", "2d7c4s8c"], "QsJsTs4h9c")
    monkeypatch.setattr(services, "deck_shuffle", lambda randbelow: list(deck))
    table = make_showdown_table(seats=7, bet_seconds=60, action_seconds=60)
    ann, bob, cat = (make_funded_player(name) for name in ("ann", "bob", "cat"))
    for seat, player in ((1, ann), (2, bob)):
        live_seat_take(player=player, table_id=table.pk, seat=seat)
    for player in (ann, bob):
        live_wagers_place(
            player=player,
            table_id=table.pk,
            ante=500,
            hole_card_bonus=0,
            final_hand_bonus=0,
            idempotency_key=f"w{player.pk}",
        )
    for player in (ann, bob):
        live_decide(
            player=player, table_id=table.pk, decision="call", idempotency_key=f"d{player.pk}"
        )
    live_seat_leave(player=ann, table_id=table.pk)
    page = signed_in_page(cat, PHONE)
    page.goto(f"/showdown/live/{table.pk}/")
    page.wait_for_selector('.sdl-seat[data-seat="2"] .sdl-status')
    assert page.locator('.sdl-seat[data-seat="1"] .sdl-sit').count() == 1
    assert page.locator('.sdl-seat[data-seat="2"] .sdl-sit').count() == 0
    page.click('.sdl-seat[data-seat="1"] .sdl-sit')
    page.wait_for_selector("#sdl-wager:not([hidden])")
    assert page.errors == []


# Seats 1 and 2 taken: no "Sit here" in them any more.
SEATED = """() => [1, 2].every((n) =>
  !document.querySelector(`.sdl-seat[data-seat="${n}"] .sdl-sit`))"""


@pytest.mark.parametrize("mode", ["swap", "drop"])
def test_state_frames_that_cross_are_shown_in_order(signed_in_page, mode):
    """Two changes whose `state` frames cross on the way: the later one waits for the earlier
    (no resync); one that never comes is asked for once, since the version shown."""
    table = make_showdown_table(seats=7, bet_seconds=60, action_seconds=60)
    ann, bob, cat = (make_funded_player(name) for name in ("ann", "bob", "cat"))
    page = signed_in_page(cat, LAPTOP)
    try:
        record_calls(page)
        tamper = FrameTamper("state")
        tamper.install(page, re.compile(r"/ws/showdown/"))
        page.goto(f"/showdown/live/{table.pk}/")
        page.wait_for_selector(".sdl-sit")
        before = ShowdownTable.objects.get(pk=table.pk).version
        tamper.arm(mode)
        for seat, player in ((1, ann), (2, bob)):
            beside_the_browser(live_seat_take, player=player, table_id=table.pk, seat=seat)
        assert ShowdownTable.objects.get(pk=table.pk).version == before + 2
        if mode == "swap":
            page.wait_for_function(SEATED)  # Playwright relays frames meanwhile
            assert frames_sent(page, "resync") == [], "the crossed frame came: nothing to ask"
            tamper.timers_resume()
        else:
            relayed_all(tamper, page)
            assert frames_sent(page, "resync") == [], "asked before its wait ran out"
            tamper.timers_resume()
            page.wait_for_function(SEATED)
            assert frames_sent(page, "resync") == [{"type": "resync", "since": before}]
        assert tamper.mode is None, "the first state frame was kept back"
        assert frames_sent(page, "snapshot") == []
        assert page.errors == []
    finally:
        page.context.close()


def rects_overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


# What of each seat shows on the screen: its box clipped to the felt's (a scrolling area).
SEATS_SHOWN = """() => {
  const felt = document.querySelector(".sdl-felt").getBoundingClientRect();
  return [...document.querySelectorAll(".sdl-seat")].filter((s) => s.offsetParent).map((s) => {
    const r = s.getBoundingClientRect();
    const top = Math.max(r.top, felt.top, 0);
    const bottom = Math.min(r.bottom, felt.bottom, innerHeight);
    return {seat: s.dataset.seat, x: r.left, width: r.width, y: top,
            height: Math.max(0, bottom - top)};
  });
}"""


@pytest.mark.parametrize("language", ["en", "fr", "ja"])
def test_seven_seats_deciding_overlap_nothing(signed_in_page, language):
    """A full table deciding, each seat with both side bets: at 1366x768 no seat's box covers
    another's (seat 1's "deciding…" and wagers were under seat 2's, worst in Japanese); on a
    phone Fold, Call and Raise cover no seat; the side bets' abbreviations are explained."""
    from accounts.services import profile_set_language
    from showdown.live import live_wagers_place

    table = make_showdown_table(seats=7, bet_seconds=60, action_seconds=60)
    players = [make_funded_player(f"player_number_{n}") for n in range(1, 8)]
    for n, player in enumerate(players, start=1):
        live_seat_take(player=player, table_id=table.pk, seat=n)
    for player in players:
        live_wagers_place(
            player=player, table_id=table.pk, ante=1500, hole_card_bonus=1000,
            final_hand_bonus=2500, idempotency_key=f"w{player.pk}",
        )  # fmt: skip
    profile_set_language(user=players[2], language=language)
    for viewport in (LAPTOP, PHONE):
        page = signed_in_page(players[2], viewport)
        try:
            page.goto(f"/showdown/live/{table.pk}/")
            page.wait_for_selector("#sdl-decide:not([hidden])")
            page.wait_for_timeout(300)  # the scroll to the table
            size = f"{viewport['width']}x{viewport['height']}"
            screenshot(page, f"seven-deciding-{language}-{size}", full_page=False)
            seats = page.evaluate(SEATS_SHOWN)
            assert len(seats) == 7
            if viewport is LAPTOP:
                for k, a in enumerate(seats):
                    for b in seats[k + 1 :]:
                        assert not rects_overlap(a, b), (a, b)
            else:
                bar = page.locator("#sdl-controls").bounding_box()
                assert page.evaluate(DECISION_IN_VIEW)
                for seat in seats:
                    if seat["height"]:
                        assert not rects_overlap(seat, bar), (seat, bar)
            legend = page.inner_text("#sdl-legend")
            if language != "ja":  # Japanese writes the side bets in full
                abbr = page.locator('.sdl-seat[data-seat="1"] abbr').first
                assert abbr.get_attribute("title") in legend and abbr.inner_text() in legend
            assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
            assert page.errors == []
        finally:
            page.context.close()
