"""The table socket refuses malformed input with an error frame (never `server_error`) and
changes nothing, and limits how often one player may reconnect to a table."""

import json

import pytest
from channels.db import database_sync_to_async as sync_to_async

from bench.frame_fuzz import table_fingerprint
from cashier.selectors import table_stack_balance, wallet_balance
from poker.models import Seat
from poker.tasks import tables_heartbeat
from tests.factories import TableSocket, make_funded_player, make_seated_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def table_with(*names):
    """A table (no hand dealt: the next-hand delay is an hour) with players seated at the
    minimum buy-in, so a top-up is allowed."""
    table = make_table(next_hand_delay_seconds=3600)
    players = [
        make_seated_player(table, name, number, buy_in=table.min_buy_in)
        for number, name in enumerate(names, start=1)
    ]
    return table, players


@sync_to_async
def money(player, table):
    return wallet_balance(player=player), table_stack_balance(player=player, table=table)


# One frame of each class of refusal (the parser's cases are tests/config/test_frames.py and
# tests/poker/test_commands.py): (sender, the frame as sent, the code it gets). Each of the
# money frames would move money if the check were missing: ann sits at the minimum buy-in with
# no hand running (a top-up applies) and bob is funded with seat 3 free (a sit applies).
REFUSALS = [
    ("bob", "not json", "bad_frame"),
    ("bob", b'{"type": "ping"}', "bad_frame"),  # a binary frame
    ("bob", json.dumps({"type": "ping", "echo": "€" * 1400}, ensure_ascii=False), "bad_frame"),
    ("bob", "[" * 1000 + "]" * 1000, "bad_frame"),  # was a RecursionError: `server_error`
    ("bob", '{"type": "steal_the_pot"}', "unknown_type"),
    ("ann", '{"type": "act", "action": "call", "turn": 1, "seq": true}', "bad_field"),
    ("bob", '{"type": "sit", "seat": 3, "buy_in": 5000, "post_big_blind": "yes"}', "bad_field"),
    ("ann", '{"type": "top_up", "amount": "2500"}', "bad_amount"),
    ("ann", '{"type": "top_up", "amount": true}', "bad_amount"),  # not 1 cent
    # A NUL byte in `key` reached PostgreSQL (which refuses NUL in text): `server_error`.
    (
        "ann",
        json.dumps({"type": "top_up", "amount": 1000, "key": "click\u00000001"}),
        "bad_idempotency_key",
    ),
    ("bob", '{"type": "sit", "seat": 1, "buy_in": 5000}', "seat_taken"),  # a service's no
]


async def test_each_class_of_bad_frame_gets_an_error_changes_nothing_and_keeps_the_socket():
    """The consumer answers what the frame parser (or the service) says, to the sender alone,
    with the one error frame; the socket stays open, nobody else hears a thing, and not a cent,
    seat or row moves."""
    table, (ann, ben) = await table_with("ann", "ben")
    bob = await sync_to_async(make_funded_player)("bob")
    sockets = {
        "ann": await TableSocket.open(table.pk, ann),
        "bob": await TableSocket.open(table.pk, bob),
    }
    watcher = await TableSocket.open(table.pk, ben)
    everyone = (*sockets.values(), watcher)
    # A heartbeat through the table's group: once each socket has it, each has every update
    # sent before (the connections of the sockets opened after it).
    await sync_to_async(tables_heartbeat)()
    for socket in everyone:
        await socket.until(lambda f: f["type"] == "heartbeat")
    heard = len(watcher.frames)
    before = await sync_to_async(table_fingerprint)(table.pk)
    for sender, frame, code in REFUSALS:
        socket = sockets[sender]
        message = {"bytes": frame} if isinstance(frame, bytes) else {"text": frame}
        await socket.communicator.send_input({"type": "websocket.receive", **message})
        await socket.send({"type": "ping", "echo": code})
        error = await socket.until(lambda f: f["type"] in ("error", "pong"))
        assert error["type"] == "error" and error["code"] == code, (frame, error)
        assert set(error) == {"type", "code", "message", "seq", "key"} and error["message"]
        assert (await socket.until(lambda f: f["type"] == "pong"))["echo"] == code
    await heard_so_far(watcher)
    assert {f["type"] for f in watcher.frames[heard:]} == {"heartbeat"}, watcher.frames[heard:]
    assert await sync_to_async(table_fingerprint)(table.pk) == before
    # The same socket still plays: a good top-up goes through, once.
    await sockets["ann"].send({"type": "top_up", "amount": 1000, "key": "click-0001"})
    await sockets["ann"].until(lambda f: f["type"] == "update")
    assert (await money(ann, table))[1] == table.min_buy_in + 1000
    for socket in (*sockets.values(), watcher):
        await socket.close()


async def heard_so_far(watcher) -> None:
    """Read the watcher's frames until the room's heartbeat, sent now through the table's group
    like every update: the group delivers in order, so by then the watcher has every update
    broadcast before this call (a service broadcasts after commit, before it returns)."""
    await sync_to_async(tables_heartbeat)()
    await watcher.until(lambda f: f["type"] == "heartbeat")


def connection_events(socket, seat: int) -> list[bool]:
    return [
        event["connected"]
        for frame in socket.frames
        if frame["type"] == "update"
        for event in frame["events"]
        if event["type"] == "player_connection" and event["seat"] == seat
    ]


async def test_a_reconnect_storm_is_cut_off_and_the_table_hears_little_of_it(settings):
    """100 reconnects pushed 200 updates to everyone at the table; now past the limit a
    socket is told why and closed with 4429, without joining the table or touching the seat."""
    settings.POKER_RECONNECT_LIMIT = 3
    # One window for the whole test: the counter's windows are fixed (config/ratelimit.py), and
    # on a busy machine the attempts straddled a minute's edge, which starts the count afresh.
    settings.POKER_RECONNECT_WINDOW_SECONDS = 10**9
    table, (ann, ben) = await table_with("ann", "ben")
    other_table, _ = await table_with("cy")
    watcher = await TableSocket.open(table.pk, ben)
    await watcher.receive()
    for attempt in range(8):
        socket = await TableSocket.open(table.pk, ann)
        assert socket.connected
        first = await socket.receive()
        if attempt < 3:
            assert first["type"] == "snapshot"
            await socket.close()
            await watcher.until(lambda f: connection_events(watcher, 1)[-1:] == [False])
            continue
        assert first["type"] == "error" and first["code"] == "too_many_reconnects"
        assert first["message"]
        closed = await socket.communicator.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": 4429}
        await socket.close()  # the client's goodbye, as a browser sends it after the close
    await heard_so_far(watcher)
    assert connection_events(watcher, 1) == [True, False] * 3
    seat = await sync_to_async(Seat.objects.get)(table=table, player=ann)
    assert not seat.connected and seat.socket == ""
    # The limit is per player and per table.
    elsewhere = await TableSocket.open(other_table.pk, ann)
    assert (await elsewhere.receive())["type"] == "snapshot"
    await elsewhere.close()
    await watcher.close()
    again = await TableSocket.open(table.pk, ben)
    assert (await again.receive())["type"] == "snapshot"
    await again.close()


async def test_a_second_tab_and_its_superseded_socket_broadcast_nothing():
    """The seat's visible state (connected) does not change, so the table hears nothing."""
    table, (ann, ben) = await table_with("ann", "ben")
    watcher = await TableSocket.open(table.pk, ben)
    await watcher.receive()
    first = await TableSocket.open(table.pk, ann)
    await first.receive()
    await watcher.until(lambda f: connection_events(watcher, 1) == [True])
    second = await TableSocket.open(table.pk, ann)
    await second.receive()
    await first.until(lambda f: f["type"] == "superseded")
    await first.close()  # returns once the first socket's goodbye has run
    # The second socket's hello (marking the seat connected) ends its connect: a ping answered
    # means it has run, its broadcast (if any) sent.
    await second.send({"type": "ping", "echo": "hello done"})
    await second.until(lambda f: f["type"] == "pong")
    await heard_so_far(watcher)
    assert connection_events(watcher, 1) == [True]
    await second.close()
    await watcher.until(lambda f: connection_events(watcher, 1) == [True, False])
    await watcher.close()
