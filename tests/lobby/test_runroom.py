"""The embedded room as the README starts it: `migrate` (once per run, shared with the other
SQLite tests), `seed_demo` and `runroom` on SQLite, with no Redis (the in-memory channel layer,
the worker and beat as threads of the web process), then two demo players log in over HTTP and
play a hand over their table sockets, and in the next hand let the clock run out (the turn's
timer: a Celery task with an eta, on the in-memory broker). This is the only test of the SQLite
paths (the audit chain linked in Python, the table lock without FOR UPDATE, the in-memory layer,
the embedded worker dealing the hand and timing out the turn). The room runs the table's owner
as production does (poker/owner.py): the table's lease names it, its sockets' commands ran
there, and the worker's timeouts (the deals and the fold) were sent to it and run by it, as
its /healthz report counts them."""

import asyncio
import json
import os
import re
import socket
import sqlite3
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
BUY_IN = 10_000  # 100 big blinds at the demo's $0.50/$1 pot-limit table


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


def embedded_env(database: Path) -> dict:
    """A shell's environment as `make run` sees it: DEBUG, and none of the test run's settings
    (no REDIS_URL, so the room is embedded). The SQLite file is named only to keep it out of
    the working tree; it is what the default `room.sqlite3` would be."""
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    return {**env, "DEBUG": "true", "DATABASE_URL": f"sqlite:///{database}"}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def wait_until_serving(base_url: str, room: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            with urllib.request.urlopen(f"{base_url}/healthz", timeout=2) as response:
                assert json.loads(response.read())["mode"] == "embedded"
                return
        except OSError:
            if room.poll() is not None or time.monotonic() > deadline:
                pytest.fail(f"runroom did not start:\n{log.read_text()[-3000:]}")
            time.sleep(0.2)


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


async def play_a_hand(port: int, table_id: int, cookies: list[str], database: Path) -> tuple:
    """Both sit, the embedded worker deals, and they check or call until the hand ends; then
    nobody acts in the next hand, and its turn's timer folds the first to act. Returns both
    hands' summaries as the first player's page shows them, and that page's last state."""
    sockets = [await WireTableSocket.open(port, table_id, cookie) for cookie in cookies]
    for number, player in enumerate(sockets, start=1):
        await player.until(lambda state: True)  # the snapshot
        sit = {"type": "sit", "seat": number, "buy_in": BUY_IN, "post_big_blind": False}
        await player.send(sit)
        await player.until(lambda state, n=number: state["you"]["seat"] == n)
    ann, _ = sockets
    started = await ann.until(lambda state: state["hand"] is not None)
    hand_id = started["hand"]["id"]

    def over(state: dict, hand_id: int) -> bool:
        return (state["last_result"] or {}).get("hand_id") == hand_id

    async def play(player: WireTableSocket) -> None:
        while not over(player.mirror.state, hand_id):
            state = await player.until(lambda s: over(s, hand_id) or to_act(s))
            if over(state, hand_id):
                return
            hand = state["hand"]
            action = "check" if hand["legal_actions"]["check"] else "call"
            player.seq += 1
            await player.send(
                {"type": "act", "action": action, "turn": hand["turn"], "seq": player.seq}
            )
            await player.until(
                lambda s, turn=hand["turn"]: over(s, hand_id) or s["hand"]["turn"] > turn
            )

    await asyncio.gather(*(play(player) for player in sockets))
    played = ann.mirror.state["last_result"]
    # The next hand's turns last 2 s and nobody has a time bank left (set in the room's
    # database, as staff would in the admin, before the next hand is dealt after its pause).
    with sqlite3.connect(database, timeout=10) as db:
        db.execute(
            "UPDATE poker_table SET action_seconds = 2, time_bank_refill_seconds = 0 WHERE id = ?",
            (table_id,),
        )
        db.execute("UPDATE poker_seat SET time_bank = 0 WHERE table_id = ?", (table_id,))
    dealt = await ann.until(lambda s: s["hand"] is not None and s["hand"]["id"] != hand_id, 30)
    timed_out = dealt["hand"]["id"]
    await ann.until(lambda s: over(s, timed_out), 30)
    for player in sockets:
        await player.close()
    return played, ann.mirror.state["last_result"], ann.mirror.state


@pytest.mark.timeout(240)
def test_the_embedded_room_plays_a_hand_over_its_sockets(migrated_sqlite, tmp_path):
    # `manage.py migrate` made the run's template (tests/conftest.py); this is a copy of it.
    database = migrated_sqlite
    # The sweep only after an hour: the turn that runs out is folded by its own timer.
    env = {**embedded_env(database), "POKER_SWEEP_SECONDS": "3600"}
    log = tmp_path / "room.log"
    assert manage("seed_demo", env=env, log=log).wait(timeout=120) == 0, log.read_text()
    port = free_port()
    room = manage("runroom", f"127.0.0.1:{port}", env=env, log=log)
    try:
        base_url = f"http://127.0.0.1:{port}"
        wait_until_serving(base_url, room, log)
        cookies = [log_in(base_url, "alice"), log_in(base_url, "bob")]
        table_id = first_table_id(base_url, cookies[0], "Bering")
        try:
            result, timed_out, state = asyncio.run(
                asyncio.wait_for(play_a_hand(port, table_id, cookies, database), 120)
            )
        except (AssertionError, ConnectionError, OSError, TimeoutError) as error:
            pytest.fail(
                f"the hand did not end: {error!r}\nthe room's log:\n{log.read_text()[-3000:]}"
            )
        with urllib.request.urlopen(f"{base_url}/healthz", timeout=10) as response:
            owner = json.loads(response.read())["owner"]
        with sqlite3.connect(database, timeout=10) as db:
            (lease,) = db.execute(
                "SELECT lease_owner FROM poker_table WHERE id = ?", (table_id,)
            ).fetchone()
            # Every hand's log is its snapshot's events, and both players' seqs were kept: the
            # mid-hand actions' writes ran here as separate statements (poker/services/
            # action_write.py), not as PostgreSQL's one statement.
            logs = db.execute(
                "SELECT json_array_length(h.state, '$.events'),"
                " (SELECT count(*) FROM poker_handevent e WHERE e.hand_id = h.id),"
                " (SELECT count(*) FROM poker_handevent e WHERE e.hand_id = h.id"
                "  AND e.created_at IS NULL),"
                " (SELECT min(p.last_seq) FROM poker_handplayer p WHERE p.hand_id = h.id)"
                " FROM poker_hand h WHERE h.table_id = ? ORDER BY h.id",
                (table_id,),
            ).fetchall()
        # Read before the room stops: its worker thread may still be sending a heartbeat when
        # the interpreter shuts down, which logs a traceback that is no fault of the hand.
        served = log.read_text()
    finally:
        room.terminate()
        try:
            room.wait(timeout=15)
        except subprocess.TimeoutExpired:
            room.kill()
            room.wait()
    assert not result.get("cancelled"), result
    assert logs and all(logged == events and not undated for events, logged, undated, _ in logs)
    assert logs[0][3] > 0, "both players' last seq of the hand they played"
    nets = {seat["seat"]: seat["net"] for seat in result["seats"]}
    assert set(nets) == {1, 2} and sum(nets.values()) + result["rake"] == 0, result
    assert result["showdown"], "checked and called down to a showdown"
    # Nobody acted in the next hand: the small blind (the button, heads-up) was folded when
    # the clock ran out, and sits out from the next hand.
    nets = {seat["seat"]: seat["net"] for seat in timed_out["seats"]}
    assert not timed_out["showdown"] and sorted(nets.values()) == [-50, 50], timed_out
    folded = next(seat for seat, net in nets.items() if net == -50)
    assert state["seats"][folded - 1]["status"] == "sitting_out", state["seats"]
    assert "Traceback" not in served, served[-3000:]
    # The owner ran it all: it holds the table's lease (`owner|<host>:<pid>|<channel>`) and
    # renews it, the sockets' commands ran at it, and the worker's timers reached it: the
    # deals after the sits and after the first hand, and the fold when the clock ran out.
    assert lease.startswith("owner|") and lease.count("|") == 2, lease
    assert owner["role"] == "owner" and owner["leases"] >= 1, owner
    assert owner["renewed_seconds_ago"] is not None, owner
    assert owner["run_here"] >= 4 and owner["sent"] == 0, owner  # hellos, sits, acts
    assert owner["served"]["poker.timeout"].get("fold") == 1, owner
    assert owner["served"]["poker.timeout"].get("dealt", 0) >= 2, owner
