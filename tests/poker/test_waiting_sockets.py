"""Waiting lists over the sockets: the offer reaches every page the player has open
(the lobby and any table), the table socket joins and leaves the list, and a table's pages see
the list's count move. Real ASGI app, Redis channel layer and PostgreSQL."""

import pytest
from channels.db import database_sync_to_async as sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from lobby.suspension import account_suspend
from poker import services
from poker.models import Table, WaitingEntry
from poker.services.staff import staff_seat_offer, staff_waiting_remove
from tests.factories import (
    TableSocket,
    make_funded_player,
    make_seated_player,
    make_staff,
    make_table,
    session_headers_for,
)

pytestmark = pytest.mark.django_db(transaction=True)


@sync_to_async
def full_table():
    table = make_table(max_seats=2, next_hand_delay_seconds=3600)
    return table, [make_seated_player(table, f"{table.pk}-p{n}", n) for n in (1, 2)]


async def lobby_socket(player):
    lobby = WebsocketCommunicator(
        application, "/ws/lobby/", headers=await sync_to_async(session_headers_for)(player)
    )
    assert (await lobby.connect())[0]
    assert (await lobby.receive_json_from())["type"] == "welcome"
    return lobby


async def lobby_until(lobby, kind: str) -> dict:
    for _ in range(20):
        frame = await lobby.receive_json_from(timeout=5)
        if frame["type"] == kind:
            return frame
    raise AssertionError(f"no {kind} frame")


async def test_an_offer_reaches_the_lobby_and_a_page_of_another_table():
    table, (ann, _) = await full_table()
    elsewhere = await sync_to_async(make_table)(next_hand_delay_seconds=3600)
    cat = await sync_to_async(make_funded_player)("cat")
    await sync_to_async(services.waiting_list_join)(table=table, player=cat)
    lobby = await lobby_socket(cat)
    other_tab = await TableSocket.open(elsewhere.pk, cat)
    await other_tab.until(lambda f: f["type"] == "snapshot")

    await sync_to_async(services.table_leave)(table=table, player=ann)
    for frame in (
        await lobby_until(lobby, "seat_offer"),
        await other_tab.until(lambda f: f["type"] == "seat_offer"),
    ):
        assert frame["table"] == table.pk and frame["table_name"] == table.name
        assert 28 <= frame["seconds_left"] <= 30

    await sync_to_async(services.waiting_list_leave)(table=table, player=cat)  # declines
    for frame in (
        await lobby_until(lobby, "seat_offer_ended"),
        await other_tab.until(lambda f: f["type"] == "seat_offer_ended"),
    ):
        assert frame == {"type": "seat_offer_ended", "table": table.pk, "reason": "declined"}
    await lobby.disconnect()
    await other_tab.close()


async def test_the_table_socket_joins_and_leaves_the_list_and_every_page_sees_the_count():
    table, _ = await full_table()
    cat = await sync_to_async(make_funded_player)("cat")
    watcher = await sync_to_async(make_funded_player)("watcher")
    mine = await TableSocket.open(table.pk, cat)
    theirs = await TableSocket.open(table.pk, watcher)
    state = await mine.until_state(lambda s: True)
    assert state["waiting"] == {"count": 0, "offered": 0}
    assert state["you"]["waiting"] is None

    await mine.send({"type": "waiting_join"})
    state = await mine.until_state(lambda s: s["you"]["waiting"] is not None)
    assert state["you"]["waiting"] == {"position": 1, "offer_expires_at": None}
    state = await theirs.until_state(lambda s: s["waiting"]["count"] == 1)
    assert state["you"]["waiting"] is None  # nobody learns who waits

    await mine.send({"type": "waiting_join"})  # again: same place, no error
    await mine.send({"type": "waiting_leave"})
    state = await mine.until_state(lambda s: s["you"]["waiting"] is None)
    assert state["waiting"] == {"count": 0, "offered": 0}
    await mine.send({"type": "waiting_leave"})
    error = await mine.until(lambda f: f["type"] == "error")
    assert error["code"] == "not_waiting"
    assert not any(f["type"] == "error" for f in mine.frames[:-1])
    await mine.close()
    await theirs.close()


async def test_a_held_seat_is_refused_to_a_socket_that_was_not_offered_it():
    table, (ann, _) = await full_table()
    cat = await sync_to_async(make_funded_player)("cat")
    eve = await sync_to_async(make_funded_player)("eve")
    await sync_to_async(services.waiting_list_join)(table=table, player=cat)
    await sync_to_async(services.table_leave)(table=table, player=ann)
    socket = await TableSocket.open(table.pk, eve)
    state = await socket.until_state(lambda s: True)
    assert state["waiting"] == {"count": 1, "offered": 1}
    await socket.send(
        {"type": "sit", "seat": 1, "buy_in": table.max_buy_in, "post_big_blind": False}
    )
    error = await socket.until(lambda f: f["type"] == "error")
    assert error["code"] == "seat_offered"
    assert await sync_to_async(WaitingEntry.objects.filter(table=table).count)() == 1
    assert not await sync_to_async(Table.objects.filter(pk=table.pk, seats__player=eve).exists)()
    await socket.close()


async def test_staff_tools_tell_the_players_they_concern():
    """A seat offered by hand reaches the player; the player whose offer it replaced
    hears `withdrawn` (still on the list); a player staff take off the list, or whose account
    is suspended, hears `removed` for the offer they held."""
    table, (ann, _) = await full_table()
    cat = await sync_to_async(make_funded_player)("cat")
    dan = await sync_to_async(make_funded_player)("dan")
    for player in (cat, dan):
        await sync_to_async(services.waiting_list_join)(table=table, player=player)
    manager = await sync_to_async(make_staff)("tm", "table managers", "cashier managers")
    cat_lobby, dan_lobby = await lobby_socket(cat), await lobby_socket(dan)
    await sync_to_async(services.table_leave)(table=table, player=ann)
    assert (await lobby_until(cat_lobby, "seat_offer"))["table"] == table.pk

    await sync_to_async(staff_seat_offer)(table=table, player=dan, staff=manager, reason="r")
    assert (await lobby_until(dan_lobby, "seat_offer"))["table"] == table.pk
    withdrawn = await lobby_until(cat_lobby, "seat_offer_ended")
    assert withdrawn == {"type": "seat_offer_ended", "table": table.pk, "reason": "withdrawn"}
    assert await sync_to_async(WaitingEntry.objects.filter(player=cat).exists)()

    await sync_to_async(staff_waiting_remove)(table=table, player=dan, staff=manager, reason="r")
    removed = await lobby_until(dan_lobby, "seat_offer_ended")
    assert removed == {"type": "seat_offer_ended", "table": table.pk, "reason": "removed"}
    assert (await lobby_until(cat_lobby, "seat_offer"))["table"] == table.pk  # in turn again

    await sync_to_async(account_suspend)(player=cat, staff=manager, reason="fraud check")
    suspended = await lobby_until(cat_lobby, "seat_offer_ended")
    assert suspended == {"type": "seat_offer_ended", "table": table.pk, "reason": "removed"}
    await cat_lobby.disconnect()
    await dan_lobby.disconnect()
