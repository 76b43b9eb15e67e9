"""Socket service calls run on a pool of database threads (config/db_threads.py): one table
waiting on its row lock does not stop another table served by the same ASGI process."""

import asyncio

import psycopg
import pytest
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import connection

from config.db_threads import in_db_thread
from poker.engine.hand import Hand as EngineHand
from tests.factories import TableSocket, deal_hand, make_seated_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


def _needs_redis() -> None:
    if settings.EMBEDDED:
        pytest.skip("sockets of one process broadcasting through Redis need REDIS_URL")


def _raw_connection() -> psycopg.Connection:
    """A connection of its own, outside Django's pool and threads, like another process's."""
    db = connection.settings_dict
    return psycopg.connect(
        host=db.get("HOST") or "127.0.0.1",
        port=db.get("PORT") or 5432,
        user=db["USER"],
        password=db.get("PASSWORD") or None,
        dbname=db["NAME"],
    )


@sync_to_async
def _heads_up_hand(name: str):
    """A table with two players and a running hand: (table, hand, the player to act)."""
    table = make_table(next_hand_delay_seconds=3600)
    players = {n: make_seated_player(table, f"{name}-{n}", n) for n in (1, 2)}
    hand = deal_hand(table)
    to_act = EngineHand.from_dict(hand.state).to_act
    return table, hand, players[to_act]


def _moved_past(frame: dict, hand_id: int, turn: int) -> bool:
    """An update or snapshot showing the hand past `turn` (a later turn, or another hand)."""
    if frame["type"] == "error":
        raise AssertionError(f"the action was refused: {frame}")
    if frame["type"] not in ("update", "snapshot"):
        return False
    hand = frame["state"].get("hand")
    return hand is None or hand["id"] != hand_id or hand["turn"] > turn


def _turn_of(raw: psycopg.Connection, hand_id: int) -> int:
    return raw.execute("SELECT turn FROM poker_hand WHERE id = %s", (hand_id,)).fetchone()[0]


async def test_a_table_acts_while_another_waits_for_its_lock():
    """Table A's row is locked by another connection, so A's action waits inside its service;
    an action at table B through the same in-process ASGI app still completes meanwhile (on
    Channels' single database thread it queued behind A's until the lock was gone)."""
    await sync_to_async(_needs_redis)()
    table_a, hand_a, actor_a = await _heads_up_hand("a")
    table_b, hand_b, actor_b = await _heads_up_hand("b")
    # The turns as dealt: the rows returned are the ones the process keeps in memory for the
    # tables' next changes, so they move on with the hands.
    turn_a, turn_b = hand_a.turn, hand_b.turn
    socket_a = await TableSocket.open(table_a.pk, actor_a)
    socket_b = await TableSocket.open(table_b.pk, actor_b)
    await socket_a.until_state(lambda s: s["hand"] and s["hand"]["to_act"] is not None)
    await socket_b.until_state(lambda s: s["hand"] and s["hand"]["to_act"] is not None)
    holder = _raw_connection()
    watcher = _raw_connection()
    watcher.autocommit = True
    try:
        holder.execute("SELECT id FROM poker_table WHERE id = %s FOR UPDATE", (table_a.pk,))
        await socket_a.act("call", turn=turn_a)
        # A's service is now waiting for the lock (give it time to reach it).
        for _ in range(50):
            waiting = watcher.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
                " AND wait_event_type = 'Lock'"
            ).fetchone()[0]
            if waiting:
                break
            await asyncio.sleep(0.1)
        assert waiting == 1, "table A's action should be waiting for the table lock"

        await socket_b.act("call", turn=turn_b)
        await socket_b.until(lambda f: _moved_past(f, hand_b.pk, turn_b), timeout=5)
        assert _turn_of(watcher, hand_b.pk) == turn_b + 1
        assert _turn_of(watcher, hand_a.pk) == turn_a, "A cannot move while locked"
    finally:
        holder.rollback()  # let A's service through whatever happened
        holder.close()
    await socket_a.until(lambda f: _moved_past(f, hand_a.pk, turn_a), timeout=10)
    assert _turn_of(watcher, hand_a.pk) == turn_a + 1
    watcher.close()
    for socket in (socket_a, socket_b):
        await socket.close()
    # Every call gave its connection back to the pool: none is left checked out by a thread.
    await sync_to_async(_no_connection_held_by_pool_threads)()


def _no_connection_held_by_pool_threads() -> None:
    pool = connection.pool
    stats = pool.get_stats()
    # This thread's own connection may be out; the pool threads' are all back.
    assert stats.get("pool_size", 0) - stats.get("pool_available", 0) <= 1, stats


async def test_no_more_calls_run_at_once_than_socket_db_threads():
    """Calls past SOCKET_DB_THREADS wait for a free thread instead of starting one, so the
    threads never want more connections than the setting (kept below the pool's size)."""
    await sync_to_async(_needs_redis)()
    import threading

    size = settings.SOCKET_DB_THREADS
    guard = threading.Lock()
    release = threading.Event()
    running = peak = 0

    @in_db_thread
    def hold() -> str:
        nonlocal running, peak
        with guard:
            running += 1
            peak = max(peak, running)
        release.wait(timeout=20)
        with guard:
            running -= 1
        return threading.current_thread().name

    calls = asyncio.gather(*(hold() for _ in range(size + 3)))
    try:
        for _ in range(100):
            if running == size:
                break
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.3)  # room for a call past the limit to start, if one could
        assert (running, peak) == (size, size)
    finally:
        release.set()
    names = await calls
    assert peak == size and len(set(names)) == size


async def test_in_db_thread_runs_off_the_event_loop_thread_and_returns_connections():
    """A call runs on a pool thread (not the loop's, not Channels' one thread) and returns the
    value; its connection goes back to the pool when it ends."""
    await sync_to_async(_needs_redis)()
    import threading

    @in_db_thread
    def where() -> tuple[str, bool]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return threading.current_thread().name, connection.connection is not None

    name, had_connection = await where()
    assert name.startswith("socket-db")
    assert had_connection

    @in_db_thread
    def still_connected() -> bool:
        return connection.connection is not None

    # The next call on any pool thread starts without a connection: the last one closed it.
    results = await asyncio.gather(*(still_connected() for _ in range(4)))
    assert results == [False] * 4


async def test_a_tables_broadcasts_leave_a_process_in_commit_order():
    """Changes at one table from several sockets of one process at once: each socket hears the
    table's versions one by one, none skipped and none late, though the calls run on several
    database threads (one call per table at a time; the lock alone would order the commits but
    not the broadcasts after them)."""
    await sync_to_async(_needs_redis)()

    @sync_to_async
    def seated_table():
        table = make_table(next_hand_delay_seconds=3600)
        return table, [make_seated_player(table, f"v-{n}", n) for n in range(1, 5)]

    table, players = await seated_table()
    sockets = [await TableSocket.open(table.pk, player) for player in players]
    for socket in sockets:
        await socket.drain()

    async def toggle(socket) -> None:
        for _ in range(3):
            await socket.send({"type": "sit_out"})
            await socket.send({"type": "sit_in", "post_big_blind": True})

    await asyncio.gather(*(toggle(socket) for socket in sockets))

    def updates(socket) -> list[int]:
        return [_version(f) for f in socket.frames if f["type"] == "update"]

    for socket in sockets:
        # Every change, and maybe a hand dealt: a busy machine may pause between two of them
        # longer than any quiet spell, so wait for the count, then for what may follow it.
        await socket.until(lambda _, socket=socket: len(updates(socket)) >= 4 * 6, timeout=60)
        await socket.drain(quiet=0.5)
        versions = updates(socket)
        assert versions == list(range(versions[0], versions[0] + len(versions))), versions
    for socket in sockets:
        await socket.close()


def _version(frame: dict) -> int:
    return frame["version"] if "version" in frame else frame["state"]["version"]
