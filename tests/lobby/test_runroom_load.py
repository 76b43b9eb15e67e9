"""The embedded room under load, as `make run` starts it (tests/lobby/test_runroom.py has the
rest of its story): for 30 seconds three players at each of two poker tables and three at the
live Showdown table play at once over their sockets; no command may fail, every hand and round
must finish, the room's log must stay clean, and `verify_ledger` and `verify_audit` must hold
on what it wrote."""

import asyncio
import random
import subprocess
import sys
import time
from collections import Counter

import pytest

from tests.factories import (
    WireShowdownSocket,
    WireTableSocket,
    embedded_connect,
    embedded_room_env,
)
from tests.lobby.embedded_room import (
    REPO_ROOT,
    act,
    check_or_call,
    first_table_id,
    log_in,
    room_start,
    room_stop,
    sit_down,
    to_act,
)

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


@pytest.mark.long
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
