"""The hand reader on the table page: from the flop on each player sees their own best high hand
and, in Hi/Lo, their low (or that they have none), in their language, the high's five cards
ringed on the table; a spectator sees none. Three players in English, French and Japanese,
on a laptop and a phone, in Chromium."""

import pytest
from django.utils import translation

from accounts.services import profile_set_language
from config.hand_names import hand_name
from poker.engine.hand import Hand as EngineHand
from poker.engine.reading import read_hand
from poker.models import Hand
from tests.factories import make_funded_player, make_table
from tests.poker.table_page import (
    FUNDS,
    HAND_AFTER,
    HAND_STARTED,
    LAPTOP,
    NEXT_DECISION,
    PHONE,
    STATE,
    YOUR_TURN,
    check_or_call,
    close_and_settle,
    horizontal_overflow,
    one_hand_only,
    open_table,
    screenshot,
    seat_everyone,
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


def play_to(pages: dict, hand_id: int, street: str) -> None:
    """Check or call on the pages until the hand reaches `street`."""
    watcher = next(iter(pages.values()))
    turn = 0
    for _ in range(20):
        watcher.wait_for_function(NEXT_DECISION, arg=[hand_id, turn])
        state = watcher.evaluate(STATE)
        if state["hand"]["street"] == street:
            return
        turn = state["hand"]["turn"]
        actor = pages[state["hand"]["to_act"]]
        actor.wait_for_function(YOUR_TURN, arg=turn)
        check_or_call(actor, {})
    pytest.fail(f"hand {hand_id} did not reach the {street}")


def first_hand_of_all(pages: dict) -> int:
    """The id of the first hand every page's player is dealt into. The first hand is dealt as
    soon as two players sit; on a busy machine the third may sit after it, so a hand of two is
    played out (check or call) and the next one, with all three, is the one to read."""
    watcher = next(iter(pages.values()))
    watcher.wait_for_function(HAND_STARTED)
    for _ in range(3):
        hand = watcher.evaluate(STATE)["hand"]
        if len(hand["seats"]) == len(pages):
            return hand["id"]
        turn = 0
        while True:
            watcher.wait_for_function(NEXT_DECISION, arg=[hand["id"], turn])
            state = watcher.evaluate(STATE)
            if (state["last_result"] or {}).get("hand_id") == hand["id"]:
                break
            turn = state["hand"]["turn"]
            actor = pages[state["hand"]["to_act"]]
            actor.wait_for_function(YOUR_TURN, arg=turn)
            check_or_call(actor, {})
        watcher.wait_for_function(HAND_AFTER, arg=hand["id"])
    pytest.fail("no hand dealt every player in")


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
    if low_name:
        assert box.locator(".low .reading-name").inner_text() == low_name
    else:
        no_low = {"en": "No low", "fr": "Pas de low", "ja": "ローなし"}[language]
        assert box.locator(".no-low").inner_text() == no_low
    label = {"en": "Your hand:", "fr": "Votre main :", "ja": "あなたのハンド\uff1a"}
    assert box.locator(".reading-label").inner_text() == label[language]
    # The high's five cards are ringed: two of the player's own, three of the board.
    ringed = page.locator(".card.in-reading").evaluate_all(
        "cards => cards.map((c) => c.dataset.card)"
    )
    assert sorted(ringed) == sorted(expected["high"]["cards"])
    assert page.locator(f"#seat-{seat} .card.in-reading").count() == 2
    assert page.locator("#board .card.in-reading").count() == 3
    assert horizontal_overflow(page) <= 0


def test_each_player_reads_their_own_hand_from_the_flop_in_their_language(
    signed_in_page, celery_worker_process
):
    # No timer acts for a player while the test reads another page.
    table = make_table(game="omaha8", next_hand_delay_seconds=1.0, action_seconds=3600)
    languages = {1: "en", 2: "fr", 3: "ja"}
    players = {}
    for seat, language in languages.items():
        players[seat] = make_funded_player(f"reader{seat}", cents=FUNDS)
        profile_set_language(user=players[seat], language=language)
    sizes = {1: SMALL_LAPTOP, 2: PHONE, 3: LAPTOP}
    pages = {seat: signed_in_page(player, sizes[seat]) for seat, player in players.items()}
    watcher_page = signed_in_page(make_funded_player("railbird", cents=FUNDS), PHONE)
    try:
        seat_everyone(table, pages)
        open_table(watcher_page, table)
        hand_id = first_hand_of_all(pages)
        one_hand_only(table)
        for page in pages.values():  # preflop: nothing to read
            assert page.locator("#hand-reading").is_hidden()
        play_to(pages, hand_id, "flop")

        engine = EngineHand.from_dict(Hand.objects.with_deck().get(pk=hand_id).state)
        for seat, page in pages.items():
            assert_reads_their_hand(page, seat, engine, languages[seat])
        # The railbird: no reading at all.
        watcher_page.wait_for_function(f"{STATE}.hand && {STATE}.hand.board.length === 3")
        assert watcher_page.evaluate(f"{STATE}.hand.reading") is None
        assert watcher_page.locator("#hand-reading").is_hidden()
        assert watcher_page.locator(".card.in-reading").count() == 0

        # Each page in both sizes, for a person to look at (TABLE_PAGE_SCREENSHOTS).
        for seat, page in pages.items():
            for name, size in (("laptop", SMALL_LAPTOP), ("phone", PHONE)):
                page.set_viewport_size(size)
                assert horizontal_overflow(page) <= 0, (languages[seat], name)
                assert page.locator("#hand-reading").is_visible()
                screenshot(page, f"reading-{languages[seat]}-{name}")

        # On the player's turn at the flop the reading shares the turn's row: at 1366x768 and on
        # a phone every betting and seat control is still in the window without scrolling.
        actor_seat = pages[1].evaluate(f"{STATE}.hand.to_act")
        actor = pages[actor_seat]
        actor.wait_for_function(YOUR_TURN, arg=actor.evaluate(f"{STATE}.hand.turn"))
        for size in (SMALL_LAPTOP, PHONE):
            actor.set_viewport_size(size)
            actor.evaluate("window.scrollTo(0, 0)")
            shown = [c for c in CONTROLS if actor.locator(c).is_visible()]
            assert "#act-raise" in shown and "#hand-reading" in shown
            if size is PHONE:  # the seat controls are below the betting ones, as ever
                shown = [c for c in shown if c.startswith(("#act", "#raise", "#hand"))]
            for control in shown:
                box = actor.locator(control).bounding_box()
                assert inside(box, size), (languages[actor_seat], size, control, box)
            screenshot(actor, f"reading-turn-{languages[actor_seat]}-{size['width']}")

        # The turn: the reading follows the board.
        play_to(pages, hand_id, "turn")
        engine = EngineHand.from_dict(Hand.objects.with_deck().get(pk=hand_id).state)
        page = pages[1]
        page.wait_for_function(READING_SHOWN, arg=4)
        hole = engine.hole_cards[engine.seats.index(1)]
        assert page.evaluate(f"{STATE}.hand.reading") == read_hand(hole, engine.board, hi_lo=True)
    finally:
        close_and_settle(table, [*pages.values(), watcher_page])
