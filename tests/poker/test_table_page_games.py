"""Hand after hand of every game in two browsers (the issue's acceptance test): two players sit,
bet, raise and call with the page's own controls, one reloads mid-hand and carries on, one sits
out and back in, and after every hand the cashier agrees with what the pages show.

Playwright drives Debian's Chromium against daphne, the Redis channel layer and a real Celery
worker, on the test database (tests/conftest.py).
"""

import pytest

from poker.models import Seat
from tests.factories import GAMES, default_rake_schedule_row, make_funded_player, make_table
from tests.poker.table_page import (
    FUNDS,
    HAND_AFTER,
    HAND_OVER,
    HAND_STARTED,
    LAPTOP,
    PHONE,
    STATE,
    YOUR_TURN,
    assert_ledger_agrees,
    check_or_call,
    close_and_settle,
    money,
    one_hand_only,
    play_hand,
    seat_everyone,
)

pytestmark = [
    pytest.mark.browser,
    pytest.mark.django_db(transaction=True),
]


def bet_or_raise(page, hand: dict) -> int:
    """Bet or raise with the page's sizing controls, as a player would; returns the amount
    (the street total). Fixed limit has one size and no sizing controls. Pot limit: a raise
    is pot-sized from the Pot button, a bet half-way between the minimum and the pot typed in
    the dollar box."""
    legal = hand["legal_actions"]
    kind = "bet" if legal["bet"] else "raise"
    span = legal[kind]
    if hand["structure"] == "limit":
        assert span["min"] == span["max"]
        assert page.locator("#sizing").is_hidden()
        amount = span["min"]
    elif kind == "raise":
        page.click("#actions:not([hidden]) #preset-pot")
        amount = span["max"]
        assert page.input_value("#raise-amount") == f"{amount / 100:.2f}"
    else:
        amount = max(span["min"], (span["min"] + span["max"]) // 2 // 100 * 100)
        page.fill("#raise-amount", f"{amount / 100:.2f}")
        page.press("#raise-amount", "Tab")  # the box takes the amount when left
    button = page.locator("#act-raise")
    label = ("Bet " if kind == "bet" else "Raise to ") + money(amount)
    assert button.inner_text() == label
    button.click()
    return amount


def hand_now(page) -> dict:
    return page.evaluate(f"{STATE}.hand")


def my_cards(page) -> list[str]:
    state = page.evaluate(STATE)
    mine = next(s for s in state["hand"]["seats"] if s["seat"] == state["you"]["seat"])
    return mine["cards"]


def cards_shown(page, seat: int) -> list[str]:
    return page.locator(f"#seat-{seat} .hole .card").evaluate_all(
        "cards => cards.map((card) => card.dataset.card || null)"
    )


def wait_for_hand_end(pages: dict, hand_id: int) -> None:
    for page in pages.values():
        page.wait_for_function(HAND_OVER, arg=hand_id)
        page.locator("#result").wait_for(state="visible")


@pytest.mark.parametrize("game", list(GAMES))
def test_two_players_play_hand_after_hand_with_a_reload_and_a_sit_out(
    game, signed_in_page, celery_worker_process
):
    # Twenty seconds to act, counted down from the first second on (RULES.md 6 says 30 and 20).
    table = make_table(
        next_hand_delay_seconds=1.0,
        action_seconds=20,
        countdown_seconds=19,
        rake_schedule=default_rake_schedule_row(GAMES[game].get("structure", "pot-limit")),
        **GAMES[game],
    )
    alice = make_funded_player("alice", cents=FUNDS)
    bob = make_funded_player("bob", cents=FUNDS)
    players = {1: alice, 2: bob}
    laptop, phone = signed_in_page(alice, LAPTOP), signed_in_page(bob, PHONE)
    pages = {1: laptop, 2: phone}  # the laptop follows each hand; the phone reloads
    try:
        seat_everyone(table, pages)
        first, rake = _raise_preflop_bet_flop_check_down(table, players, pages)
        second, rake = _sit_out_then_reload_on_the_flop(table, players, pages, first, rake)
        _sit_in_and_fold_at_once(table, players, pages, first, second, rake)
        assert laptop.errors == [] and phone.errors == []
    finally:
        close_and_settle(table, pages.values())


def _raise_preflop_bet_flop_check_down(table, players, pages) -> tuple[dict, int]:
    """Hand 1: the button raises preflop and is called, the big blind bets the flop and is
    called, then both check it down to a showdown. Returns the hand and its rake."""
    laptop = pages[1]
    laptop.wait_for_function(HAND_STARTED)
    first = hand_now(laptop)
    bets: dict[str, int] = {}

    def raise_preflop_bet_flop(page, hand):
        if hand["street"] in ("preflop", "flop") and hand["street"] not in bets:
            bets[hand["street"]] = bet_or_raise(page, hand)
        else:
            check_or_call(page, hand)

    result = play_hand(pages, first["id"], raise_preflop_bet_flop)
    wait_for_hand_end(pages, first["id"])
    assert len(result["showdown"]) == 2
    assert sum(pot["amount"] for pot in result["pots"]) == 2 * sum(bets.values())
    assert result["rake"] > 0  # a flop was dealt and the pot is over the first step
    assert_ledger_agrees(table, players, result, rake=result["rake"])
    for page in pages.values():
        log = page.inner_text("#log")
        assert f"raises to {money(bets['preflop'])}" in log
        assert f"bets {money(bets['flop'])}" in log
        assert " with " in page.inner_text("#result")  # the winning hand is named
    return first, result["rake"]


def _sit_out_then_reload_on_the_flop(table, players, pages, first, rake) -> tuple[dict, int]:
    """Hand 2 starts by itself, the button on the other seat (heads-up it alternates). The
    laptop sits out from the next hand and plays this one on. The phone reloads on its flop
    decision: the fresh page shows its cards and its countdown, and it checks. Returns the hand
    and the rake of both hands."""
    laptop, phone = pages[1], pages[2]
    laptop.wait_for_function(HAND_AFTER, arg=first["id"])
    second = hand_now(laptop)
    assert second["number"] == first["number"] + 1
    assert second["button"] != first["button"]
    laptop.click("#sit-out")
    for page in pages.values():
        page.wait_for_selector("#seat-1[data-status='sitting_out']")
    reloaded = []

    def reload_on_the_flop(page, hand):
        if page is phone and hand["street"] == "flop" and not reloaded:
            cards = my_cards(phone)
            assert cards_shown(phone, 2) == cards
            phone.reload()
            phone.wait_for_selector("#conn.online")
            phone.wait_for_function(YOUR_TURN, arg=hand["turn"])
            reloaded.append(hand_now(phone))
            assert reloaded[0]["id"] == second["id"]
            assert my_cards(phone) == cards
            assert cards_shown(phone, 2) == cards
            assert phone.locator("#seat-2.me.to-act").count() == 1
            phone.locator("#seat-2 .timer:not([hidden])").wait_for()
            laptop.locator("#seat-2 .timer:not([hidden])").wait_for()
        check_or_call(page, hand)

    result = play_hand(pages, second["id"], reload_on_the_flop)
    wait_for_hand_end(pages, second["id"])
    assert reloaded, "the phone never reloaded"
    # The old page's socket going did not outlast the new one's coming: bob is connected.
    assert Seat.objects.get(table=table, number=2).connected
    assert laptop.evaluate(f"{STATE}.seats[1].connected") is True
    assert laptop.locator("#seat-2.disconnected").count() == 0
    assert_ledger_agrees(table, players, result, rake=rake + result["rake"])
    for page in pages.values():
        assert page.inner_text("#table-message") == "Waiting for players"
        assert page.evaluate(f"{STATE}.hand") is None
    return second, rake + result["rake"]


def _sit_in_and_fold_at_once(table, players, pages, first, second, rake) -> None:
    """Back in: hand 3 starts with the button back on hand 1's seat; the first to act folds."""
    laptop = pages[1]
    laptop.click("#sit-in")
    laptop.wait_for_function(HAND_AFTER, arg=second["id"])
    one_hand_only(table)
    third = hand_now(laptop)
    assert third["button"] == first["button"]
    folder = pages[third["to_act"]]
    folder.wait_for_function(YOUR_TURN, arg=third["turn"])
    folder.click("#actions:not([hidden]) #act-fold:not([disabled])")
    wait_for_hand_end(pages, third["id"])
    result = laptop.evaluate(f"{STATE}.last_result")
    assert "uncontested" in laptop.inner_text("#result")
    assert_ledger_agrees(table, players, result, rake=rake + result["rake"])
