"""The table socket end to end: real ASGI app, real Redis channel layer, real PostgreSQL.

Whole hands of every game are played by clicking through sockets; the cashier's balances are
checked after each; every frame any player or spectator received is checked for leaks (the
smoke test of the sweep over every frame the services build, tests/poker/test_hidden_cards.py).
"""

import json

import pytest
from channels.db import database_sync_to_async as sync_to_async
from channels.testing import WebsocketCommunicator
from django.db import connection

from cashier.selectors import table_stack_balance, wallet_balance
from cashier.verify import ledger_verify
from config.asgi import application
from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Seat, Table
from poker.services.unit import memory_forget
from tests.factories import (
    GAMES,
    TableSocket,
    make_funded_player,
    session_headers_for,
)
from tests.poker.table_sockets import (
    assert_no_leaks,
    check_or_call,
    hands_by_id,
    load_hand,
    moved_on,
    new_table,
    open_players,
    play_hand,
    seat_player,
    start_hand,
)

pytestmark = pytest.mark.django_db(transaction=True)

# ------------------------------------------------------------------ helpers


@sync_to_async
def money(players, table) -> dict[str, tuple[int, int]]:
    return {
        p.username: (wallet_balance(player=p), table_stack_balance(player=p, table=table))
        for p in players
    }


def fold_or_check(legal, hand):
    return ("fold", None) if legal["fold"] else ("check", None)


def shove(legal, hand):
    if legal["all_in"]:
        return "all_in", None
    if legal["raise"] or legal["bet"]:
        span = legal["raise"] or legal["bet"]
        return ("raise" if legal["raise"] else "bet"), span["max"]
    return check_or_call(legal, hand)


def assert_settled(row: Hand, before: dict, after: dict, players_by_seat) -> None:
    """Wallets untouched by the hand; each stack moved by exactly its net; nets + rake = 0."""
    result = row.state["result"]
    assert sum(s["net"] for s in result["seats"]) + result["rake"] == 0
    for entry in result["seats"]:
        name = players_by_seat[entry["seat"]].username
        assert after[name][0] == before[name][0]
        assert after[name][1] == before[name][1] + entry["net"] == entry["final_stack"]


# ------------------------------------------------------------------ leak checking


# ------------------------------------------------------------------ whole hands


@pytest.mark.parametrize("game", list(GAMES))
async def test_a_hand_to_showdown_through_the_sockets(game):
    table = await new_table(**GAMES[game])
    ann = await seat_player(table, "ann", 1)
    ben = await seat_player(table, "ben", 4)
    sockets = await open_players(table, {1: ann, 4: ben})
    before = await money([ann, ben], table)
    hand = await start_hand(table)

    row = await play_hand(hand.pk, sockets, check_or_call)

    assert row.status == Hand.Status.FINISHED
    assert row.state["result"]["showdown"], "both players reached the showdown"
    after = await money([ann, ben], table)
    assert_settled(row, before, after, {1: ann, 4: ben})
    assert (await sync_to_async(ledger_verify)()).ok
    # Both players are told the result, with the winner's cards.
    for socket in sockets.values():
        final = await socket.until_state(
            lambda s: (s["last_result"] or {}).get("hand_id") == hand.pk
        )
        winners = {a["seat"] for p in final["last_result"]["pots"] for a in p["high"]}
        assert winners
        assert final["hand"] is None
    hands = await hands_by_id(table)
    for number, socket in sockets.items():
        await socket.drain()
        assert_no_leaks(socket.frames, lambda h, n=number: n, hands)
        await socket.close()


@pytest.mark.parametrize("game", list(GAMES))
async def test_a_hand_to_a_fold_through_the_sockets(game):
    table = await new_table(**GAMES[game])
    ann = await seat_player(table, "ann", 2)
    ben = await seat_player(table, "ben", 5)
    sockets = await open_players(table, {2: ann, 5: ben})
    before = await money([ann, ben], table)
    hand = await start_hand(table)

    row = await play_hand(hand.pk, sockets, fold_or_check)

    result = row.state["result"]
    assert not result["showdown"] and not result["flop_dealt"]
    assert result["rake"] == 0  # no flop, no drop
    loser = next(s for s in result["seats"] if s["net"] < 0)
    assert loser["seat"] == row.state["setup"]["button"]  # the small blind folded
    assert loser["net"] == -row.state["setup"]["small_blind"]
    assert_settled(row, before, await money([ann, ben], table), {2: ann, 5: ben})
    for socket in sockets.values():
        await socket.close()


@pytest.mark.parametrize("game", ["omaha-pot-limit", "omaha8-limit"])
async def test_all_in_with_side_pots_through_the_sockets(game):
    table = await new_table(**GAMES[game])
    unit = 100
    ann = await seat_player(table, "ann", 1, buy_in=50 * unit)
    ben = await seat_player(table, "ben", 2, buy_in=75 * unit)
    cat = await seat_player(table, "cat", 3, buy_in=100 * unit)
    players = {1: ann, 2: ben, 3: cat}
    sockets = await open_players(table, players)
    spectator = await TableSocket.open(table.pk, await sync_to_async(make_funded_player)("sam"))
    assert (await spectator.receive())["state"]["you"]["seat"] is None
    before = await money(list(players.values()), table)
    hand = await start_hand(table)

    row = await play_hand(hand.pk, sockets, shove)

    result = row.state["result"]
    committed = sorted(set(row.state["committed"]))
    if game == "omaha-pot-limit":  # everyone all-in: three levels, a main pot and side pots
        # cat's uncalled 2,500 went back: a main pot for three and a side pot for two.
        assert committed == [5000, 7500]
        assert [p["amount"] for p in result["pots"]] == [15000, 5000]
        assert [len(p["eligible"]) for p in result["pots"]] == [3, 2]
    else:
        assert len(result["pots"]) >= 1
    assert_settled(row, before, await money(list(players.values()), table), players)
    hands = await hands_by_id(table)
    await spectator.drain()
    assert_no_leaks(spectator.frames, lambda h: None, hands)
    for number, socket in sockets.items():
        await socket.drain()
        assert_no_leaks(socket.frames, lambda h, n=number: n, hands)
        await socket.close()
    await spectator.close()


# ------------------------------------------------------------------ the protocol's edges


async def test_anonymous_socket_is_refused_with_4401():
    table = await new_table()
    socket = await TableSocket.open(table.pk)
    assert not socket.connected
    assert socket.close_code == 4401


async def test_unknown_or_closed_table_is_refused_with_4404():
    player = await sync_to_async(make_funded_player)("ann")
    socket = await TableSocket.open(999_999, player)
    assert (socket.connected, socket.close_code) == (False, 4404)
    closed = await new_table()
    seated = await seat_player(closed, "ben", 1)
    await sync_to_async(Table.objects.filter(pk=closed.pk).update)(is_open=False)
    socket = await TableSocket.open(closed.pk, player)
    assert (socket.connected, socket.close_code) == (False, 4404)
    # A player still seated at a table that closed may come back to take their chips away.
    socket = await TableSocket.open(closed.pk, seated)
    assert socket.connected
    await socket.receive()
    await socket.send({"type": "leave"})
    await socket.until_state(lambda s: s["you"]["seat"] is None)
    assert await sync_to_async(wallet_balance)(player=seated) == 100_000
    await socket.close()


async def test_a_socket_closes_quietly_after_staff_delete_its_table():
    table = await new_table()
    eve = await sync_to_async(make_funded_player)("eve")
    socket = await TableSocket.open(table.pk, eve)
    await socket.receive()
    await sync_to_async(Table.objects.filter(pk=table.pk).delete)()
    await socket.close()  # disconnecting from a table that is gone raises nothing


@pytest.mark.parametrize("step", ["_exclusion_message", "_snapshot_for"])
async def test_a_table_deleted_by_staff_during_a_connect_closes_the_socket_with_4404(
    monkeypatch, step
):
    """The delete lands after the socket found the table open: before the seat is marked
    connected, or after it and before the snapshot is read. Either way the socket closes as
    for any missing table instead of failing in `connect`."""
    from poker import consumers

    table = await new_table()
    eve = await sync_to_async(make_funded_player)("eve")  # a seat's chips would protect it
    original = getattr(consumers, step)

    async def table_deleted_first(*args):
        await sync_to_async(Table.objects.filter(pk=table.pk).delete)()
        return await original(*args)

    monkeypatch.setattr(consumers, step, table_deleted_first)
    socket = await TableSocket.open(table.pk, eve)
    if step == "_exclusion_message":  # not accepted yet: refused like an unknown table
        assert (socket.connected, socket.close_code) == (False, 4404)
    else:  # accepted, then closed before any frame
        assert socket.connected
        closed = await socket.communicator.receive_output(timeout=5)
        assert closed == {"type": "websocket.close", "code": 4404}
    await socket.communicator.disconnect()  # nothing left to mark disconnected, nothing raises


async def test_a_second_tab_supersedes_the_first():
    table = await new_table()
    ann = await seat_player(table, "ann", 1)
    first = await TableSocket.open(table.pk, ann)
    await first.receive()
    second = await TableSocket.open(table.pk, ann)
    assert (await second.receive())["type"] == "snapshot"
    await first.until(lambda f: f["type"] == "superseded")
    closed = await first.communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4409}
    # The newest tab still plays and the player still counts as connected.
    await second.send({"type": "ping", "echo": 3})
    await second.until(lambda f: f["type"] == "pong")
    seat = await sync_to_async(Seat.objects.get)(table=table, player=ann)
    assert seat.connected
    await second.close()
    seat = await sync_to_async(Seat.objects.get)(table=table, player=ann)
    assert not seat.connected and seat.disconnected_at is not None


async def test_acting_out_of_turn_for_another_seat_or_unseated_is_refused():
    table = await new_table()
    ann = await seat_player(table, "ann", 1)
    ben = await seat_player(table, "ben", 2)
    eve = await sync_to_async(make_funded_player)("eve")
    sockets = await open_players(table, {1: ann, 2: ben})
    hand = await start_hand(table)
    to_act = EngineHand.from_dict(hand.state).to_act
    waiting = 1 if to_act == 2 else 2

    # The player not to act tries, and names the other's seat: there is no seat field to
    # forge; the server acts only for the socket's own user.
    await sockets[waiting].send(
        {"type": "act", "action": "call", "amount": None, "turn": 1, "seq": 1, "seat": to_act}
    )
    error = await sockets[waiting].until(lambda f: f["type"] == "error")
    assert (error["code"], error["seq"]) == ("not_your_turn", 1)

    outsider = await TableSocket.open(table.pk, eve)
    await outsider.receive()
    await outsider.act("call", turn=1)
    assert (await outsider.until(lambda f: f["type"] == "error"))["code"] == "not_seated"
    for kind in ("sit_out", "leave", "post_big_blind", "wait_big_blind"):
        await outsider.send({"type": kind})
        assert (await outsider.until(lambda f: f["type"] == "error"))["code"] == "not_seated"
    assert (await load_hand(hand.pk)).state == hand.state

    # A stale turn and a duplicate seq are refused too; then the real action applies once.
    await sockets[to_act].act("call", turn=7)
    assert (await sockets[to_act].until(lambda f: f["type"] == "error"))["code"] == "stale_turn"
    await sockets[to_act].act("call", turn=1, seq=5)
    await sockets[to_act].until(lambda f: moved_on(f, hand.pk, 1))
    await sockets[to_act].act("check", turn=2, seq=5)
    error = await sockets[to_act].until(lambda f: f["type"] == "error")
    assert (error["code"], error["seq"]) == ("duplicate_seq", 5)
    assert (await load_hand(hand.pk)).turn == 2
    for socket in (*sockets.values(), outsider):
        await socket.close()


async def test_sitting_down_sitting_out_and_leaving_through_the_socket():
    table = await new_table()
    ann = await sync_to_async(make_funded_player)("ann")
    socket = await TableSocket.open(table.pk, ann)
    snapshot = await socket.receive()
    assert snapshot["state"]["you"]["buy_in_range"] == [5000, 10000]
    assert snapshot["state"]["you"]["wallet"] == 100_000

    await socket.send({"type": "sit", "seat": 3, "buy_in": 8000, "post_big_blind": False})
    frame = await socket.until(lambda f: f["type"] == "update" and f["state"]["you"]["seat"] == 3)
    assert frame["state"]["you"]["wallet"] == 92_000
    assert frame["state"]["seats"][2]["status"] == "waiting_big_blind"
    assert any(e["type"] == "player_sat" for e in frame["events"])
    # Changing her mind before she is dealt in: post a big blind now, then wait after all.
    await socket.send({"type": "post_big_blind"})
    frame = await socket.until(
        lambda f: f["type"] == "update" and f["state"]["you"]["posts_big_blind"]
    )
    assert frame["state"]["you"]["status"] == "playing"
    assert {
        "type": "big_blind_choice",
        "seat": 3,
        "status": "playing",
        "posts_big_blind": True,
    } in frame["events"]
    await socket.send({"type": "post_big_blind"})
    assert (await socket.until(lambda f: f["type"] == "error"))["code"] == "not_waiting"
    await socket.send({"type": "wait_big_blind"})
    frame = await socket.until(
        lambda f: f["type"] == "update" and f["state"]["you"]["status"] == "waiting_big_blind"
    )
    assert frame["state"]["you"]["posts_big_blind"] is False
    await socket.send({"type": "wait_big_blind"})
    assert (await socket.until(lambda f: f["type"] == "error"))["code"] == "not_posting"
    await socket.send({"type": "sit_out"})
    await socket.until(lambda f: f["type"] == "update" and f["state"]["you"]["sitting_out"])
    for _ in range(2):  # sent twice with one key: topped up once
        await socket.send({"type": "top_up", "amount": 1000, "key": "click-0001"})
    frame = await socket.until(
        lambda f: f["type"] == "update" and f["state"]["you"]["wallet"] == 91_000
    )
    assert frame["state"]["seats"][2]["stack"] == 9000
    await socket.drain()
    assert socket.state["you"]["wallet"] == 91_000
    await socket.send({"type": "leave"})
    frame = await socket.until(
        lambda f: f["type"] == "update" and f["state"]["you"]["seat"] is None
    )
    assert frame["state"]["you"]["wallet"] == 100_000
    assert frame["state"]["seats"][2]["player"] is None
    await socket.close()


@sync_to_async
def corrupt(hand):
    """Break the stored hand as a fault outside the room would; the process that remembers
    the table (poker/services/unit.py, here the test's own) forgets it, so it reads the hand
    again as a process that never saw it would (a version moved without a frame would be a
    gap the pages resync over instead)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "UPDATE poker_hand SET state = jsonb_set(state, '{board}', '[\"As\"]') WHERE id = %s",
            [hand.pk],
        )
    memory_forget(hand.table_id)


async def test_players_are_told_why_a_broken_hand_was_cancelled():
    table = await new_table()
    ann = await seat_player(table, "ann", 1)
    ben = await seat_player(table, "ben", 2)
    sockets = await open_players(table, {1: ann, 2: ben})
    before = await money([ann, ben], table)
    hand = await start_hand(table)
    await corrupt(hand)
    to_act = EngineHand.from_dict(hand.state).to_act
    await sockets[to_act].act("call", turn=1)
    error = await sockets[to_act].until(lambda f: f["type"] == "error")
    assert error["code"] == "hand_cancelled"
    for socket in sockets.values():
        frame = await socket.until(
            lambda f: any(e["type"] == "hand_cancelled" for e in f.get("events", []))
        )
        event = next(e for e in frame["events"] if e["type"] == "hand_cancelled")
        assert event["hand_id"] == hand.pk and event["reason"]
        assert frame["state"]["hand"] is None
        assert frame["state"]["last_result"]["cancelled"] is True
        await socket.close()
    assert await money([ann, ben], table) == before


async def test_the_lobby_hears_when_a_seat_is_taken_or_its_player_sits_out():
    table = await new_table()
    ann = await sync_to_async(make_funded_player)("ann")
    lobby = WebsocketCommunicator(
        application, "/ws/lobby/", headers=await sync_to_async(session_headers_for)(ann)
    )
    assert (await lobby.connect())[0]
    await lobby.receive_json_from()  # welcome
    ben = await seat_player(table, "ben", 1)
    update = await lobby.receive_json_from(timeout=5)
    assert update == {
        "type": "lobby.update",
        "update": {"table": table.pk, "seats_taken": 1, "seats_playing": 1},
    }
    await sync_to_async(services.table_sit_out)(table=table, player=ben)
    update = await lobby.receive_json_from(timeout=5)
    assert update["update"] == {"table": table.pk, "seats_taken": 1, "seats_playing": 0}
    await lobby.disconnect()


async def test_a_frame_that_finds_no_free_database_connection_is_refused_as_busy(
    pooled_connections_taken,
):
    table = await new_table()
    ann = await sync_to_async(make_funded_player)("ann")
    socket = await TableSocket.open(table.pk, ann)
    await socket.receive()  # the snapshot
    # The socket's hello may still be running on a database thread, holding a connection the
    # pool gets back later; a snapshot is read after it (table order), so wait for one first.
    await socket.send({"type": "snapshot"})
    await socket.until(lambda f: f["type"] == "snapshot")
    sit = {"type": "sit", "seat": 3, "buy_in": 8000, "post_big_blind": False, "key": "busy-sit-1"}
    with pooled_connections_taken(timeout=0.3):
        await socket.send(sit)
        frame = await socket.until(lambda f: f["type"] == "error")
    assert frame["code"] == "busy"
    assert "nothing changed" in frame["message"]
    assert await money([ann], table) == {"ann": (100_000, 0)}
    # The same frame once connections are free again seats her, on the same socket.
    await socket.send(sit)
    frame = await socket.until(lambda f: f["type"] == "update" and f["state"]["you"]["seat"] == 3)
    assert frame["state"]["you"]["wallet"] == 92_000
    await socket.close()


# ------------------------------------------------------------------ versions and resync


@sync_to_async
def hole_cards_of(hand_id: int) -> dict[int, set[str]]:
    """Each seat's hole cards in the running hand, read from the engine's stored state."""
    engine = EngineHand.from_dict(Hand.objects.with_deck().get(pk=hand_id).state)
    return {seat: set(cards) for seat, cards in zip(engine.seats, engine.hole_cards, strict=True)}


async def test_a_reconnect_with_since_gets_exactly_the_frames_it_missed():
    """One player's page drops and the other calls; the new socket, opened with the version
    the page shows, gets every update after it in order and its own private parts, never the
    other player's cards, and the page then shows what a fresh snapshot shows."""
    table = await new_table()
    players = {1: await seat_player(table, "ann", 1), 2: await seat_player(table, "ben", 2)}
    sockets = {n: await TableSocket.open(table.pk, p) for n, p in players.items()}
    for socket in sockets.values():
        await socket.until(lambda f: f["type"] == "snapshot")
    hand = await start_hand(table)
    actor = EngineHand.from_dict(hand.state).to_act
    away = 3 - actor
    for socket in sockets.values():
        await socket.until_state(lambda s: bool(s["hand"]) and s["hand"]["id"] == hand.pk)
    await sockets[away].drain()
    page = sockets[away].mirror  # what the page shows when its socket drops
    since = page.version
    await sockets[away].close()
    await sockets[actor].act("call", turn=1)
    await sockets[actor].until_state(lambda s: s["hand"]["turn"] == 2)

    again = await TableSocket.open(table.pk, players[away], since=since)
    again.mirror = page
    answer = await again.receive()
    assert answer["type"] == "resync" and answer["since"] == since
    assert answer["heartbeat_seconds"] and isinstance(answer["chat"], list)
    now = (await sync_to_async(Table.objects.get)(pk=table.pk)).version
    updates = [f["version"] for f in answer["frames"] if f["type"] == "update"]
    # Its drop, the call, its return: every change since, the reconnect's own included.
    assert updates == list(range(since + 1, now + 1)) and len(updates) >= 3
    privates = [f for f in answer["frames"] if f["type"] == "private"]
    assert privates and all(f["hand"] is None or f["hand"]["seat"] == away for f in privates)
    others = (await hole_cards_of(hand.pk))[actor]
    text = json.dumps(answer["frames"])
    assert not [card for card in others if f'"{card}"' in text], "another's cards in a resync"
    for index, frame in enumerate(answer["frames"]):  # each private part just before its update
        if frame["type"] == "private":
            following = answer["frames"][index + 1]
            assert (following["type"], following["version"]) == ("update", frame["version"])
    shown = again.state
    assert shown["hand"]["turn"] == 2 and shown["hand"]["legal_actions"]["seat"] == away
    await again.send({"type": "snapshot"})
    fresh = (await again.until(lambda f: f["type"] == "snapshot"))["state"]
    assert shown["version"] == fresh["version"] == now
    assert shown["hand"] == fresh["hand"] and shown["you"] == fresh["you"]
    assert shown["seats"] == fresh["seats"]
    await again.close()
    await sockets[actor].close()


async def test_a_resync_answers_with_the_missed_frames_or_a_snapshot_once_they_are_gone():
    from config.frame_log import frames_forget_all

    table = await new_table()
    ann = await seat_player(table, "ann", 1)
    socket = await TableSocket.open(table.pk, ann)
    first = await socket.until(lambda f: f["type"] == "snapshot")
    version = first["state"]["version"]
    await socket.send({"type": "resync", "since": version})
    nothing = await socket.until(lambda f: f["type"] == "resync")
    assert nothing["frames"] == [] and "chat" not in nothing
    await socket.send({"type": "resync", "since": version - 1})
    one = await socket.until(lambda f: f["type"] == "resync")
    assert [(f["type"], f["version"]) for f in one["frames"]] == [
        ("private", version),  # her own connection: every seated player's own part
        ("update", version),
    ]
    await socket.send({"type": "resync", "since": -1})
    refused = await socket.until(lambda f: f["type"] == "error")
    assert refused["code"] == "bad_field"

    await sync_to_async(frames_forget_all)()  # Redis lost them (or they are too old)
    await socket.send({"type": "resync", "since": version - 1})
    snapshot = await socket.until(lambda f: f["type"] in ("snapshot", "resync"))
    assert snapshot["type"] == "snapshot" and snapshot["state"]["version"] == version
    await socket.close()
    # A page reconnecting from a version whose frames are gone, or with no version, starts over.
    for query in (f"?since={version - 1}", "?since=x"):
        headers = await sync_to_async(session_headers_for)(ann)
        path = f"/ws/tables/{table.pk}/{query}"
        communicator = WebsocketCommunicator(application, path, headers)
        connected, _ = await communicator.connect(timeout=10)
        assert connected
        assert (await communicator.receive_json_from(timeout=10))["type"] == "snapshot"
        await communicator.disconnect()
