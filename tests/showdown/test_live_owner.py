"""The live Showdown table on the owner model: its commands and timeouts run
at the table's owner (poker/owner.py), its changes are numbered frames built once and kept
in the frame log, a reconnect with `since` gets exactly the frames it missed, a second tab
supersedes the first and the reconnect limit holds as at poker tables, a stale timeout does
nothing, a stale owner's write is refused by the fencing check, and the frames name players
by their display names and never carry another player's cards or the deck before the round
settles."""

import asyncio
import json
import time
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from django.db import transaction
from django.utils import timezone

from accounts.services import profile_set_display_name
from config import leases
from config.frame_log import frames_forget_all, frames_read
from config.timeouts import Timeout
from poker import owner
from showdown import live, services
from showdown.live import live_decide, live_seat_take, live_wagers_place
from showdown.models import LiveRound, LiveSeat, ShowdownTable
from showdown.tasks import live_round_timeout, live_tables_heartbeat
from tests.factories import make_funded_player, make_showdown_table
from tests.showdown.play import BOARD, HOLES, Socket, cards, live_deck

pytestmark = pytest.mark.django_db(transaction=True)

ELSEWHERE = "owner|elsewhere:1|"  # another host's owner, by the lease's naming


@pytest.fixture
def live_table(transactional_db):
    frames_forget_all()  # table ids may come again with each test database
    return make_showdown_table(seats=7, bet_seconds=30, action_seconds=30)


@pytest.fixture
def dealt_deck(monkeypatch):
    deck = live_deck([HOLES["ann"], HOLES["bob"]], BOARD)
    monkeypatch.setattr(services, "deck_shuffle", lambda randbelow: list(deck))


def player(login: str, shown: str):
    user = make_funded_player(login)
    profile_set_display_name(user=user, display_name=shown)
    return user


def table_row(table_id: int) -> ShowdownTable:
    return ShowdownTable.objects.get(pk=table_id)


def versions(frames: list[dict]) -> list[int]:
    return [frame["version"] for frame in frames if frame["type"] in ("state", "private")]


async def test_a_reconnect_with_since_gets_exactly_the_frames_it_missed(live_table, dealt_deck):
    ann = await sync_to_async(player)("ann_login", "Annie")
    bob = await sync_to_async(player)("bob_login", "Bobby")
    cy = await sync_to_async(player)("cy_login", "Cyril")
    watching = await Socket.open(live_table.pk, cy)  # stays connected throughout
    await watching.until(lambda f: f["type"] == "snapshot")
    away = await Socket.open(live_table.pk, ann)
    await away.until(lambda f: f["type"] == "snapshot")
    await away.send({"type": "sit", "seat": 1})
    sat = await away.until(lambda f: f["type"] == "state")
    left_at = sat["version"]
    await away.communicator.disconnect()

    # Missed: bob sits, both wager (the deal: ann's hole cards are her own part), bob raises.
    await sync_to_async(live_seat_take)(player=bob, table_id=live_table.pk, seat=2)
    await sync_to_async(live_wagers_place)(
        player=ann, table_id=live_table.pk, ante=500, idempotency_key="ann-wager-1"
    )
    await sync_to_async(live_wagers_place)(
        player=bob, table_id=live_table.pk, ante=500, idempotency_key="bob-wager-1"
    )
    await sync_to_async(live_decide)(
        player=bob, table_id=live_table.pk, decision="raise", idempotency_key="bob-decide-1"
    )
    now = (await sync_to_async(table_row)(live_table.pk)).version
    assert now == left_at + 4
    await watching.until(lambda f: f.get("version") == now and f["type"] == "state")
    public = {f["version"]: f for f in watching.frames if f["type"] == "state"}

    back = await Socket.open_since(live_table.pk, ann, left_at)
    resync = await back.until(lambda f: f["type"] in ("resync", "snapshot"))
    assert resync["type"] == "resync" and resync["since"] == left_at
    missed = resync["frames"]
    # Every version once, in order, each of ann's own parts just before its public frame.
    assert [f["version"] for f in missed if f["type"] == "state"] == list(
        range(left_at + 1, now + 1)
    )
    assert [f["type"] for f in missed] == ["private", "state"] * 4
    assert versions(missed) == [v for v in range(left_at + 1, now + 1) for _ in (1, 2)]
    # The public frames are the very frames the connected socket got.
    assert [f for f in missed if f["type"] == "state"] == [
        public[v] for v in range(left_at + 1, now + 1)
    ]
    own = [f for f in missed if f["type"] == "private"]
    assert own[-1]["you"] == {"player": "Annie", "seat": 1, "wallet": 100_000 - 500}
    assert own[-1]["hand"]["hole"] == cards(HOLES["ann"])
    text = json.dumps(resync)
    for card in cards(HOLES["bob"]) + cards(BOARD):
        assert f'"{card}"' not in text, card
    # A connected socket asks the same with a `resync` frame: nothing newer, nothing sent but
    # an empty resync.
    await back.send({"type": "resync", "since": now})
    again = await back.until(lambda f: f["type"] == "resync")
    assert again["frames"] == []
    # Gone from the log: a snapshot instead.
    await sync_to_async(frames_forget_all)()
    await back.send({"type": "resync", "since": left_at})
    snapshot = await back.until(lambda f: f["type"] in ("resync", "snapshot"))
    assert snapshot["type"] == "snapshot" and snapshot["version"] == now
    assert snapshot["state"]["round"]["seats"][0]["hole"] == cards(HOLES["ann"])
    for socket in (watching, back):
        await socket.communicator.disconnect()


async def test_no_frame_carries_another_player_s_cards_or_a_login(live_table, dealt_deck):
    """Every frame every socket got, and every frame the log keeps, scanned before the round
    settles: each player's own hole cards only in their own frames, no board, no deck, and
    display names only."""
    ann = await sync_to_async(player)("ann_login", "Annie")
    bob = await sync_to_async(player)("bob_login", "Bobby")
    cy = await sync_to_async(player)("cy_login", "Cyril")
    sockets = {
        name: await Socket.open(live_table.pk, user)
        for name, user in (("ann", ann), ("bob", bob), ("cy", cy))
    }
    for socket in sockets.values():
        await socket.until(lambda f: f["type"] == "snapshot")
    await sockets["ann"].send({"type": "sit", "seat": 1})
    await sockets["bob"].send({"type": "sit", "seat": 2})
    await sockets["cy"].until(lambda f: len((f.get("state") or {}).get("seats", [])) == 2)
    await sockets["ann"].send({"type": "wager", "ante": 500, "key": "ann-wager-1"})
    await sockets["bob"].send({"type": "wager", "ante": 500, "key": "bob-wager-1"})
    for socket in sockets.values():
        await socket.until_phase("deciding")
    await sockets["ann"].send({"type": "decide", "decision": "call", "key": "ann-decide-1"})
    for socket in sockets.values():
        await socket.until(
            lambda f: f["type"] == "state" and f["state"]["round"]["seats"][0]["decided"]
        )
    table = await sync_to_async(table_row)(live_table.pk)
    kept = await sync_to_async(frames_read)(
        [
            live.group_name(table.pk),
            live.user_group_name(table.pk, ann.pk),
            live.user_group_name(table.pk, bob.pk),
            live.user_group_name(table.pk, cy.pk),
        ],
        0,
    )
    logged = {
        "public": [text for _v, text in kept[0][1]],
        "ann": [text for _v, text in kept[1][1]],
        "bob": [text for _v, text in kept[2][1]],
        "cy": [text for _v, text in kept[3][1]],
    }
    assert logged["public"] and logged["ann"] and logged["bob"] and not logged["cy"]
    texts = {name: socket.text() for name, socket in sockets.items()}
    texts.update({f"log-{name}": " ".join(frames) for name, frames in logged.items()})
    for name, text in texts.items():
        owner_name = name.removeprefix("log-")
        for other, hole in HOLES.items():
            for card in cards(hole):
                assert (f'"{card}"' in text) == (other == owner_name), (name, other, card)
        for card in cards(BOARD):
            assert f'"{card}"' not in text, (name, card)
        assert "deck" not in text
        assert "_login" not in text, name
    assert "Annie" in texts["cy"] and "Bobby" in texts["cy"]
    for socket in sockets.values():
        await socket.communicator.disconnect()


async def test_a_second_tab_supersedes_the_first_and_reconnects_are_limited(live_table, settings):
    settings.POKER_RECONNECT_LIMIT = 3
    settings.POKER_RECONNECT_WINDOW_SECONDS = 10**9  # one window for the whole test
    ann = await sync_to_async(make_funded_player)("ann")
    first = await Socket.open(live_table.pk, ann)
    await first.until(lambda f: f["type"] == "snapshot")
    second = await Socket.open(live_table.pk, ann)
    await second.until(lambda f: f["type"] == "snapshot")
    await first.until(lambda f: f["type"] == "superseded")
    closed = await first.communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4409}
    # The second tab plays on and hears the table.
    await second.send({"type": "sit", "seat": 4})
    frame = await second.until(lambda f: f["type"] == "state")
    assert frame["state"]["seats"][0]["seat"] == 4
    await second.communicator.disconnect()
    third = await Socket.open(live_table.pk, ann)
    await third.until(lambda f: f["type"] == "snapshot")
    await third.communicator.disconnect()
    # The fourth in the window: told why, closed with 4429, joins nothing.
    refused = await Socket.open(live_table.pk, ann)
    error = await refused.until(lambda f: f["type"] == "error")
    assert error["code"] == "too_many_reconnects" and error["message"]
    closed = await refused.communicator.receive_output(timeout=5)
    assert closed == {"type": "websocket.close", "code": 4429}


async def test_a_socket_s_command_runs_at_the_owner_holding_the_table(live_table, owner_routing):
    """The table's lease is held by another process's live owner: the socket's command is sent
    there, nothing runs here, and the owner's refusal comes back as the socket's error frame."""
    ann = await sync_to_async(make_funded_player)("ann")
    layer = get_channel_layer()
    elsewhere = await layer.new_channel()
    await sync_to_async(
        lambda: ShowdownTable.objects.filter(pk=live_table.pk).update(
            lease_owner=ELSEWHERE + elsewhere,
            lease_expires_at=timezone.now() + timedelta(seconds=30),
        )
    )()
    socket = await Socket.open(live_table.pk, ann)
    await socket.until(lambda f: f["type"] == "snapshot")
    me = owner.owner_channel()
    assert me is not None
    await socket.send({"type": "sit", "seat": 3})
    message = await asyncio.wait_for(layer.receive(elsewhere), 10)
    assert (message["type"], message["kind"], message["table"], message["reply_to"]) == (
        "owner.command",
        "showdown.command",
        live_table.pk,
        me,
    )
    assert message["payload"]["command"] == "TakeSeat"
    assert message["payload"]["fields"] == {"seat": 3}
    # Sent by the live table's own lease (not found there by trying it here first).
    assert owner._holders[("showdown", live_table.pk)][0] == ELSEWHERE + elsewhere
    assert not await sync_to_async(LiveSeat.objects.exists)()
    await layer.send(
        me,
        {"type": "owner.reply", "request": message["request"], "code": "nope", "message": "No."},
    )
    error = await socket.until(lambda f: f["type"] == "error")
    assert (error["code"], error["message"]) == ("nope", "No.")
    row = await sync_to_async(table_row)(live_table.pk)
    assert (row.version, row.lease_owner) == (live_table.version, ELSEWHERE + elsewhere)
    assert not await sync_to_async(LiveSeat.objects.exists)()
    await socket.communicator.disconnect()


async def test_the_owner_runs_a_command_sent_by_another_process(live_table, owner_routing):
    """This process's owner gets another process's socket command for a live table it holds
    no lease of: it runs it (taking the lease with the next epoch) and answers."""
    ann = await sync_to_async(make_funded_player)("ann")
    me = await owner.owner_start()
    layer = get_channel_layer()
    sender = await layer.new_channel()
    payload = {
        "table": live_table.pk,
        "command": "TakeSeat",
        "fields": {"seat": 5},
        "user": ann.pk,
    }
    await layer.send(
        me,
        {
            "type": "owner.command",
            "table": live_table.pk,
            "kind": "showdown.command",
            "payload": payload,
            "lang": "en",
            "reply_to": sender,
            "request": "r1",
        },
    )
    reply = await asyncio.wait_for(layer.receive(sender), 10)
    assert (reply["request"], reply.get("code"), reply["result"]) == ("r1", None, "done")
    seat = await sync_to_async(LiveSeat.objects.get)()
    assert (seat.number, seat.player_id) == (5, ann.pk)
    row = await sync_to_async(table_row)(live_table.pk)
    assert row.lease_owner == owner.owner_identity()
    assert (row.lease_epoch, row.version) == (live_table.lease_epoch + 1, live_table.version + 1)
    assert (
        await owner.holder_of(live_table.pk, table_kind="showdown", fresh=True) == row.lease_owner
    )
    # A poker table of the same id is another table: its holder is its own.
    assert await owner.holder_of(live_table.pk, fresh=True) != row.lease_owner


async def test_the_heartbeat_tells_a_socket_the_table_s_version(live_table, settings):
    ann = await sync_to_async(make_funded_player)("ann")
    socket = await Socket.open(live_table.pk, ann)
    snapshot = await socket.until(lambda f: f["type"] == "snapshot")
    assert snapshot["heartbeat_seconds"] == settings.POKER_HEARTBEAT_SECONDS
    await sync_to_async(live_seat_take)(player=ann, table_id=live_table.pk, seat=2)
    assert await sync_to_async(live_tables_heartbeat)() >= 1
    beat = await socket.until(lambda f: f["type"] == "heartbeat")
    assert beat["version"] == snapshot["version"] + 1
    await socket.communicator.disconnect()


def dealt_round(table) -> LiveRound:
    ann, bob = make_funded_player("ann"), make_funded_player("bob")
    live_seat_take(player=ann, table_id=table.pk, seat=1)
    live_seat_take(player=bob, table_id=table.pk, seat=2)
    live_wagers_place(player=ann, table_id=table.pk, ante=500, idempotency_key="ann-wager-1")
    live_wagers_place(player=bob, table_id=table.pk, ante=500, idempotency_key="bob-wager-1")
    return LiveRound.objects.get()


def test_a_stale_timeout_does_nothing(live_table):
    """The betting window's timeout after the round was dealt, and the decision's before its
    deadline: nothing changes (no version, no lease, no decision)."""
    live_round = dealt_round(live_table)
    assert live_round.phase == LiveRound.Phase.DECIDING
    before = table_row(live_table.pk)
    at = time.time()
    assert (
        live_round_timeout(Timeout("showdown.round", live_table.pk, live_round.pk, "betting", at))
        == ""
    )
    assert (
        live_round_timeout(Timeout("showdown.round", live_table.pk, live_round.pk, "deciding", at))
        == ""
    )
    after = table_row(live_table.pk)
    assert (after.version, after.lease_epoch) == (before.version, before.lease_epoch)
    assert not live_round.seat_rounds.exclude(decision="").exists()
    # Due now: it acts (the undecided fold and the board settles).
    LiveRound.objects.filter(pk=live_round.pk).update(
        action_deadline=timezone.now() - timedelta(seconds=1)
    )
    assert (
        live_round_timeout(Timeout("showdown.round", live_table.pk, live_round.pk, "deciding", at))
        == "settled"
    )
    assert table_row(live_table.pk).version == before.version + 1


async def test_a_due_timeout_goes_to_the_live_owner(live_table, owner_routing):
    live_round = await sync_to_async(dealt_round)(live_table)
    layer = get_channel_layer()
    elsewhere = await layer.new_channel()
    await sync_to_async(
        lambda: ShowdownTable.objects.filter(pk=live_table.pk).update(
            lease_owner=ELSEWHERE + elsewhere,
            lease_expires_at=timezone.now() + timedelta(seconds=30),
        )
    )()
    before = await sync_to_async(table_row)(live_table.pk)
    timeout = Timeout("showdown.round", live_table.pk, live_round.pk, "deciding", time.time())
    assert await sync_to_async(live_round_timeout)(timeout) == "owner"
    message = await asyncio.wait_for(layer.receive(elsewhere), 10)
    assert (message["kind"], message["table"], message["payload"]) == (
        "showdown.timeout",
        live_table.pk,
        {"timeout": ["showdown.round", live_table.pk, live_round.pk, "deciding", timeout.at]},
    )
    assert (await sync_to_async(table_row)(live_table.pk)).version == before.version


def test_a_stale_owner_s_write_is_refused_by_the_fencing_check(live_table):
    """A change that holds the table under an epoch the lease has moved past writes nothing."""
    ann = make_funded_player("ann")
    live_seat_take(player=ann, table_id=live_table.pk, seat=1)
    held = table_row(live_table.pk)
    version, epoch = held.version, held.lease_epoch
    ShowdownTable.objects.filter(pk=live_table.pk).update(lease_epoch=epoch + 1)
    with pytest.raises(leases.StaleOwner), transaction.atomic():
        live._changed(held, None)
    after = table_row(live_table.pk)
    assert (after.version, after.lease_epoch) == (version, epoch + 1)
