"""What the table page's browser tests share: players' sizes and money, the page's state read
through `window.tablePage.state()`, sitting down, playing a hand out by clicking, and checking
the cashier against what the page shows.
"""

import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connection

from cashier.models import Account
from cashier.selectors import table_stack_balance, wallet_balance
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat, Table
from tests.factories import (
    act_for_the_player_to_act,
)

FUNDS = 100_000  # $1,000 in each wallet
BUY_IN = 10_000  # $100, the table's maximum
PHONE = {"width": 390, "height": 844}
LAPTOP = {"width": 1280, "height": 860}
SCREENSHOTS = os.environ.get("TABLE_PAGE_SCREENSHOTS")  # a folder, to look at the pages

# Clickable only when shown and usable; Playwright waits for that itself.
CHECK_OR_CALL = (
    "#actions:not([hidden]) #act-check:not([hidden]):not([disabled]), "
    "#actions:not([hidden]) #act-call:not([hidden]):not([disabled])"
)
STATE = "window.tablePage.state()"
HAND_STARTED = """() => {
  const s = window.tablePage && window.tablePage.state();
  return Boolean(s && s.hand && s.hand.id);
}"""
# A hand running other than `handId` (the one before it).
HAND_AFTER = """(handId) => {
  const s = window.tablePage && window.tablePage.state();
  return Boolean(s && s.hand && s.hand.id !== handId && !s.hand.result);
}"""
HAND_OVER = """(handId) => {
  const s = window.tablePage && window.tablePage.state();
  return Boolean(s && s.last_result && s.last_result.hand_id === handId);
}"""
NEXT_DECISION = """([handId, turn]) => {
  const s = window.tablePage && window.tablePage.state();
  if (!s) return false;
  if (s.last_result && s.last_result.hand_id === handId) return true;
  return Boolean(s.hand && s.hand.id === handId && s.hand.to_act && s.hand.turn > turn);
}"""
# This page's player is to act at `turn`: its frame carries their legal actions.
YOUR_TURN = """(turn) => {
  const s = window.tablePage && window.tablePage.state();
  const hand = s && s.hand;
  return Boolean(hand && !hand.result && hand.turn === turn && hand.legal_actions &&
    hand.legal_actions.seat === s.you.seat);
}"""

# What the page sends and receives on its sockets and the addresses it fetches, recorded as it
# happens (set up before the page's own scripts run; a frame received is recorded in the same
# event as the page handles it): a test waits until the page has handled something, then reads
# here that it sent nothing, with no wait for a server that might answer late.
RECORD_CALLS = """(() => {
  const calls = { sent: [], received: [], fetched: [] };
  window.testCalls = calls;
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (event) => calls.received.push(String(event.data)));
    }
  };
  const send = Native.prototype.send;
  Native.prototype.send = function (data) {
    calls.sent.push(String(data));
    return send.call(this, data);
  };
  const fetch = window.fetch;
  window.fetch = function (resource, options) {
    calls.fetched.push(String(resource instanceof Request ? resource.url : resource));
    return fetch.call(this, resource, options);
  };
})();"""


def record_calls(page) -> None:
    """Record the page's socket frames and fetches (`frames_sent`, `frames_received`,
    `fetched`) from its next load on."""
    page.add_init_script(RECORD_CALLS)


FRAMES_OF_KIND = """([list, kind]) => window.testCalls[list]
  .map((text) => JSON.parse(text)).filter((frame) => frame.type === kind)"""


def frames_sent(page, kind: str) -> list[dict]:
    """The frames of type `kind` the page has sent so far (see `record_calls`)."""
    return page.evaluate(FRAMES_OF_KIND, ["sent", kind])


def frames_received(page, kind: str) -> list[dict]:
    """The frames of type `kind` the page has received and handled so far (`record_calls`)."""
    return page.evaluate(FRAMES_OF_KIND, ["received", kind])


def wait_for_frames_received(page, kind: str, count: int) -> None:
    """Wait until the page has received and handled `count` frames of type `kind` in all."""
    page.wait_for_function(
        f"(arg) => ({FRAMES_OF_KIND})(arg).length >= arg[2]", arg=["received", kind, count]
    )


def fetched(page, part: str) -> list[str]:
    """The addresses containing `part` the page has fetched so far (see `record_calls`)."""
    return page.evaluate(
        "(part) => window.testCalls.fetched.filter((url) => url.includes(part))", part
    )


def open_table(page, table) -> None:
    page.goto(f"/tables/{table.pk}/")
    page.wait_for_selector("#conn.online")


def sit(page, seat: int, buy_in: int) -> None:
    page.click(f"#seat-{seat} .sit-here")
    page.fill("#sit-buy-in", f"{buy_in / 100:.2f}")
    page.click("#sit-confirm")
    page.wait_for_selector(f"#seat-{seat}.me")


def seat_everyone(table, pages: dict) -> None:
    """Open the table on every page, then sit each page's player at its seat (the dict key)
    with the maximum buy-in."""
    for page in pages.values():
        open_table(page, table)
    for seat, page in pages.items():
        sit(page, seat, BUY_IN)


def one_hand_only(table) -> None:
    """Keep the next hand from starting while the test looks at this one's result."""
    Table.objects.filter(pk=table.pk).update(next_hand_delay_seconds=600)


def close_and_settle(table, pages, *, elsewhere: tuple[int, ...] = ()) -> None:
    """Close the pages, then wait until the server has seen every seated socket go. A goodbye
    or request still running when the test ends meets the flush's lock, which runs the flush
    again if PostgreSQL picks it to break a deadlock (tests/conftest.py). `elsewhere`: seats a
    test marked connected with no socket (a player playing through the services), which stay
    so and are not waited for."""
    for page in pages:
        page.context.close()
    deadline = time.monotonic() + 10
    connected = Seat.objects.filter(table=table, connected=True).exclude(number__in=elsewhere)
    while connected.exists():
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)


def beside_the_browser(function, **kwargs):
    """Call a service in a thread of its own: Playwright's event loop runs in this one, and a
    service's broadcast after commit (async_to_sync) cannot run beside it."""

    def call():
        try:
            return function(**kwargs)
        finally:
            connection.close()

    with ThreadPoolExecutor(1) as thread:
        return thread.submit(call).result()


def horizontal_overflow(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - window.innerWidth")


def screenshot(page, name: str) -> None:
    if SCREENSHOTS:
        page.screenshot(path=str(Path(SCREENSHOTS) / f"{name}.png"), full_page=True)


def money(cents: int) -> str:
    """Cents as the page writes them: "$3", "$1.50", "$1,000"."""
    dollars = f"${abs(cents) // 100:,}" + (f".{abs(cents) % 100:02d}" if cents % 100 else "")
    return "-" + dollars if cents < 0 else dollars


def check_or_call(page, hand: dict) -> None:
    page.locator(CHECK_OR_CALL).first.click()


def play_hand(
    pages: dict, hand_id: int, choose: Callable[[object, dict], None] = check_or_call
) -> dict:
    """Play hand `hand_id` to its end by clicking. `pages` maps seat numbers to the players'
    pages; at each decision `choose(page, hand)` clicks on the page of the seat to act, `hand`
    being that page's own view (its legal actions included). The first page follows the hand
    and must not reload. Returns the hand's `last_result` as that page shows it."""
    watcher = next(iter(pages.values()))
    turn = 0
    for _ in range(40):
        watcher.wait_for_function(NEXT_DECISION, arg=[hand_id, turn])
        state = watcher.evaluate(STATE)
        if state["last_result"] and state["last_result"]["hand_id"] == hand_id:
            return state["last_result"]
        turn = state["hand"]["turn"]
        actor = pages[state["hand"]["to_act"]]
        actor.wait_for_function(YOUR_TURN, arg=turn)  # its own frame for this turn is in
        choose(actor, actor.evaluate(f"{STATE}.hand"))
    pytest.fail(f"hand {hand_id} did not end within 40 decisions")


def table_rake_balance(table) -> int:
    account = Account.objects.filter(kind=Account.Kind.TABLE_RAKE, table=table).first()
    return account.balance if account else 0


def assert_ledger_agrees(table, players: dict, result: dict, *, rake: int) -> None:
    """The cashier agrees with the page's `result` of the last hand: each seat's stack as the
    page shows it, the table's rake account holding `rake` (every hand's so far), and nothing
    created or lost. `players` maps seats to players, each funded with FUNDS."""
    finals = {entry["seat"]: entry["final_stack"] for entry in result["seats"]}
    assert finals == {
        seat: table_stack_balance(player=players[seat], table=table) for seat in finals
    }
    assert table_rake_balance(table) == rake
    money_held = sum(
        wallet_balance(player=p) + table_stack_balance(player=p, table=table)
        for p in players.values()
    )
    assert money_held + rake == len(players) * FUNDS


class FrameTamper:
    """Forwards the server's frames to the page; once armed, keeps back the first frame of the
    versioned `kind` (a poker table's `update`, a live Showdown table's `state`) and delivers
    it after the next one (`swap`) or never (`drop`).

    Playwright relays the two frames of a swap one by one; on a busy machine they reached the
    page more than the page's gap wait apart (static/js/table_socket.js GAP_WAIT_MS), and the
    page rightly asked for the one it had not seen. So the page's timers stand still while the
    tamper is armed (Playwright's clock, installed by `route` before the page loads): frames
    still arrive, and only the wait for a missing one is held until `timers_resume`."""

    def __init__(self, kind: str = "update") -> None:
        self.kind = kind
        self.mode: str | None = None
        self.kept: str | None = None
        self.page = None

    def install(self, page, url_pattern) -> None:
        """Before the page loads: its clock, and the route of its table socket."""
        page.clock.install()
        page.route_web_socket(url_pattern, self.route)
        self.page = page

    def arm(self, mode: str) -> None:
        """Hold the page's timers, then start keeping back the next frame of `kind`."""
        from playwright.sync_api import Error

        # In seconds (Playwright's Python API), a moment on from the page's time now; the page's
        # time may pass it before the call arrives on a busy machine ("cannot fast-forward to
        # the past"): then a moment on from its new time.
        for _ in range(20):
            try:
                self.page.clock.pause_at((self.page.evaluate("Date.now()") + 20) / 1000)
                break
            except Error as error:
                if "to the past" not in str(error):
                    raise
        else:
            pytest.fail("the page's clock ran past every time it was paused at")
        self.mode = mode

    def timers_resume(self) -> None:
        self.page.clock.resume()

    def route(self, socket) -> None:
        server = socket.connect_to_server()
        server.on_message(lambda message: self.from_server(socket, message))

    def from_server(self, socket, message) -> None:
        if self.mode is None or json.loads(message).get("type") != self.kind:
            socket.send(message)
            return
        if self.kept is None:
            self.kept = message
            return
        socket.send(message)
        if self.mode == "swap":
            socket.send(self.kept)
        self.mode = None


def relayed_all(tamper: FrameTamper, page, seconds: float = 30) -> None:
    """Until the tamper has passed on the frame after the one it keeps back (Playwright runs
    the relay while the test waits in one of its calls)."""
    deadline = time.monotonic() + seconds
    while tamper.mode is not None:
        assert time.monotonic() < deadline, "the frame after the kept one never came"
        page.wait_for_timeout(20)


def to_act(hand: Hand) -> int:
    hand.refresh_from_db()
    return EngineHand.from_dict(hand.state).to_act


def opponent_acts(hand: Hand, players: dict, action: str, amount=None) -> None:
    """The player to act (not the page's) does `action` through the service."""
    beside_the_browser(
        act_for_the_player_to_act, hand=hand, players=players, action=action, amount=amount
    )


SMALL_LAPTOP = {"width": 1366, "height": 768}
