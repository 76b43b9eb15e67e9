"""The replayer in Debian's Chromium against a real daphne: a hand stepped through street by
street and action by action, with buttons and keys, to its showdown; the stacks it ends on are
the hand's; a phone has no sideways scroll. HISTORY_SCREENSHOTS=<dir> keeps screenshots."""

import os
import re
from pathlib import Path

import pytest
from django.test import Client

from tests.factories import call_down, deal_hand, make_seated_player
from tests.histories.conftest import game_table
from tests.sweep import DECK

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LAPTOP = {"width": 1366, "height": 768}
PHONE = {"width": 390, "height": 844}


def screenshot(page, name: str) -> None:
    folder = os.environ.get("HISTORY_SCREENSHOTS")
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(folder) / f"{name}.png"), full_page=True)


# Records when the replayer's position changes (performance.now(), ms).
STEP_TIMES = """() => {
  window.stepTimes = [];
  new MutationObserver(() => window.stepTimes.push(performance.now())).observe(
    document.getElementById("replay-position"),
    {childList: true, characterData: true, subtree: true},
  );
}"""


# How many steps the replayer plays by itself at the fast speed, to the end of the hand: the
# median of their gaps is the speed, though a busy machine holds back one step or two.
PLAYED = 6


def board_size(page) -> int:
    return page.locator("#replay-board .card").count()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_player_steps_through_their_hand_to_the_showdown(signed_in_page, viewport):
    table = game_table("omaha8-pot-limit")
    # Names as long as players choose: the players' list must not overflow a phone.
    names = ((1, "annunziata_long"), (2, "bartholomew_big"))
    players = {n: make_seated_player(table, name, n) for n, name in names}
    hand = call_down(deal_hand(table, DECK), players)
    steps = hand.events.count()
    page = signed_in_page(players[2], viewport)
    try:
        page.goto(f"/hands/{hand.pk}/")
        page.wait_for_selector("#replay-seats .replay-seat")
        assert page.inner_text("#replay-position").endswith(f"1 of {steps}")
        assert board_size(page) == 0
        page.click("#replay-street-next")  # to the flop
        assert board_size(page) == 3 and "flop" in page.inner_text("#replay-step")
        # The flop's cards as every other screen writes them ("10♦"), not as codes ("Td").
        flop = page.inner_text("#replay-step")
        assert re.search("[♠♥♦♣]", flop) and not re.search(r"\b[2-9TJQKA][shdc]\b", flop), flop
        page.keyboard.press("PageDown")  # the turn
        assert board_size(page) == 4
        page.keyboard.press("ArrowLeft")
        assert board_size(page) == 3
        page.keyboard.press("ArrowRight")
        assert board_size(page) == 4
        page.keyboard.press("End")
        assert page.inner_text("#replay-position").endswith(f"{steps} of {steps}")
        assert "over" in page.inner_text("#replay-step")
        finals = {e["seat"]: e["final_stack"] for e in hand.result["seats"]}
        for seat, stack in finals.items():
            shown = page.inner_text(f'.replay-seat[data-seat="{seat}"] .replay-stack')
            assert shown == f"${stack // 100:,}.{stack % 100:02d}", (seat, shown)
        # Ben's own cards face up from the deal; Ann's only if she showed them.
        assert page.locator('.replay-seat[data-seat="2"] .card[data-card]').count() == 4
        page.keyboard.press("Home")
        assert page.inner_text("#replay-position").endswith(f"1 of {steps}")
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= viewport["width"], f"sideways scroll: {width}px"
        screenshot(page, f"hand-{'phone' if viewport is PHONE else 'laptop'}")
        page.keyboard.press("End")
        screenshot(page, f"hand-end-{'phone' if viewport is PHONE else 'laptop'}")
        page.goto("/hands/")
        assert page.locator(f'tr[data-hand="{hand.pk}"]').count() == 1
        screenshot(page, f"my-hands-{'phone' if viewport is PHONE else 'laptop'}")
        assert page.errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_the_replayer_plays_by_itself_and_the_results_page_fits(signed_in_page, viewport):
    """The replayer plays at the chosen speed and stops at the end (or when
    another control is used); "My results" draws its graph with no sideways scroll."""
    table = game_table("omaha-pot-limit")
    players = {n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
    hand = call_down(deal_hand(table, DECK), players)
    call_down(deal_hand(table), players)
    steps = hand.events.count()
    page = signed_in_page(players[2], viewport)
    kind = "phone" if viewport is PHONE else "laptop"
    try:
        page.goto(f"/hands/{hand.pk}/")
        page.wait_for_selector("#replay-seats .replay-seat")
        # Every step drawn once, a click each (a step that fails to draw is a page error),
        # then back to the last PLAYED steps, which it plays by itself: the pace is the
        # same from any step, and waiting it out over the whole hand was 8 s a viewport.
        position = "document.getElementById('replay-position').textContent"
        for _ in range(steps - 1):
            page.click("#replay-next")
        assert page.inner_text("#replay-position").endswith(f"{steps} of {steps}")
        for _ in range(PLAYED):
            page.click("#replay-back")
        assert page.inner_text("#replay-position").endswith(f"{steps - PLAYED} of {steps}")
        page.select_option("#replay-speed", "400")
        page.evaluate(STEP_TIMES)
        page.click("#replay-play")
        assert page.get_attribute("#replay-play", "aria-pressed") == "true"
        page.wait_for_function(
            f"{position}.includes('{steps} of {steps}')", timeout=PLAYED * 400 + 30_000
        )
        # At the chosen speed: a step every 0.4 s, not the normal 1 s (the median, as a busy
        # machine may hold back one step or two).
        gaps = page.evaluate(
            "window.stepTimes.slice(1).map((t, k) => t - window.stepTimes[k]).sort((a, b) => a - b)"
        )
        assert len(gaps) >= PLAYED - 1 and 300 <= gaps[len(gaps) // 2] < 800, gaps
        page.wait_for_function(
            "document.getElementById('replay-play').getAttribute('aria-pressed') === 'false'"
        )
        page.click("#replay-play")  # at the end: from the start again
        page.wait_for_function(f"!{position}.includes('{steps} of')")
        page.click("#replay-back")  # any other control stops it
        stopped_at = page.inner_text("#replay-position")
        page.wait_for_timeout(1_200)
        assert page.inner_text("#replay-position") == stopped_at
        assert page.get_attribute("#replay-play", "aria-pressed") == "false"
        screenshot(page, f"replayer-play-{kind}")
        page.goto("/hands/results/")
        page.wait_for_selector("#profit-graph polyline.net")
        assert page.locator("#sessions tbody tr").count() == 1
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= viewport["width"], f"sideways scroll: {width}px"
        screenshot(page, f"my-results-{kind}")
        page.goto("/hands/")
        page.wait_for_selector("td.hole-cards .card")
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= viewport["width"], f"sideways scroll on My hands: {width}px"
        screenshot(page, f"my-hands-{kind}")
        assert page.errors == []
    finally:
        page.context.close()


@pytest.mark.parametrize("viewport", [LAPTOP, PHONE], ids=["laptop", "phone"])
def test_a_visitor_follows_a_share_link_and_replays_the_hand(chromium, asgi_server, viewport):
    """The link copied from a hand page opens for a visitor (no account)
    with the replayer, the sharer's cards and nothing the sharer's history hides (the other
    player's cards unless shown), no downloads and no share link of its own; it fits a phone."""
    from poker.engine.hand import Hand as EngineHand
    from tests.sweep import cards_in

    table = game_table("omaha-pot-limit")
    players = {n: make_seated_player(table, name, n) for n, name in ((1, "ann"), (2, "ben"))}
    hand = call_down(deal_hand(table, DECK), players)
    engine = EngineHand.from_dict(hand.state)
    holes = dict(zip(engine.seats, (set(c) for c in engine.hole_cards), strict=True))
    shown = {e["seat"] for e in engine.result["showdown"] if e.get("shown")}
    client = Client()
    client.force_login(players[2], backend="django.contrib.auth.backends.ModelBackend")
    own = client.get(f"/hands/{hand.pk}/").content.decode()
    link = re.search(r'value="([^"]+)" id="share-url"', own).group(1)
    path = "/hands/shared/" + link.split("/hands/shared/", 1)[1]
    visitor = chromium.new_context(viewport=viewport, base_url=asgi_server)
    try:
        page = visitor.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(path)
        page.wait_for_selector("#replay-seats .replay-seat")
        assert page.is_visible("#shared-note")
        # Nothing only the hand's players may use: downloads, a link of its own, the deal
        # check (a visitor got a login page, then a 404).
        assert page.locator("#hand-downloads, #share-url, a[href*='/fairness/']").count() == 0
        page.keyboard.press("End")
        assert "over" in page.inner_text("#replay-step")
        seen = cards_in(page.content())
        assert holes[2] <= seen
        if 1 not in shown:
            assert not holes[1] & seen
        width = page.evaluate("document.scrollingElement.scrollWidth")
        assert width <= viewport["width"], f"sideways scroll: {width}px"
        screenshot(page, f"shared-{'phone' if viewport is PHONE else 'laptop'}")
        assert errors == []
    finally:
        visitor.close()


# The amounts of the hand page whose text spans more than one line: every seat's stack and
# bet in the replayer, its pot, and the amounts of the players' and pots' tables.
AMOUNTS_SPLIT = """() => {
  const amounts = document.querySelectorAll(
    ".replay-stack, .replay-bet, .replay-pot, #hand-seats td.amount, #hand-pots td.amount, " +
    "#hand-pots .money");
  const lines = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return new Set([...range.getClientRects()].filter((r) => r.width > 0)
      .map((r) => Math.round(r.bottom))).size;
  };
  return {count: amounts.length,
          split: [...amounts].filter((el) => lines(el) > 1).map((el) => el.textContent)};
}"""


def test_a_japanese_phone_writes_each_amount_of_a_hand_on_one_line(signed_in_page):
    """Not "100.00ド" above "ル", on the replayer's seats and in the pot table."""
    from accounts.services import profile_set_language

    table = game_table("omaha-pot-limit")
    names = ((1, "annunziata_long"), (2, "bartholomew_big"), (3, "cyprianus_tall"))
    players = {n: make_seated_player(table, name, n) for n, name in names}
    hand = call_down(deal_hand(table, DECK), players)
    profile_set_language(user=players[2], language="ja")
    page = signed_in_page(players[2], PHONE)
    try:
        page.goto(f"/hands/{hand.pk}/")
        page.wait_for_selector("#replay-seats .replay-seat")
        assert page.get_attribute("html", "lang") == "ja"
        for _ in range(4):  # the deal, the streets and the showdown
            found = page.evaluate(AMOUNTS_SPLIT)
            assert found["count"] >= 6 and found["split"] == [], found
            screenshot(page, f"hand-ja-phone-{_}")
            page.click("#replay-street-next")
        assert page.errors == []
    finally:
        page.context.close()
