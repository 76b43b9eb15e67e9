"""The table socket refuses malformed input with an error frame (never `server_error`), counts
its frame limit in bytes, and limits how often one player may reconnect to a table."""

import json

import pytest
from channels.db import database_sync_to_async as sync_to_async

from cashier.models import Entry
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


@sync_to_async
def entries() -> int:
    return Entry.objects.count()


async def refused(socket, frame: str) -> dict:
    """Send a raw frame; return the error; check the socket still answers."""
    await socket.communicator.send_to(text_data=frame)
    error = await socket.until(lambda f: f["type"] == "error")
    await socket.send({"type": "ping", "echo": "still here"})
    await socket.until(lambda f: f["type"] == "pong")
    return error


def nested(depth: int) -> str:
    return '{"type": "ping", "echo": ' + "[" * (depth - 1) + "]" * (depth - 1) + "}"


@pytest.mark.parametrize(
    "frame",
    ["[" * 1000 + "]" * 1000, nested(1000), nested(40), '{"type": "ping", "echo": NaN}'],
    ids=["list-1000", "object-1000", "object-40", "nan"],
)
async def test_deep_or_non_json_frames_are_bad_frames(frame):
    """1,000 levels was a RecursionError, answered as `server_error`."""
    table, (ann,) = await table_with("ann")
    socket = await TableSocket.open(table.pk, ann)
    await socket.receive()
    error = await refused(socket, frame)
    assert error["code"] == "bad_frame" and error["message"]
    await socket.close()


async def test_the_frame_limit_counts_utf8_bytes_not_characters():
    table, (ann,) = await table_with("ann")
    socket = await TableSocket.open(table.pk, ann)
    await socket.receive()
    euros = json.dumps({"type": "ping", "echo": "€" * 1400}, ensure_ascii=False)
    assert len(euros) < 4096 < len(euros.encode())  # 1,400 characters, 4,200 bytes
    error = await refused(socket, euros)
    assert error["code"] == "bad_frame" and "4 KiB" in error["message"]
    ascii_frame = json.dumps({"type": "ping", "echo": "x" * 4000})
    assert len(ascii_frame.encode()) <= 4096
    await socket.communicator.send_to(text_data=ascii_frame)
    assert (await socket.until(lambda f: f["type"] == "pong"))["echo"] == "x" * 4000
    await socket.close()


@pytest.mark.parametrize(
    "key",
    ["click\u00000001", "click\ud800001", "click\n0001", "short", "k" * 65, 12345678],
    ids=["nul", "surrogate", "newline", "short", "long", "number"],
)
async def test_money_frames_with_a_bad_key_are_refused_and_move_nothing(key):
    """A NUL byte in `key` reached PostgreSQL (which refuses NUL in text): `server_error`."""
    table, (ann,) = await table_with("ann")
    bob = await sync_to_async(make_funded_player)("bob")
    sockets = {p: await TableSocket.open(table.pk, p) for p in (ann, bob)}
    for socket in sockets.values():
        await socket.receive()
    before = [await money(p, table) for p in (ann, bob)], await entries()
    top_up = json.dumps({"type": "top_up", "amount": 1000, "key": key})  # ASCII escapes
    sit = json.dumps(
        {"type": "sit", "seat": 2, "buy_in": 5000, "post_big_blind": False, "key": key}
    )
    for socket, frame in ((sockets[ann], top_up), (sockets[bob], sit)):
        error = await refused(socket, frame)
        assert error["code"] == "bad_idempotency_key" and error["message"]
    assert ([await money(p, table) for p in (ann, bob)], await entries()) == before
    assert not await sync_to_async(Seat.objects.filter(player=bob).exists)()
    # The same frames with a good key go through.
    await sockets[ann].send({"type": "top_up", "amount": 1000, "key": "click-0001"})
    await sockets[ann].until(lambda f: f["type"] == "update")
    assert (await money(ann, table))[1] == table.min_buy_in + 1000
    for socket in sockets.values():
        await socket.close()


@pytest.mark.parametrize("amount", ["²", "25", "1" * 40, 10**12, 0, True, 2.5])
async def test_amounts_on_the_socket_are_refused_with_bad_amount(amount):
    table, (ann,) = await table_with("ann")
    socket = await TableSocket.open(table.pk, ann)
    await socket.receive()
    before = await money(ann, table)
    error = await refused(socket, json.dumps({"type": "top_up", "amount": amount}))
    assert error["code"] == "bad_amount" and error["message"]
    assert await money(ann, table) == before
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
