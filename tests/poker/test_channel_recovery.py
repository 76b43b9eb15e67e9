"""A table whose channel layer lost its data heals itself (config/channel_health.py).

Real sockets on the real Redis channel layer, then a real `FLUSHDB` of that layer's database:
sockets re-join their groups within `CHANNEL_REJOIN_SECONDS` (1 s in tests), the room's
heartbeat tells them which version they missed, and the timers hold turns until the path is
healed instead of folding players who could not see them.
"""

import asyncio
import json
import time
from datetime import timedelta

import pytest
from channels.db import database_sync_to_async as sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.test import override_settings
from django.utils import timezone

from config.asgi import application
from config.channel_health import broadcast_healed_at
from config.timeouts import timeout_fire
from poker import services
from poker.broadcast import player_group_name
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Table
from poker.tasks import sweep_tables, tables_heartbeat
from tests.factories import (
    TableSocket,
    channel_layer_flush,
    make_player,
    make_seated_player,
    make_table,
    session_headers_for,
)

pytestmark = pytest.mark.django_db(transaction=True)

REJOIN = settings.CHANNEL_REJOIN_SECONDS
# How long a socket test waits for a frame before it fails: only a bound on a failure (every
# wait ends as soon as its frame comes), long enough for a machine busy with other work.
BOUND = 30


@pytest.fixture(autouse=True)
def redis_channel_layer():
    if settings.EMBEDDED:
        pytest.skip("flushing the channel layer needs REDIS_URL (the Redis channel layer)")


def seated_table(**fields) -> tuple[Table, dict]:
    fields.setdefault("next_hand_delay_seconds", 3600)  # one hand per test, dealt by the test
    table = make_table(**fields)
    players = {1: make_seated_player(table, "ann", 1), 2: make_seated_player(table, "ben", 2)}
    for player in players.values():  # no disconnection grace in the deadlines
        services.table_connection_set(table=table, player=player, connected=True)
    return table, players


def deal(table) -> Hand:
    Table.objects.filter(pk=table.pk).update(next_hand_at=None)
    return services.table_hand_start(table=table)


def to_act(hand: Hand) -> int:
    return EngineHand.from_dict(hand.state).to_act


def wait_for(condition, *, timeout: float = 10, what: str = ""):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def back_date(hand: Hand) -> None:
    """The turn's time ran out five seconds ago (instead of waiting for it)."""
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=5))


def layer_sound() -> None:
    """Wait until the room trusts its channel layer (its marker is there and old enough)."""
    wait_for(lambda: broadcast_healed_at() is None, timeout=REJOIN + 5, what="a sound layer")


# ------------------------------------------------------------------ sockets


async def beat_forever(every: float = 0.25) -> None:
    """What Celery beat does with `poker.tables_heartbeat`, faster."""
    while True:
        await sync_to_async(tables_heartbeat)()
        await asyncio.sleep(every)


async def groups_back(socket, user, *, probes: int = 200) -> None:
    """Wait until the socket's own periodic re-join has put it back in all its groups: a notice
    to the player's group reaches it. Each re-join pass joins the table's group, the player's
    own at this table, then the player's group, so the first two are back by then too. A
    notice sent while the socket is out of the group is dropped, so one goes every 0.1 s."""
    layer = get_channel_layer()
    for probe in range(probes):
        # What poker.broadcast.send_to_player sends, from this loop (no thread to wait for).
        text = json.dumps({"type": "probe", "n": probe})
        await layer.group_send(player_group_name(user.pk), {"type": "player.notice", "text": text})
        while not await socket.communicator.receive_nothing(timeout=0.1):
            if (await socket.receive())["type"] == "probe":
                return
    raise AssertionError(f"{user.username}'s socket never re-joined its groups")


async def test_after_a_flush_sockets_rejoin_and_the_heartbeat_shows_what_they_missed():
    """Every wait here is for something the sockets show (a frame, a row), never for a time:
    the re-join interval is the sockets' business, however busy the machine."""
    table, players = await sync_to_async(seated_table)()
    sockets = {n: await TableSocket.open(table.pk, p) for n, p in players.items()}
    for socket in sockets.values():
        snapshot = await socket.until(lambda f: f["type"] == "snapshot")
        assert snapshot["heartbeat_seconds"] == settings.POKER_HEARTBEAT_SECONDS
    hand = await sync_to_async(deal)(table)
    actor = to_act(hand)
    other = 3 - actor
    for socket in sockets.values():
        await socket.until_state(lambda s: bool(s["hand"]) and s["hand"]["id"] == hand.pk)

    await sync_to_async(channel_layer_flush)()
    await sockets[actor].act("call", turn=1)
    # Its update went nowhere (or to a socket that re-joined already); the database shows it.
    # (Polled from this loop: the sockets' service calls need the threads a blocking wait holds.)
    called = sync_to_async(lambda: Hand.objects.filter(pk=hand.pk, turn=2).exists())
    for _ in range(600):
        if await called():
            break
        await asyncio.sleep(0.05)
    else:
        raise AssertionError("the call was not played")
    version = (await sync_to_async(Table.objects.get)(pk=table.pk)).version

    beating = asyncio.create_task(beat_forever())
    try:
        # The other player's socket is back in the table's group by its own re-join, without
        # reconnecting: it gets the call's update if it re-joined before the call was sent,
        # else the room's heartbeat tells it the version it has not seen, and it asks for a
        # snapshot. (The timeout only bounds a failure: a re-join comes every second.)
        learned = await sockets[other].until(
            lambda f: (
                f["type"] != "private"  # one's own part comes just before the update
                and f.get("version", f.get("state", {}).get("version", 0)) >= version
            ),
            timeout=REJOIN + BOUND,
        )
        if learned["type"] == "heartbeat":
            assert sockets[other].state["version"] < version
            await sockets[other].send({"type": "snapshot"})
            await sockets[other].until(lambda f: f["type"] == "snapshot", timeout=BOUND)
        state = sockets[other].state
        assert state["version"] >= version
        assert state["hand"]["turn"] == 2
        assert state["hand"]["legal_actions"]["seat"] == other
        beat = await sockets[other].until(lambda f: f["type"] == "heartbeat", timeout=BOUND)
        assert beat["version"] == state["version"]

        # Once every socket has re-joined, updates flow as before.
        for number, socket in sockets.items():
            await groups_back(socket, players[number])
        await sockets[other].act("check", turn=2)
        # The update itself reaches the actor's socket. (Its page shows the call's version
        # still, so it would hold this update and ask for a snapshot: that is the page's part,
        # checked above for the other socket.)
        update = await sockets[actor].until(
            lambda f: f["type"] == "update" and (f.get("hand_changes") or {}).get("turn") == 3,
            timeout=BOUND,
        )
        assert update["hand_changes"]["street"] == "flop"
    finally:
        beating.cancel()

    # The per-player group is back too: a second tab still supersedes the first.
    again = await TableSocket.open(table.pk, players[actor])
    await sockets[actor].until(lambda f: f["type"] == "superseded", timeout=BOUND)
    for socket in (again, *sockets.values()):
        await socket.close()


async def test_a_page_may_ask_for_a_snapshot_at_most_once_a_second():
    table, players = await sync_to_async(seated_table)()
    socket = await TableSocket.open(table.pk, players[1])
    await socket.until(lambda f: f["type"] == "snapshot")
    await socket.send({"type": "snapshot"})
    again = await socket.until(lambda f: f["type"] == "snapshot")
    table = await sync_to_async(Table.objects.get)(pk=table.pk)
    assert again["state"]["version"] == table.version  # read now, not remembered
    assert again["state"]["you"]["seat"] == 1
    await socket.send({"type": "snapshot"})
    refused = await socket.until(lambda f: f["type"] == "error")
    assert refused["code"] == "too_soon"
    await socket.close()


async def test_the_lobby_socket_rejoins_its_group_after_a_flush():
    table = await sync_to_async(make_table)()
    watcher = await sync_to_async(make_player)("watcher")
    headers = await sync_to_async(session_headers_for)(watcher)
    lobby = WebsocketCommunicator(application, "/ws/lobby/", headers)
    connected, _ = await lobby.connect(timeout=10)
    assert connected
    assert (await lobby.receive_json_from(timeout=5))["type"] == "welcome"

    await sync_to_async(channel_layer_flush)()
    await asyncio.sleep(REJOIN + 0.5)  # every socket has re-joined once since
    await sync_to_async(make_seated_player)(table, "cat", 3)
    frame = await lobby.receive_json_from(timeout=3)
    assert frame == {"type": "lobby.update", "update": {"table": table.pk, "seats_taken": 1}}
    await lobby.disconnect()


# ------------------------------------------------------------------ timers


@override_settings(CHANNEL_REJOIN_SECONDS=1.0)
def test_timers_hold_a_turn_that_ran_out_while_the_layer_was_flushed():
    table, _ = seated_table()
    hand = deal(table)
    actor = to_act(hand)
    layer_sound()

    channel_layer_flush()
    back_date(hand)
    version = Table.objects.get(pk=table.pk).version
    done = sweep_tables()
    assert done["held"] == 1 and done["timeouts"] == 0
    healed_at = broadcast_healed_at()
    assert healed_at is not None  # the room noticed the flush itself
    hand.refresh_from_db()
    assert hand.status == Hand.Status.RUNNING and hand.turn == 1
    assert to_act(hand) == actor
    # A whole turn from the moment every socket has re-joined, and the players are told.
    full_turn = healed_at + timedelta(seconds=table.action_seconds)
    assert abs((hand.deadline - full_turn).total_seconds()) < 0.01
    assert Table.objects.get(pk=table.pk).version == version + 1

    # A turn timer arriving while the path is still healing holds the turn as well.
    back_date(hand)
    assert timeout_fire("poker.turn", table.pk, hand.pk, 1, time.time()) == "held"
    hand.refresh_from_db()
    assert hand.deadline > timezone.now() + timedelta(seconds=table.action_seconds - 5)

    # Once healed, a turn that runs out times out as usual.
    layer_sound()
    back_date(hand)
    assert sweep_tables()["timeouts"] == 1
    hand.refresh_from_db()
    assert hand.status == Hand.Status.FINISHED
    assert [e["action"] for e in hand.state["events"] if e["type"] == "action"] == ["fold"]


def test_a_channel_layer_that_does_not_answer_counts_as_broken():
    layers = {
        "default": {
            "BACKEND": "channels_redis.core.RedisChannelLayer",
            "CONFIG": {"hosts": [{"address": "redis://127.0.0.1:1/0"}]},  # nothing listens
        }
    }
    now = timezone.now()
    with override_settings(CHANNEL_LAYERS=layers, CHANNEL_REJOIN_SECONDS=5):
        assert broadcast_healed_at(now) == now + timedelta(seconds=6)
    with override_settings(
        CHANNEL_LAYERS={"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    ):
        assert broadcast_healed_at(now) is None  # nothing in Redis to lose


def test_a_hold_leaves_a_turn_alone_that_runs_well_past_the_healing():
    table, _ = seated_table(action_seconds=30, countdown_seconds=20)
    hand = deal(table)
    deadline = hand.deadline
    assert services.hands_hold(healed_at=deadline - timedelta(seconds=25)) == 0
    hand.refresh_from_db()
    assert hand.deadline == deadline
    healed_at = deadline - timedelta(seconds=15)  # 15 s left after healing: under the countdown
    assert services.hands_hold(healed_at=healed_at) == 1
    hand.refresh_from_db()
    assert hand.deadline == healed_at + timedelta(seconds=30)
    assert services.hands_hold(healed_at=healed_at) == 0  # the same healing holds once
