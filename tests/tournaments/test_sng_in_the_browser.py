"""A Sit & Go from the lobby to the prize in a browser, in each of the four games (the issue's
acceptance test): a player finds a heads-up Sit & Go in the lobby's Tournaments section,
registers on its page, plays it out from the table page with its own buttons against a bot
(the second entrant, acting through the table service), and reads their place and prize on
the results page; the wallet got exactly the prize, in the payout's one entry, and the ledger
verifies.

Playwright drives Debian's Chromium against daphne (the table's owner deals and settles), the
Redis channel layer and a real Celery worker, on the test database (tests/conftest.py).
"""

import json
import time

import pytest

from cashier.models import Account, Entry
from cashier.selectors import wallet_balance
from cashier.verify import ledger_verify
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat
from tests.factories import GAMES, make_funded_player, make_sit_and_go
from tests.poker.table_page import (
    SMALL_LAPTOP,
    STATE,
    beside_the_browser,
    close_and_settle,
    frames_received,
    horizontal_overflow,
    record_calls,
    screenshot,
)
from tournaments.models import Registration, Tournament

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}
FUNDS = 5_000
BUY_IN, FEE = 1_000, 100
# Two places paid even heads-up, so the browser's player is paid whichever place they take:
# 65% and 35% of the $20 pool.
PRIZES = {1: 1_300, 2: 700}

# What the test does next at the table, read from the page's own state: "over" once the
# page's player has a place; "mine:<hand>:<turn>" when the page offers its player this turn's
# actions; "bot:<hand>:<turn>" when the bot's seat is to act; false while nothing is to do
# (or the turn is the one handled last).
NEXT_AT_THE_TABLE = """([me, bot, handled]) => {
  const s = window.tablePage && window.tablePage.state();
  if (!s || !s.table) return false;
  const sng = s.table.tournament;
  if (sng && sng.places.some((p) => p.player.id === me)) return "over";
  const hand = s.hand;
  if (!hand || hand.result || !hand.to_act) return false;
  const key = hand.id + ":" + hand.turn;
  if (key === handled) return false;
  const legal = hand.legal_actions;
  if (s.you && hand.to_act === s.you.seat && legal && legal.seat === s.you.seat) {
    return "mine:" + key;
  }
  return hand.to_act === bot ? "bot:" + key : false;
}"""


def all_in_or_call(page, hand: dict) -> None:
    """The page's player puts every chip in when they may (All-in, or the raise at its
    most: fixed limit's one size, pot limit's Max), else calls, else checks."""
    legal = hand["legal_actions"]
    if page.locator("#actions:not([hidden]) #act-all-in:not([hidden])").is_visible():
        page.click("#actions:not([hidden]) #act-all-in:not([disabled])")
    elif legal.get("raise") or legal.get("bet"):
        span = legal.get("raise") or legal.get("bet")
        if span["max"] > span["min"]:  # pot limit with room to size: the most
            page.click("#actions:not([hidden]) #preset-max")
        page.click("#actions:not([hidden]) #act-raise:not([disabled])")
    elif legal.get("call"):
        page.click("#actions:not([hidden]) #act-call:not([disabled])")
    else:
        page.click("#actions:not([hidden]) #act-check:not([disabled])")


def bot_calls(*, hand_id: int, turn: int, bot) -> None:
    """The bot calls or checks at `turn` of the hand, through the table service, unless the
    hand has moved on (the page's view trails the database, never leads it)."""
    hand = Hand.objects.select_related("table").get(pk=hand_id)
    if hand.status != Hand.Status.RUNNING or hand.turn != turn:
        return
    legal = EngineHand.from_dict(hand.state).legal_actions()
    action = "call" if legal.call else "check"
    services.table_act(
        table=hand.table, player=bot, action=action, amount=None, turn=turn, seq=turn
    )


def page_trace(page) -> str:
    """What the page had when a wait ran out: its state and the last frames it received."""
    state = page.evaluate(STATE)
    frames = page.evaluate("window.testCalls.received.slice(-15)")
    return json.dumps(state, indent=1)[:6000] + "\n--- last frames:\n" + "\n".join(frames)


def play_to_the_end(page, *, me, bot_seat: int, bot, seconds: float = 60) -> int:
    """Play the Sit & Go out from the page, the bot answering; the decisions the page made."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    handled, decisions = "", 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            handle = page.wait_for_function(
                NEXT_AT_THE_TABLE, arg=[me.pk, bot_seat, handled], timeout=20_000
            )
        except PlaywrightTimeout:
            pytest.fail("the page waited in vain for its next turn:\n" + page_trace(page))
        todo = handle.json_value()
        if todo == "over":
            return decisions
        who, hand_id, turn = todo.split(":")
        handled = f"{hand_id}:{turn}"
        if who == "mine":
            all_in_or_call(page, page.evaluate(f"{STATE}.hand"))
            decisions += 1
        else:
            beside_the_browser(bot_calls, hand_id=int(hand_id), turn=int(turn), bot=bot)
    pytest.fail("the Sit & Go did not end in time:\n" + page_trace(page))


def heads_up_turbo(game: str):
    """A heads-up Sit & Go of `game`, $10 + $1, 40 chips at 10/20 (fixed limit: a 20 small
    bet), paying 65/35: it is over in a hand or a few."""
    fields = GAMES[game]
    return make_sit_and_go(
        name="Heads-up turbo",
        game=fields["game"],
        structure=fields.get("structure", "pot-limit"),
        seats=2,
        buy_in=BUY_IN,
        fee=FEE,
        starting_chips=40,
        blind_levels=[{"small_blind": 10, "big_blind": 20, "ante": 0, "minutes": 10}],
        payouts=[{"min_entrants": 2, "max_entrants": 2, "percents": [65, 35]}],
        action_seconds=20,
    )


def register_from_the_lobby(page, sng) -> None:
    """The lobby's Tournaments section lists the Sit & Go; its page takes the registration."""
    page.goto("/#tournaments")
    row = f'#tournaments tr[data-tournament="{sng.pk}"]'
    assert page.text_content(f"{row} .sng-registered") == "0/2"
    page.click(f"{row} a.sng-page")
    page.wait_for_selector(f'#sit-and-go[data-tournament="{sng.pk}"]')
    page.click("#sit-and-go button.sng-register")
    page.wait_for_selector("#sit-and-go button.sng-unregister")


def results_read(page, player, registration, game: str) -> None:
    """The Sit & Go's page shows the player's place and prize, readable wide and narrow."""
    page.click("#tournament-link")
    page.wait_for_selector('#sit-and-go[data-status="finished"]')
    result = f'#sng-players tr[data-player="{player.pk}"]'
    assert page.text_content(f"{result} .sng-place").strip() == str(registration.place)
    prize = f"${registration.prize // 100}.{registration.prize % 100:02d}"
    assert page.text_content(f"{result} .sng-prize").strip() == prize
    screenshot(page, f"sit-and-go-result-{game}-desktop")
    assert horizontal_overflow(page) <= 0
    page.set_viewport_size(PHONE)
    screenshot(page, f"sit-and-go-result-{game}-phone")
    assert horizontal_overflow(page) <= 0


def usd(cents: int, *, signed: bool = False) -> str:
    """Cents as the pages write them in English: 1300 -> $13.00; a result signed: +$2.00."""
    sign = "-" if cents < 0 else "+" if cents > 0 and signed else ""
    return f"{sign}${abs(cents) // 100}.{abs(cents) % 100:02d}"


def my_tournaments_read(page, registration) -> None:
    """My tournaments lists the finished Sit & Go with the player's place, prize and net (the
    prize less the buy-in and fee), the totals the same for this one entry."""
    page.goto("/tournaments/mine/")
    row = f'#my-sit-and-gos tr[data-tournament="{registration.tournament_id}"]'
    cells = [cell.strip() for cell in page.locator(f"{row} td.amount").all_text_contents()]
    net = registration.prize - BUY_IN - FEE
    assert cells == [
        f"{usd(BUY_IN)}+{usd(FEE)}",
        f"{registration.place}/2",
        usd(registration.prize),
        usd(net, signed=True),
    ]
    assert page.text_content("#sng-net").strip() == usd(net, signed=True)


def closed_table_read(page, table, game: str) -> None:
    """The table's page opened again after the end: its socket is told `table_closed` (then
    4404) and the page says the Sit & Go is over, linking its results, wide and narrow, in
    every language."""
    words = {
        "en": "This Sit & Go is over",
        "fr": "Ce Sit & Go est terminé",
        "ja": "このSit & Goは終了し",
    }
    closed = {"en": "Table closed", "fr": "Table fermée", "ja": "テーブル終了"}
    for viewport, size in ((SMALL_LAPTOP, "desktop"), (PHONE, "phone")):
        page.set_viewport_size(viewport)
        for language, said in words.items():
            page.evaluate(f"document.cookie = 'django_language={language}; path=/'")
            page.goto(f"/tables/{table.pk}/")
            page.wait_for_selector("#notice-results")
            assert page.text_content("#notice").startswith(said)
            assert page.text_content("#conn") == closed[language]
            screenshot(page, f"sit-and-go-table-closed-{game}-{size}-{language}")
            assert horizontal_overflow(page) <= 0, (size, language)
    page.evaluate("document.cookie = 'django_language=en; path=/'")
    page.set_viewport_size(SMALL_LAPTOP)


def assert_paid_exactly(sng, players) -> None:
    """The payout's one entry: the pool's leg out, a wallet's leg in for each place's prize;
    each wallet is its funds less the buy-in and fee plus that prize; the ledger verifies."""
    sng.refresh_from_db()
    assert sng.status == Tournament.Status.FINISHED
    payout = Entry.objects.get(pk=sng.payout_entry_id)
    assert payout.reason == Entry.Reason.TOURNAMENT_PAYOUT
    legs = {
        (leg.account.kind, leg.account.owner_id): leg.amount
        for leg in payout.postings.select_related("account")
    }
    prizes = {r.player_id: r.prize for r in Registration.objects.filter(tournament=sng)}
    assert sorted(prizes.values()) == sorted(PRIZES.values())
    assert legs == {
        (Account.Kind.TOURNAMENT_POOL, None): -2 * BUY_IN,
        **{(Account.Kind.WALLET, player_id): prize for player_id, prize in prizes.items()},
    }
    for player in players:
        assert wallet_balance(player=player) == FUNDS - BUY_IN - FEE + prizes[player.pk]
    assert ledger_verify().ok


@pytest.mark.parametrize("game", list(GAMES))
def test_a_player_finds_registers_plays_and_is_paid_by_a_sit_and_go(
    game, signed_in_page, celery_worker_process, settings
):
    from tournaments.services import tournament_register

    # The first hand a second after the seats fill, a second between hands: the start runs
    # in this process (the bot's registration fills the table), so these settings hold.
    settings.TOURNAMENT_FIRST_HAND_SECONDS = 1.0
    settings.TOURNAMENT_NEXT_HAND_SECONDS = 1.0
    sng = heads_up_turbo(game)
    alice = make_funded_player("alice", cents=FUNDS)
    bot = make_funded_player("bot", cents=FUNDS)
    page = signed_in_page(alice, SMALL_LAPTOP)
    record_calls(page)
    table = None
    try:
        register_from_the_lobby(page, sng)
        assert wallet_balance(player=alice) == FUNDS - BUY_IN - FEE
        # The bot fills the second seat: the Sit & Go starts; its page links the table.
        beside_the_browser(
            tournament_register, player=bot, tournament=sng, idempotency_key="bot-entry"
        )
        sng.refresh_from_db()
        assert sng.status == Tournament.Status.RUNNING
        table = sng.table
        page.reload()
        page.click("#sng-table-link")
        page.wait_for_selector("#conn.online")
        page.wait_for_selector("#tournament-bar:not([hidden])")
        bot_seat = Seat.objects.get(table=table, player=bot).number
        assert play_to_the_end(page, me=alice, bot_seat=bot_seat, bot=bot) >= 1
        # The table's bar tells the place as it happens (the hand's end's `update`).
        mine = Registration.objects.get(tournament=sng, player=alice)
        assert mine.place in PRIZES and mine.prize == PRIZES[mine.place]
        assert f"You finished {mine.place} of 2" in page.text_content("#tournament-place")
        # The table closed for good: the server says so after the last update and the page
        # stops its socket (no heartbeat comes, so no resync either) and links the results.
        page.wait_for_selector("#notice-results")
        assert frames_received(page, "table_closed") == [
            {"type": "table_closed", "tournament": sng.pk}
        ]
        assert page.get_attribute("#notice-results", "href") == f"/tournaments/{sng.pk}/"
        assert page.get_attribute("#conn", "class").split()[-1] == "stopped"
        assert page.text_content("#conn") == "Table closed"  # closed on purpose, not lost
        assert not page.locator("#seat-controls").is_visible()
        screenshot(page, f"sit-and-go-table-over-{game}-desktop")
        results_read(page, alice, mine, game)
        page.set_viewport_size(SMALL_LAPTOP)
        my_tournaments_read(page, mine)
        closed_table_read(page, table, game)
        assert page.errors == []
    finally:
        if table is not None:
            close_and_settle(table, [page])
        else:
            page.context.close()
    assert_paid_exactly(sng, [alice, bot])
