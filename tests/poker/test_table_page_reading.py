"""The hand reader on the table page: from the flop on each player sees their own best high hand
and, in Hi/Lo, their low (or that they have none), in their language, the high's five cards
ringed on the table; a spectator sees none. Three players in English, French and Japanese,
on a laptop and a phone, in Chromium."""

import pytest
from django.utils import translation

from accounts.services import profile_set_language
from config.hand_names import hand_name
from poker.engine.cards import FULL_DECK
from poker.engine.hand import Hand as EngineHand
from poker.engine.reading import read_hand
from poker.models import Hand
from tests.factories import call_down, deal_hand, make_funded_player, make_seated_player, make_table
from tests.poker.table_page import (
    FUNDS,
    HAND_STARTED,
    LAPTOP,
    PHONE,
    STATE,
    beside_the_browser,
    check_or_call,
    close_and_settle,
    horizontal_overflow,
    open_table,
    screenshot,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]

# 1366x768, the laptop the brief names, beside the tests' usual sizes.
SMALL_LAPTOP = {"width": 1366, "height": 768}
READING_SHOWN = """(board) => {
  const s = window.tablePage && window.tablePage.state();
  const box = document.getElementById("hand-reading");
  return Boolean(s && s.hand && s.hand.board.length === board && !box.hidden);
}"""

# This page's player is to act at the flop: its frame carries their legal actions.
YOUR_TURN_AT_THE_FLOP = """() => {
  const s = window.tablePage && window.tablePage.state();
  const hand = s && s.hand;
  return Boolean(hand && !hand.result && hand.board.length === 3 && hand.legal_actions &&
    hand.legal_actions.seat === s.you.seat);
}"""

CONTROLS = (
    "#hand-reading",
    "#act-fold",
    "#act-check",
    "#act-call",
    "#act-raise",
    "#raise-amount",
    "#raise-slider",
    "#sit-out",
    "#leave",
    "#seat-options",
)


def inside(box: dict | None, viewport: dict) -> bool:
    return bool(
        box
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= viewport["width"]
        and box["y"] + box["height"] <= viewport["height"]
    )


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def assert_reads_their_hand(page, seat: int, engine: EngineHand, language: str) -> None:
    """The page shows its player's reading of their own cards on the board, in their language,
    the high's five cards ringed on the table."""
    try:
        page.wait_for_function(READING_SHOWN, arg=3)
    except Exception:
        pytest.fail(f"seat {seat}: {page.evaluate(STATE)['hand']}")
    hole = engine.hole_cards[engine.seats.index(seat)]
    expected = read_hand(hole, engine.board, hi_lo=True)
    assert page.evaluate(f"{STATE}.hand.reading") == expected
    with translation.override(language):
        high_name = capitalised(hand_name(expected["high"]))
        low_name = capitalised(hand_name(expected["low"])) if expected["low"] else None
    box = page.locator("#hand-reading")
    assert box.locator(".high .reading-name").inner_text() == high_name
    assert box.locator(".high .card").evaluate_all(
        "cards => cards.map((c) => c.dataset.card)"
    ) == list(expected["high"]["cards"])
    no_low = {"en": "No low", "fr": "Pas de low", "ja": "ローなし"}[language]
    if low_name:
        assert box.locator(".low .reading-name").inner_text() == low_name
    else:
        assert box.locator(".no-low").inner_text() == no_low
    label = {"en": "Your hand:", "fr": "Votre main :", "ja": "あなたのハンド\uff1a"}
    assert box.locator(".reading-label").inner_text() == label[language]
    # In full in the title, where a line cuts a long name short.
    words = [high_name, low_name or no_low]
    assert box.get_attribute("title") == f"{label[language]} {' · '.join(words)}"
    # The high's five cards are ringed: two of the player's own, three of the board.
    ringed = page.locator(".card.in-reading").evaluate_all(
        "cards => cards.map((c) => c.dataset.card)"
    )
    assert sorted(ringed) == sorted(expected["high"]["cards"])
    assert page.locator(f"#seat-{seat} .card.in-reading").count() == 2
    assert page.locator("#board .card.in-reading").count() == 3
    assert horizontal_overflow(page) <= 0


# The longest readings the flop can give (Hi/Lo, a low beside the high): 3h 4h 5h on the board;
# seat 1 (English) and seat 2 (French) two pair, fours and threes, and an 8-5-4-3-A low; seat 3
# (Japanese) a straight flush, seven high, and a 7-6-5-4-3 low. Seat 3 draws the 6h for the
# button, so seats 1, 2 and 3 are dealt in that order and act in it after the flop.
HOLES = {1: ["4d", "3d", "As", "8s"], 2: ["4c", "3c", "Ad", "8d"], 3: ["6h", "7h", "Kc", "Ks"]}
FLOP = ["3h", "4h", "5h"]


def long_readings_deck() -> list[str]:
    dealt = [HOLES[seat][k] for k in range(4) for seat in (1, 2, 3)]
    burn = "2c"
    named = [*dealt, burn, *FLOP]
    return named + [card for card in FULL_DECK if card not in named]


def test_each_player_reads_their_own_hand_from_the_flop_in_their_language(signed_in_page):
    languages = {1: "en", 2: "fr", 3: "ja"}
    # No timer acts for a player while the test reads another page.
    table = make_table(game="omaha8", next_hand_delay_seconds=3600, action_seconds=3600)

    def seat_and_deal():
        players = {}
        for seat, language in languages.items():
            players[seat] = make_seated_player(table, f"reader{seat}", seat)
            profile_set_language(user=players[seat], language=language)
        return players, deal_hand(table, long_readings_deck())

    players, hand = beside_the_browser(seat_and_deal)
    sizes = {1: SMALL_LAPTOP, 2: PHONE, 3: LAPTOP}
    pages = {seat: signed_in_page(player, sizes[seat]) for seat, player in players.items()}
    watcher_page = signed_in_page(make_funded_player("railbird", cents=FUNDS), PHONE)
    try:
        for page in [*pages.values(), watcher_page]:
            open_table(page, table)
            page.wait_for_function(HAND_STARTED)
        for page in pages.values():  # preflop: nothing to read
            assert page.locator("#hand-reading").is_hidden()
        beside_the_browser(call_down, hand=hand, players=players, until_street="flop")

        engine = EngineHand.from_dict(Hand.objects.with_deck().get(pk=hand.pk).state)
        assert engine.seats == [1, 2, 3]
        assert engine.hole_cards == [HOLES[seat] for seat in engine.seats]
        readings = [read_hand(HOLES[seat], engine.board, hi_lo=True) for seat in (1, 2, 3)]
        assert [r["high"]["category"] for r in readings] == ["two pair"] * 2 + ["straight flush"]
        assert all(r["low"] for r in readings)
        for seat, page in pages.items():
            assert_reads_their_hand(page, seat, engine, languages[seat])
        # The railbird: no reading at all.
        watcher_page.wait_for_function(f"{STATE}.hand && {STATE}.hand.board.length === 3")
        assert watcher_page.evaluate(f"{STATE}.hand.reading") is None
        assert watcher_page.locator("#hand-reading").is_hidden()
        assert watcher_page.locator(".card.in-reading").count() == 0

        # On each player's turn at the flop the reading shares the turn's row: at 1366x768 and on
        # a phone, every betting and seat control is still in the window without scrolling, the
        # longest readings too. Each page in both sizes, for a person to look at
        # (TABLE_PAGE_SCREENSHOTS).
        for seat, page in pages.items():
            page.wait_for_function(YOUR_TURN_AT_THE_FLOP)
            for size in (SMALL_LAPTOP, PHONE):
                page.set_viewport_size(size)
                page.evaluate("window.scrollTo(0, 0)")
                screenshot(page, f"reading-turn-{languages[seat]}-{size['width']}")
                assert horizontal_overflow(page) <= 0, (languages[seat], size)
                shown = [c for c in CONTROLS if page.locator(c).is_visible()]
                assert "#act-raise" in shown and "#hand-reading" in shown
                if size is PHONE:  # the seat controls are below the betting ones, as ever
                    shown = [c for c in shown if c.startswith(("#act", "#raise", "#hand"))]
                for control in shown:
                    box = page.locator(control).bounding_box()
                    assert inside(box, size), (languages[seat], size, control, box)
            check_or_call(page, {})

        # The turn: the reading follows the board.
        page = pages[1]
        page.wait_for_function(READING_SHOWN, arg=4)
        engine = EngineHand.from_dict(Hand.objects.with_deck().get(pk=hand.pk).state)
        hole = engine.hole_cards[engine.seats.index(1)]
        assert page.evaluate(f"{STATE}.hand.reading") == read_hand(hole, engine.board, hi_lo=True)
        assert all(page.errors == [] for page in pages.values())
    finally:
        close_and_settle(table, [*pages.values(), watcher_page])
