"""What each socket receives (docs/protocol.md "Frames"), on the real Redis channel layer.

The public `update` goes to the table's group once per change; a player's own part (`you`,
hole cards, legal actions) goes as a `private` frame to their own group only. Counted here per
action and per socket in a hand of four players and a spectator; the small frames must add up
to exactly the STATE a fresh snapshot shows.
"""

import asyncio
import json

import pytest
from channels.db import database_sync_to_async as sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings

from poker import broadcast, services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Table
from poker.selectors import TableView, table_state_for
from tests.factories import (
    TableSocket,
    default_rake_schedule_row,
    make_funded_player,
    make_seated_player,
    make_table,
)
from tests.poker.table_sockets import assert_no_leaks, hands_by_id

pytestmark = pytest.mark.django_db(transaction=True)

SEATS = (1, 2, 4, 5)


@pytest.fixture(autouse=True)
def redis_channel_layer():
    if settings.EMBEDDED:
        pytest.skip("counts what the Redis channel layer carries (REDIS_URL)")


@sync_to_async
def four_players():
    table = make_table(
        rake_schedule=default_rake_schedule_row(Table.Structure.POT_LIMIT),
        next_hand_delay_seconds=3600,  # the test deals
    )
    return table, {n: make_seated_player(table, f"p{n}", n) for n in SEATS}


@sync_to_async
def deal(table) -> Hand:
    Table.objects.filter(pk=table.pk).update(next_hand_at=None)
    return services.table_hand_start(table=table)


@sync_to_async
def act_once(hand_id: int, players: dict) -> tuple[int, int, bool]:
    """The player to act calls or checks (raises once on the flop, so amounts move):
    (their seat, the table's version after, whether the hand is still running)."""
    hand = Hand.objects.get(pk=hand_id)
    engine = EngineHand.from_dict(hand.state)
    legal = engine.legal_actions()
    action, amount = ("call", None) if legal.call else ("check", None)
    if engine.street_name == "flop" and legal.raise_kind == "bet":
        action, amount = "bet", legal.min_to
    services.table_act(
        table=hand.table,
        player=players[legal.seat],
        action=action,
        amount=amount,
        turn=hand.turn,
        seq=hand.turn,
    )
    hand.refresh_from_db()
    version = Table.objects.get(pk=hand.table_id).version
    return legal.seat, version, hand.status == Hand.Status.RUNNING


@sync_to_async
def snapshot_of(table, player):
    return table_state_for(table=table, player=player)


async def until_version(socket, version):
    """Every frame of the change that made `version` (its private frames come first)."""
    start = len(socket.frames)
    await socket.until(lambda f: f["type"] == "update" and f["version"] >= version)
    return socket.frames[start:]


async def test_each_socket_gets_the_public_frame_once_and_only_its_own_private_part():
    table, players = await four_players()
    sockets = {}
    for number, player in players.items():
        sockets[number] = await TableSocket.open(table.pk, player)
        assert (await sockets[number].receive())["type"] == "snapshot"
    spectator_user = await sync_to_async(make_funded_player)("sam")
    spectator = await TableSocket.open(table.pk, spectator_user)
    await spectator.receive()
    everyone = {**sockets, None: spectator}
    owners = {**players, None: spectator_user}
    version = (await sync_to_async(Table.objects.get)(pk=table.pk)).version
    for number, socket in everyone.items():
        # The others' sockets connecting, heard by the first; and a player's own connecting,
        # whose update comes after the snapshot that already shows it.
        if number is not None or socket.state["version"] < version:
            await until_version(socket, version)

    hand = await deal(table)
    version = (await sync_to_async(Table.objects.get)(pk=table.pk)).version
    dealt = {n: await until_version(s, version) for n, s in everyone.items()}
    for number, frames in dealt.items():
        kinds = [f["type"] for f in frames]
        # The deal (the hand's commitment, then the cards): the spectator hears the table; each
        # player also their own part of each change, just before its update.
        changes = kinds.count("update")
        assert changes in (1, 2), kinds
        assert kinds == (
            ["update"] * changes if number is None else ["private", "update"] * changes
        )
        if number is not None:
            mine = frames[-2]["hand"]
            assert mine["seat"] == number and len(mine["cards"]) == 4
            assert frames[-2]["you"]["seat"] == number

    actions = 0
    running = True
    while running:
        actor, version, running = await act_once(hand.pk, players)
        actions += 1
        now_to_act = None
        if running:
            now_to_act = EngineHand.from_dict(
                (await sync_to_async(Hand.objects.get)(pk=hand.pk)).state
            ).to_act
        for number, socket in everyone.items():
            frames = await until_version(socket, version)
            updates = [f for f in frames if f["type"] == "update"]
            private = [f for f in frames if f["type"] == "private"]
            assert len(updates) == 1, [f["type"] for f in frames]
            assert len(private) <= 1
            assert number is not None or not private  # a spectator: public frames only
            if running:
                # An action: the public frame to all; one's own part only to the player who
                # acted and the one now to act (their legal actions), and when it dealt a street
                # to every player still in (the reading of their hand).
                street = any(e["type"] == "street_dealt" for e in updates[0]["events"])
                still_in = number is not None and not next(
                    s["folded"] for s in socket.state["hand"]["seats"] if s["seat"] == number
                )
                expected = 1 if number in (actor, now_to_act) or (street and still_in) else 0
                assert len(private) == expected, (number, actor, now_to_act, frames)
                assert "seats" not in updates[0] and "last_result" not in updates[0]
            for frame in private:
                assert frame["you"]["seat"] == number
                assert frame["hand"] is None or frame["hand"]["seat"] == number
                legal = frame["hand"] and frame["hand"]["legal_actions"]
                assert not legal or (number == now_to_act and legal["seat"] == number)
            # The frames so far add up to what a fresh snapshot shows this socket.
            assert socket.state == await snapshot_of(table, owners[number]), number
    assert actions >= 8

    hands = await hands_by_id(table)
    for number, socket in everyone.items():
        assert_no_leaks(socket.frames, lambda h, n=number: n, hands)
        await socket.close()


async def test_the_table_group_carries_nobodys_hidden_cards():
    """A channel in the table's group (what every consumer, and Redis, carries for each
    socket) sees only public frames: no legal actions, no `you`, and no hole cards until they
    are shown at the showdown (then only the shown ones)."""
    table, players = await four_players()
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(broadcast.group_name(table.pk), channel)
    hand = await deal(table)
    running = True
    while running:
        _, _, running = await act_once(hand.pk, players)
    row = (await hands_by_id(table))[hand.pk]
    showdown = {e["seat"] for e in row.state["result"]["showdown"] if e["shown"]}
    holes = dict(
        zip((s for s, _ in row.state["setup"]["seats"]), row.state["hole_cards"], strict=True)
    )
    frames = []
    while True:
        try:
            message = await asyncio.wait_for(layer.receive(channel), timeout=1)
        except TimeoutError:
            break
        assert message["type"] == "table.update"
        frames.append(json.loads(message["text"]))
    await layer.group_discard(broadcast.group_name(table.pk), channel)
    assert len(frames) >= 9  # the deal, every action
    shown: set[int] = set()
    for frame in frames:
        assert frame["type"] == "update" and "you" not in frame
        hand = frame.get("hand") or frame.get("hand_changes") or {}
        assert hand.get("you") is None and hand.get("legal_actions") is None
        shown |= {e["seat"] for e in frame["events"] if e["type"] == "cards_shown"}
        # The draw for the button shows one card of each seat's, from another deck.
        text = json.dumps(
            {**frame, "events": [e for e in frame["events"] if e["type"] != "button_drawn"]}
        )
        for seat, cards in holes.items():
            leaked = [card for card in cards if f'"{card}"' in text]
            assert not leaked or seat in shown, (seat, leaked, frame)
    assert shown == showdown


async def test_an_action_frame_is_a_fraction_of_the_state():
    """The update of an action carries the events and the hand, not the seats, the table or
    the last result: well under half of the whole public STATE."""
    table, players = await four_players()
    hand = await deal(table)
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(broadcast.group_name(table.pk), channel)
    await act_once(hand.pk, players)
    message = await asyncio.wait_for(layer.receive(channel), timeout=3)
    await layer.group_discard(broadcast.group_name(table.pk), channel)
    whole = await sync_to_async(lambda: TableView(Table.objects.get(pk=table.pk)).state_for(None))()
    size, whole_size = len(message["text"]), len(json.dumps(whole, separators=(",", ":")))
    assert size < whole_size / 2, (size, whole_size)
    assert size < 1200, size
