"""Through the table socket: an excluded player's open sockets are told and closed, and a new
socket is refused with the reason (real ASGI app, Redis channel layer, PostgreSQL)."""

import pytest
from channels.db import database_sync_to_async as sync_to_async

from poker.consumers import CLOSE_EXCLUDED
from poker.models import Seat
from responsible.services import exclusion_start
from tests.factories import TableSocket, make_player, make_seated_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def seated_pair():
    table = make_table(next_hand_delay_seconds=3600)
    return table, make_seated_player(table, "alice", 1)


async def test_an_exclusion_closes_open_sockets_and_refuses_new_ones():
    table, alice = await seated_pair()
    socket = await TableSocket.open(table.pk, alice)
    assert socket.connected
    await socket.until(lambda frame: frame["type"] == "snapshot")

    await sync_to_async(exclusion_start)(player=alice, kind="time_out", length=1)

    told = await socket.until(lambda frame: frame["type"] == "excluded")
    assert "time-out" in told["message"]
    closed = await socket.communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": CLOSE_EXCLUDED}
    assert not await sync_to_async(Seat.objects.filter(player=alice).exists)()

    # A fresh login (allowed: to see the wallet and withdraw) cannot open the table.
    again = await TableSocket.open(table.pk, alice)
    frame = await again.receive()
    assert frame["type"] == "error" and frame["code"] == "excluded"
    closed = await again.communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": CLOSE_EXCLUDED}


async def test_others_at_the_table_keep_their_sockets():
    table, alice = await seated_pair()
    bob = await sync_to_async(make_player)("bob")
    watching = await TableSocket.open(table.pk, bob)
    await watching.until(lambda frame: frame["type"] == "snapshot")
    await sync_to_async(exclusion_start)(player=alice, kind="self_exclusion", length="6m")
    left = await watching.until(
        lambda frame: any(e.get("type") == "player_left" for e in frame.get("events", []))
    )
    assert left["type"] != "excluded"
    await watching.send({"type": "ping", "echo": 1})
    assert (await watching.until(lambda frame: frame["type"] == "pong"))["echo"] == 1
    await watching.close()
