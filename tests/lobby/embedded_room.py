"""The embedded room as `make run` starts it, for the tests of tests/lobby/test_runroom.py:
`runroom` in a subprocess on a free port, demo players logged in over HTTP, their table
sockets (tests/factories.py), and a turn played as a page plays it."""

import asyncio
import json
import random
import re
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from collections import Counter
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

from lobby.management.commands.seed_demo import DEMO_PASSWORD
from tests.factories import WireShowdownSocket, WireTableSocket

REPO_ROOT = Path(__file__).resolve().parents[2]
BUY_IN = 10_000  # 100 big blinds at the demo's $0.50/$1 pot-limit tables


def manage(*args: str, env: dict, log: Path) -> subprocess.Popen:
    with open(log, "a") as out:
        return subprocess.Popen(
            [sys.executable, "manage.py", *args],
            cwd=REPO_ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# A room on a new data folder makes and migrates it before it serves (some 10 s on a quiet
# machine, the showdown paytables' figures computed included); the bound is for two loaded
# cores. A room that exits stops the wait at once.
SERVING_SECONDS = 300


def wait_until_serving(base_url: str, room: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + SERVING_SECONDS
    while True:
        try:
            with urllib.request.urlopen(f"{base_url}/healthz", timeout=2) as response:
                assert json.loads(response.read())["mode"] == "embedded"
                return
        except OSError:
            if room.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"runroom did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)


def room_start(env: dict, log: Path) -> tuple[subprocess.Popen, int]:
    """`manage.py runroom` on a free port as `make run` starts it, once it serves."""
    port = free_port()
    room = manage("runroom", f"127.0.0.1:{port}", env=env, log=log)
    try:
        wait_until_serving(f"http://127.0.0.1:{port}", room, log)
    except BaseException:
        room_stop(room)
        raise
    return room, port


def room_stop(room: subprocess.Popen) -> None:
    """SIGTERM, as a supervisor stops it: the room exits and stops its database server."""
    room.terminate()
    try:
        room.wait(timeout=30)
    except subprocess.TimeoutExpired:
        room.kill()
        room.wait()


def log_in(base_url: str, username: str) -> str:
    """Log in through the login form as a browser does; returns the session cookie."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    form = opener.open(f"{base_url}/accounts/login/", timeout=10).read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form)[1]
    data = {"username": username, "password": DEMO_PASSWORD, "csrfmiddlewaretoken": token}
    opener.open(f"{base_url}/accounts/login/", urllib.parse.urlencode(data).encode(), timeout=10)
    cookies = {cookie.name: cookie.value for cookie in jar}
    assert "sessionid" in cookies, f"{username} could not log in"
    return f"sessionid={cookies['sessionid']}"


def first_table_id(base_url: str, cookie: str, name: str) -> int:
    """The id of the demo table called `name`, from the lobby page's link to it."""
    request = urllib.request.Request(f"{base_url}/", headers={"Cookie": cookie})
    lobby = urllib.request.urlopen(request, timeout=10).read().decode()
    links = re.findall(r'href="/tables/(\d+)/"[^>]*>\s*([^<]+?)\s*<', lobby)
    return int(next(table_id for table_id, text in links if text == name))


def to_act(state: dict) -> bool:
    hand = state["hand"]
    return hand is not None and hand["legal_actions"] is not None


def hand_over(state: dict, hand_id: int) -> bool:
    return (state["last_result"] or {}).get("hand_id") == hand_id


async def sit_down(sockets: list[WireTableSocket]) -> None:
    for number, player in enumerate(sockets, start=1):
        await player.until(lambda state: True)  # the snapshot
        sit = {"type": "sit", "seat": number, "buy_in": BUY_IN, "post_big_blind": False}
        await player.send(sit)
        await player.until(lambda state, n=number: state["you"]["seat"] == n)


async def act(player: WireTableSocket, state: dict, choose) -> None:
    """Send the action `choose(legal_actions)` picks for the turn shown, and wait until the
    hand has moved past it."""
    hand = state["hand"]
    action, amount = choose(hand["legal_actions"])
    player.seq += 1
    frame = {"type": "act", "action": action, "amount": amount, "turn": hand["turn"]}
    await player.send({**frame, "seq": player.seq})
    hand_id, turn = hand["id"], hand["turn"]
    await player.until(
        lambda s: hand_over(s, hand_id) or s["hand"] is None or s["hand"]["turn"] > turn
    )


def check_or_call(legal: dict) -> tuple[str, None]:
    return ("check" if legal["check"] else "call"), None


# -- the room under load: players at two poker tables and the live Showdown table at once ----

LOAD_SECONDS = 30
# Players think a little before each action, as people do: the three tables still act
# concurrently all the time, at a rate the test suite's two cores can carry beside the rest.
THINK_SECONDS = (0.05, 0.25)
POKER_TABLES = {"Bering": ["alice", "bob", "carol"], "Cortez": ["dave", "erin", "frank"]}
SHOWDOWN_PLAYERS = ["alice", "carol", "erin"]


def mixed_play(rng: random.Random):
    """Mostly check or call, sometimes the smallest bet or raise, now and then a fold to a
    bet: hands reach every street, some with more than one bet, some end before showdown."""

    def choose(legal: dict) -> tuple[str, int | None]:
        roll = rng.random()
        if legal["call"] and roll < 0.1:
            return "fold", None
        for kind in ("raise", "bet"):
            if legal[kind] and roll > 0.8:
                return kind, legal[kind]["min"]
        return check_or_call(legal)

    return choose


async def poker_player(player: WireTableSocket, seat: int, until: float, rng) -> dict:
    """Plays every turn until `until`, then asks to leave after the hand and plays on until
    the room stands the player up. Returns its number of actions and the hands it saw dealt."""
    actions = 0
    dealt: set[int] = set()
    ended: set[int] = set()
    leaving = False
    choose = mixed_play(rng)

    def moved(state: dict) -> bool:
        hand = state["hand"]
        done = (state["last_result"] or {}).get("hand_id")
        return (
            to_act(state)
            or state["you"]["seat"] is None
            or (hand is not None and hand["id"] not in dealt)
            or (done is not None and done not in ended)
            or (not leaving and time.monotonic() > until)
        )

    while True:
        state = await player.until(moved, timeout=60)
        if state["hand"] is not None:
            dealt.add(state["hand"]["id"])
        if state["last_result"] is not None:
            ended.add(state["last_result"]["hand_id"])
        if state["you"]["seat"] is None:
            break
        if not leaving and time.monotonic() > until:
            leaving = True
            await player.send({"type": "seat_options", "leave_after_hand": True})
        if to_act(state):
            await asyncio.sleep(rng.uniform(*THINK_SECONDS))
            await act(player, state, choose)
            actions += 1
    return {"actions": actions, "dealt": dealt}


async def showdown_player(player: WireShowdownSocket, seat: int, until: float) -> Counter:
    """Wagers the table's smallest ante each round until `until`, calls or folds when dealt,
    and waits for each round it played to settle; then stands up."""
    seen: Counter = Counter()
    await player.until(lambda view: True)  # the snapshot
    await player.send({"type": "sit", "seat": seat})
    view = await player.until(lambda v: v["you"] is not None and v["you"]["seat"] == seat)
    ante = view["table"]["limits"]["ante_min"]

    def mine(view: dict) -> dict | None:
        live = view["round"]
        if live is None:
            return None
        return next((s for s in live["seats"] if s["seat"] == seat), None)

    while time.monotonic() < until:
        seen["rounds"] += 1
        key = f"load-{seat}-{seen['rounds']}-{random.getrandbits(32):08x}"
        await player.send({"type": "wager", "ante": ante, "key": key})
        view = await player.until(
            lambda v: mine(v) is not None and v["round"]["phase"] != "settled"
        )
        round_id = view["round"]["id"]
        view = await player.until(
            lambda v, r=round_id: v["round"]["id"] != r or v["round"]["phase"] != "betting", 60
        )
        if view["round"]["id"] == round_id and view["round"]["phase"] == "deciding":
            decision = "call" if seat % 2 else random.choice(["call", "fold"])
            await player.send({"type": "decide", "decision": decision, "key": key + "-d"})
        await player.until(
            lambda v, r=round_id: v["round"]["id"] != r or v["round"]["phase"] == "settled", 60
        )
        seen["settled"] += 1
    await player.send({"type": "leave"})
    await player.until(lambda v: v["you"] is not None and v["you"]["seat"] is None)
    return seen


async def carry_the_load(port: int, tables: dict, showdown_id: int, cookies: dict) -> list:
    until = time.monotonic() + LOAD_SECONDS
    rng = random.Random(2026)
    sockets = {
        name: [await WireTableSocket.open(port, tables[name], cookies[u]) for u in players]
        for name, players in POKER_TABLES.items()
    }
    for players in sockets.values():
        await sit_down(players)
    live = [await WireShowdownSocket.open(port, showdown_id, cookies[u]) for u in SHOWDOWN_PLAYERS]
    jobs = [
        poker_player(player, seat, until, random.Random(rng.random()))
        for players in sockets.values()
        for seat, player in enumerate(players, start=1)
    ]
    jobs += [showdown_player(player, seat, until) for seat, player in enumerate(live, start=1)]
    try:
        return await asyncio.gather(*jobs)
    finally:
        for player in [*(p for players in sockets.values() for p in players), *live]:
            await player.close()
