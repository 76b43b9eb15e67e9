"""The embedded room as `make run` starts it, for the tests of tests/lobby/test_runroom*.py:
`runroom` in a subprocess on a free port, demo players logged in over HTTP, their table
sockets (tests/factories.py), and a turn played as a page plays it."""

import json
import re
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path

import pytest

from lobby.management.commands.seed_demo import DEMO_PASSWORD
from tests.factories import WireTableSocket

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


def wait_until_serving(base_url: str, room: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 120
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
