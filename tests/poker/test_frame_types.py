"""The frames the sockets really send are their TypedDicts: a hand played
through the table's sockets, with every other frame the table and lobby sockets send (pong,
error, snapshot, resync, heartbeat, chat, a second tab, a seat offer, an exclusion), and a live
Showdown round through its sockets, every frame each socket received checked against
`poker.frames.TABLE_FRAMES`, `lobby.frames.LOBBY_FRAMES` and `showdown.frames.SHOWDOWN_FRAMES`:
its required fields present, nothing undeclared, each value of its declared type (nested
TypedDicts too), and the events in a table's frames exactly their `HandEvent` or `TableEvent`.
docs/protocol.md is held to the same TypedDicts by tests/poker/test_protocol_names.py."""

import asyncio
import json
import types
from collections.abc import Mapping, Sequence
from typing import (
    Any,
    Literal,
    NotRequired,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

import pytest
from channels.db import database_sync_to_async as sync_to_async
from channels.testing import WebsocketCommunicator
from django.contrib.auth import get_user_model

from config.asgi import application
from config.frames import frame_fields
from lobby.frames import LOBBY_FRAMES
from poker import broadcast, services
from poker.engine.events import HAND_EVENTS
from poker.frames import TABLE_FRAMES, TABLE_VERSIONED_FRAMES
from poker.models import ChatMessage, Table
from poker.services.events import TABLE_EVENTS
from showdown import live
from showdown import services as showdown_services
from showdown.frames import SHOWDOWN_FRAMES, SHOWDOWN_VERSIONED_FRAMES
from tests.factories import (
    TableSocket,
    make_funded_player,
    make_showdown_table,
    session_headers_for,
)
from tests.poker.table_sockets import (
    check_or_call,
    new_table,
    open_players,
    play_hand,
    seat_player,
    start_hand,
)
from tests.showdown.play import BOARD, HOLES, Socket, live_deck

pytestmark = pytest.mark.django_db(transaction=True)


# -- the checker


def problems(value: Any, hint: Any, path: str = "frame") -> list[str]:
    """Where `value` (decoded JSON) is not of type `hint`; [] when it is."""
    origin = get_origin(hint)
    if hint is Any:
        return []
    if origin is NotRequired:
        return problems(value, get_args(hint)[0], path)
    if origin in (Union, types.UnionType):
        return union_problems(value, get_args(hint), path)
    if origin is Literal:
        return [] if value in get_args(hint) else [f"{path}: {value!r} is not one of {hint}"]
    if is_typeddict(hint):
        return typeddict_problems(value, hint, path)
    if origin in (list, Sequence, dict, Mapping) or hint in (dict, Mapping):
        return container_problems(value, hint, path)
    return scalar_problems(value, hint, path)


def union_problems(value: Any, arms: tuple, path: str) -> list[str]:
    if value is None and type(None) in arms:
        return []
    arms = tuple(arm for arm in arms if arm is not type(None))
    found = [problems(value, arm, path) for arm in arms]
    if any(not each for each in found):
        return []
    return found[0] if len(arms) == 1 else [f"{path}: {value!r} is none of {arms}"]


def typeddict_problems(value: Any, hint: type, path: str) -> list[str]:
    """A required field missing, a field not declared, or a field's value of another type."""
    if not isinstance(value, dict):
        return [f"{path}: {value!r} is not a {hint.__name__}"]
    hints = get_type_hints(hint, include_extras=True)
    found = [
        f"{path}: {hint.__name__} lacks {name!r}"
        for name, required in frame_fields(hint).items()
        if required and name not in value
    ]
    found += [
        f"{path}: {name!r} is not declared by {hint.__name__}"
        for name in value
        if name not in hints
    ]
    for name, inner in value.items():
        if name in hints:
            found += problems(inner, hints[name], f"{path}.{name}")
    return found


def container_problems(value: Any, hint: Any, path: str) -> list[str]:
    if get_origin(hint) in (list, Sequence):
        if not isinstance(value, list):
            return [f"{path}: {value!r} is not a list"]
        (item,) = get_args(hint)
        return [p for i, each in enumerate(value) for p in problems(each, item, f"{path}[{i}]")]
    if not isinstance(value, dict):
        return [f"{path}: {value!r} is not an object"]
    _key, item = get_args(hint) or (str, Any)
    return [p for name, each in value.items() for p in problems(each, item, f"{path}.{name}")]


def scalar_problems(value: Any, hint: Any, path: str) -> list[str]:
    """JSON's scalars: a whole number is no bool; a float may be written as a whole number."""
    if hint is type(None):
        ok = value is None
    elif hint is int:
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif hint is float:
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif hint in (bool, str):
        ok = isinstance(value, hint)
    else:
        raise AssertionError(f"{path}: the checker does not know {hint!r}")
    return [] if ok else [f"{path}: {value!r} is not {getattr(hint, '__name__', hint)}"]


def event_problems(event: dict[str, Any], path: str) -> list[str]:
    """An event of an `update` frame or a snapshot's `log`: exactly its TypedDict's fields (a
    hand event also `hand_id`, and never its `burn`), each of its declared type."""
    kind = event.get("type")
    if kind in HAND_EVENTS:
        definition = HAND_EVENTS[kind]
        found = [] if isinstance(event.get("hand_id"), int) else [f"{path}: no hand_id"]
        found += [f"{path}: a burn card in a frame"] if "burn" in event else []
        bare = {name: value for name, value in event.items() if name != "hand_id"}
        if kind == "street_dealt":
            bare["burn"] = "??"  # left out of every frame (redact_event)
        return found + problems(bare, definition, path)
    if kind in TABLE_EVENTS:
        return problems(event, TABLE_EVENTS[kind], path)
    return [f"{path}: {kind!r} is no event"]


def frame_problems(
    frame: dict[str, Any], frames: dict[str, type], versioned: dict[str, type] | None = None
) -> list[str]:
    """A frame as a socket received it, against its socket's frame types; the frames inside a
    `resync` against the socket's versioned ones."""
    kind = frame.get("type")
    if kind not in frames:
        return [f"{kind!r} is not one of this socket's frames"]
    path = f"{kind}@{frame.get('version', '')}"
    found = problems(frame, frames[kind], path)
    events = frame.get("events", []) if kind == "update" else frame.get("log", [])
    if kind in ("update", "snapshot") and frames is TABLE_FRAMES:
        found += [p for i, e in enumerate(events) for p in event_problems(e, f"{path}[{i}]")]
    if kind == "resync" and versioned is not None:
        for inner in frame["frames"]:
            found += frame_problems(inner, versioned, versioned)
    return found


def test_the_checker_finds_a_missing_an_undeclared_and_a_mistyped_field():
    good = {"type": "heartbeat", "version": 3}
    assert frame_problems(good, TABLE_FRAMES) == []
    assert frame_problems({"type": "heartbeat"}, TABLE_FRAMES)
    assert frame_problems({**good, "extra": 1}, TABLE_FRAMES)
    assert frame_problems({**good, "version": "3"}, TABLE_FRAMES)
    assert frame_problems({**good, "version": True}, TABLE_FRAMES)
    assert frame_problems({"type": "state", "version": 3}, TABLE_FRAMES)  # Showdown's
    seat_offer_ended = {"type": "seat_offer_ended", "table": 1, "reason": "taken"}
    assert frame_problems(seat_offer_ended, TABLE_FRAMES) == []
    assert frame_problems({**seat_offer_ended, "reason": "gone"}, TABLE_FRAMES)
    update = {"type": "update", "version": 2, "events": [{"type": "player_leaving", "seat": 1}]}
    assert frame_problems(update, TABLE_FRAMES) == []
    update["events"][0]["player"] = None
    assert frame_problems(update, TABLE_FRAMES)
    # Inside a resync: only the versioned frames.
    resync = {"type": "resync", "since": 1, "frames": [good]}
    assert frame_problems(resync, TABLE_FRAMES, TABLE_VERSIONED_FRAMES)


# -- the table and lobby sockets


async def lobby_open(player) -> WebsocketCommunicator:
    headers = await sync_to_async(session_headers_for)(player)
    lobby = WebsocketCommunicator(application, "/ws/lobby/", headers=headers)
    assert (await lobby.connect(timeout=10))[0]
    return lobby


async def lobby_until(lobby, received: list[dict], kind: str) -> dict:
    while True:
        frame = await lobby.receive_json_from(timeout=10)
        received.append(frame)
        if frame["type"] == kind:
            return frame


@sync_to_async
def table_version(table) -> int:
    return Table.objects.get(pk=table.pk).version


@sync_to_async
def chat_line_remove() -> None:
    staff = get_user_model().objects.create_superuser("boss", "boss@example.com", "pw-boss-123")
    line = ChatMessage.objects.get()
    services.chat_message_remove(message=line, staff=staff, reason="spam")


class Room:
    """A two-seat table with its players' sockets, a watcher, a player waiting for a seat
    and that player's lobby socket: every frame each of them received."""

    def __init__(self, table, players, sockets, watcher, waiting, lobby) -> None:
        self.table, self.players, self.sockets = table, players, sockets
        self.watcher, self.waiting, self.lobby = watcher, waiting, lobby
        self.lobby_frames: list[dict] = []
        self.everyone = [*sockets.values(), watcher, waiting]

    @classmethod
    async def open(cls) -> "Room":
        table = await new_table(max_seats=2)
        players = {1: await seat_player(table, "ann", 1), 2: await seat_player(table, "ben", 2)}
        sam = await sync_to_async(make_funded_player)("sam")  # watches
        cat = await sync_to_async(make_funded_player)("cat")  # waits for a seat
        lobby = await lobby_open(cat)
        sockets = await open_players(table, players)
        watcher = await TableSocket.open(table.pk, sam)
        waiting = await TableSocket.open(table.pk, cat)
        room = cls(table, players, sockets, watcher, waiting, lobby)
        await room.lobby_until("welcome")
        for socket in (watcher, waiting):
            await socket.until(lambda f: f["type"] == "snapshot")
        return room

    async def lobby_until(self, kind: str) -> dict:
        return await lobby_until(self.lobby, self.lobby_frames, kind)

    async def all_until(self, kind: str) -> None:
        for socket in self.everyone:
            await socket.until(lambda f: f["type"] == kind)

    async def answers(self) -> None:
        """The answers to one socket: pong, an error, a snapshot asked for."""
        ann = self.sockets[1]
        await ann.send({"type": "ping", "echo": {"any": ["json"]}})
        await ann.until(lambda f: f["type"] == "pong")
        await ann.communicator.send_to(text_data="not json")
        await ann.until(lambda f: f["type"] == "error")
        await ann.send({"type": "snapshot"})
        await ann.until(lambda f: f["type"] == "snapshot")
        await self.lobby.send_json_to({"type": "ping", "echo": 1})
        await self.lobby_until("pong")
        await self.lobby.send_json_to({"type": "dance"})
        await self.lobby_until("error")

    async def hand_played(self) -> None:
        """A chat line, a player joining the list, a hand to the showdown, a snapshot of it
        mid-hand (with its log)."""
        await self.sockets[1].send({"type": "chat", "text": "good luck"})
        await self.all_until("chat")
        await self.waiting.send({"type": "waiting_join"})
        hand = await start_hand(self.table)
        await asyncio.sleep(1.1)  # a second after the last snapshot asked for
        await self.watcher.send({"type": "snapshot"})
        await self.watcher.until(lambda f: f["type"] == "snapshot" and f["log"])
        for socket in self.sockets.values():  # up to the deal: `play_hand` reads on from there
            await socket.drain(quiet=0.3)
        await play_hand(hand.pk, self.sockets, check_or_call)
        version = await table_version(self.table)
        for socket in self.everyone:
            await socket.until(lambda f, v=version: f.get("version") == v)

    async def resent(self, since: int) -> None:
        """The heartbeat, a resync, a chat line removed; a second tab reconnecting with
        `?since=` supersedes the first and gets what it missed."""
        await sync_to_async(broadcast.send_heartbeats)(
            {self.table.pk: await table_version(self.table)}
        )
        await self.all_until("heartbeat")
        await self.sockets[2].send({"type": "resync", "since": since})
        resync = await self.sockets[2].until(lambda f: f["type"] == "resync")
        assert {frame["type"] for frame in resync["frames"]} == {"update", "private"}
        await chat_line_remove()
        await self.all_until("chat_removed")
        second = await TableSocket.open(self.table.pk, self.players[1], since=since)
        hello = await second.until(lambda f: f["type"] == "resync")
        assert "chat" in hello and "heartbeat_seconds" in hello
        await self.sockets[1].until(lambda f: f["type"] == "superseded")
        self.everyone.append(second)

    async def seat_offered(self) -> None:
        """A seat frees: the waiting player is offered it (on the table's and the lobby's
        sockets) and declines."""
        await self.sockets[2].send({"type": "leave"})
        await self.waiting.until(lambda f: f["type"] == "seat_offer")
        await self.lobby_until("seat_offer")
        await self.waiting.send({"type": "waiting_leave"})
        await self.waiting.until(lambda f: f["type"] == "seat_offer_ended")
        await self.lobby_until("seat_offer_ended")
        if not any(frame["type"] == "lobby.update" for frame in self.lobby_frames):
            await self.lobby_until("lobby.update")
        # A session limit reached is told on every page the player has open.
        await sync_to_async(broadcast.send_to_player)(
            user_id=self.waiting.user.pk,
            frame={"type": "session_limit", "message": "Your session limit is reached."},
        )
        await self.waiting.until(lambda f: f["type"] == "session_limit")
        await self.lobby_until("session_limit")

    async def watcher_excluded(self) -> None:
        """A player starting a time-out is told so, and the socket closes."""
        user_id = self.watcher.user.pk
        await sync_to_async(broadcast.send_player_excluded)(
            table_ids=[self.table.pk], user_id=user_id, message="You are on a time-out."
        )
        await self.watcher.until(lambda f: f["type"] == "excluded")

    async def table_closed(self) -> None:
        """The table closes for good (as a Sit & Go's does at its end): every socket still
        open is told so, and the room closes them all."""
        await sync_to_async(broadcast.send_table_closed)(table_id=self.table.pk, tournament_id=1)
        for socket in self.everyone:
            if socket not in (self.sockets[1], self.watcher):
                await socket.until(lambda f: f["type"] == "table_closed")

    async def close(self) -> None:
        await self.lobby.disconnect()


async def test_every_frame_of_the_table_and_lobby_sockets_is_its_typeddict():
    room = await Room.open()
    since = await table_version(room.table)
    await room.answers()
    await room.hand_played()
    await room.resent(since)
    await room.seat_offered()
    await room.watcher_excluded()
    for socket in room.everyone:
        if socket not in (room.sockets[1], room.watcher):  # closed: superseded, excluded
            await socket.drain(quiet=0.2)
    await room.table_closed()

    received = [frame for socket in room.everyone for frame in socket.frames]
    found = [p for f in received for p in frame_problems(f, TABLE_FRAMES, TABLE_VERSIONED_FRAMES)]
    found += [p for frame in room.lobby_frames for p in frame_problems(frame, LOBBY_FRAMES)]
    assert found == [], "\n".join(found[:20])
    assert {frame["type"] for frame in received} == set(TABLE_FRAMES)
    assert {frame["type"] for frame in room.lobby_frames} == set(LOBBY_FRAMES)
    # Both shapes of an update: betting (hand_changes) and a whole change.
    updates = [frame for frame in received if frame["type"] == "update"]
    assert any("hand_changes" in f for f in updates) and any("seats" in f for f in updates)
    await room.close()


# -- the live Showdown socket


async def test_every_frame_of_the_live_showdown_socket_is_its_typeddict(monkeypatch):
    table = await sync_to_async(make_showdown_table)(seats=7, bet_seconds=30, action_seconds=30)
    ann = await sync_to_async(make_funded_player)("ann")
    bob = await sync_to_async(make_funded_player)("bob")
    watcher_user = await sync_to_async(make_funded_player)("watcher")
    deck = live_deck([HOLES["ann"], HOLES["bob"]], BOARD)
    monkeypatch.setattr(showdown_services, "deck_shuffle", lambda randbelow: list(deck))
    sockets = {
        name: await Socket.open(table.pk, user)
        for name, user in (("ann", ann), ("bob", bob), ("watcher", watcher_user))
    }
    for socket in sockets.values():
        await socket.until(lambda f: f["type"] == "snapshot")
    watcher = sockets["watcher"]
    await watcher.send({"type": "ping", "echo": "hi"})
    await watcher.until(lambda f: f["type"] == "pong")
    await watcher.communicator.send_to(text_data=json.dumps({"type": "sit", "seat": "one"}))
    await watcher.until(lambda f: f["type"] == "error")
    await watcher.send({"type": "snapshot"})
    await watcher.until(lambda f: f["type"] == "snapshot")

    await sockets["ann"].send({"type": "sit", "seat": 1})
    await sockets["bob"].send({"type": "sit", "seat": 2})
    await sockets["ann"].send({"type": "wager", "ante": 500, "key": "ann-wager-1"})
    await sockets["bob"].send(
        {"type": "wager", "ante": 1000, "hole_card_bonus": 100, "key": "bob-wager-1"}
    )
    for socket in sockets.values():
        await socket.until_phase("deciding")
    await sockets["ann"].send({"type": "decide", "decision": "raise", "key": "ann-decide-1"})
    await sockets["bob"].send({"type": "decide", "decision": "call", "key": "bob-decide-1"})
    for socket in sockets.values():
        await socket.until_phase("settled")

    version = await sync_to_async(lambda: type(table).objects.get(pk=table.pk).version)()
    await sync_to_async(broadcast.send_heartbeats)({table.pk: version}, live.group_name)
    for socket in sockets.values():
        await socket.until(lambda f: f["type"] == "heartbeat")
    await watcher.send({"type": "resync", "since": 1})
    resync = await watcher.until(lambda f: f["type"] == "resync")
    assert resync["frames"] and {f["type"] for f in resync["frames"]} <= {"state", "private"}
    second = await Socket.open_since(table.pk, ann, since=1)
    hello = await second.until(lambda f: f["type"] == "resync")
    assert "heartbeat_seconds" in hello
    assert {f["type"] for f in hello["frames"]} == {"state", "private"}
    await sockets["ann"].until(lambda f: f["type"] == "superseded")

    received = [frame for socket in (*sockets.values(), second) for frame in socket.frames]
    found = [
        p for f in received for p in frame_problems(f, SHOWDOWN_FRAMES, SHOWDOWN_VERSIONED_FRAMES)
    ]
    assert found == [], "\n".join(found[:20])
    assert {frame["type"] for frame in received} == set(SHOWDOWN_FRAMES)
    for socket in (sockets["bob"], watcher, second):
        await socket.communicator.disconnect()
