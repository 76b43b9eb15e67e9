"""The live Showdown socket: a snapshot on connect, every change after commit (the public
`state` frame, each player's own part in a `private` frame), bad frames refused with error
frames, and each player's hole cards only on that player's socket until the round settles
(every frame each socket received is scanned for the others' cards)."""

import json

import pytest
from asgiref.sync import sync_to_async
from channels.testing import WebsocketCommunicator

from config.asgi import application
from showdown import services
from showdown.models import LiveRound, LiveSeat, ShowdownRound
from tests.factories import make_funded_player, make_showdown_table, session_headers_for
from tests.showdown.play import BOARD, HOLES, Socket, cards, live_deck

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def live_table(transactional_db):
    return make_showdown_table(seats=7, bet_seconds=30, action_seconds=30)


async def test_each_player_sees_only_their_own_hole_cards_until_the_board(live_table, monkeypatch):
    ann = await sync_to_async(make_funded_player)("ann")
    bob = await sync_to_async(make_funded_player)("bob")
    watcher = await sync_to_async(make_funded_player)("watcher")
    deck = live_deck([HOLES["ann"], HOLES["bob"]], BOARD)
    monkeypatch.setattr(services, "deck_shuffle", lambda randbelow: list(deck))
    sockets = {
        name: await Socket.open(live_table.pk, user)
        for name, user in (("ann", ann), ("bob", bob), ("watcher", watcher))
    }
    for socket in sockets.values():
        snapshot = await socket.until(lambda f: f["type"] == "snapshot")
        assert snapshot["state"]["table"]["seats"] == 7 and snapshot["state"]["round"] is None
    await sockets["ann"].send({"type": "sit", "seat": 1})
    await sockets["bob"].send({"type": "sit", "seat": 2})
    await sockets["watcher"].until(lambda f: len((f.get("state") or {}).get("seats", [])) == 2)
    await sockets["ann"].send({"type": "wager", "ante": 500, "key": "ann-wager-1"})
    await sockets["bob"].send(
        {"type": "wager", "ante": 1000, "final_hand_bonus": 100, "key": "bob-wager-1"}
    )
    dealt = {name: await s.until_phase("deciding") for name, s in sockets.items()}
    mine = {name: dealt[name]["round"]["seats"] for name in ("ann", "bob")}
    assert next(s for s in mine["ann"] if s["you"])["hole"] == cards(HOLES["ann"])
    assert next(s for s in mine["bob"] if s["you"])["hole"] == cards(HOLES["bob"])
    assert dealt["watcher"]["round"]["deadline"] is not None

    await sockets["ann"].send({"type": "decide", "decision": "raise", "key": "ann-decide-1"})
    # A resent frame (same key) is answered, moves nothing.
    await sockets["ann"].send({"type": "decide", "decision": "raise", "key": "ann-decide-1"})
    await sockets["bob"].until(
        lambda f: any(s["decided"] for s in ((f.get("state") or {}).get("round") or {}).get(
            "seats", []))
    )  # fmt: skip
    # Before the board: nobody's socket has carried anyone else's cards, nor the board.
    for name, socket in sockets.items():
        text = socket.text()
        for other, hole in HOLES.items():
            for card in cards(hole):
                assert (f'"{card}"' in text) == (other == name), (name, other, card)
        for card in cards(BOARD):
            assert f'"{card}"' not in text, (name, card)
        assert "deck" not in text

    await sockets["bob"].send({"type": "decide", "decision": "call", "key": "bob-decide-1"})
    settled = {name: await s.until_phase("settled") for name, s in sockets.items()}
    for state in settled.values():
        assert state["round"]["board"] == cards(BOARD)
        assert {s["seat"]: s["hole"] for s in state["round"]["seats"]} == {
            1: cards(HOLES["ann"]),
            2: cards(HOLES["bob"]),
        }
    rounds = await sync_to_async(
        lambda: {r.player.username: r for r in ShowdownRound.objects.select_related("player")}
    )()
    assert rounds["ann"].bet == 1000 and rounds["bob"].bet == 1000
    # A seat is marked with its player's page open, and away once it closes: the lobby counts
    # only the first (docs/rules.md "Omaha Showdown live").
    connected = sync_to_async(
        lambda: dict(LiveSeat.objects.values_list("player__username", "connected"))
    )
    assert await connected() == {"ann": True, "bob": True}
    for socket in sockets.values():
        await socket.communicator.disconnect()
    assert await connected() == {"ann": False, "bob": False}


async def test_bad_frames_get_an_error_and_change_nothing(live_table):
    """One frame of each class: the frame parser's refusals (its cases: tests/showdown/
    test_commands.py) and a service's, each answered with the one error frame to the sender."""
    ann = await sync_to_async(make_funded_player)("ann")
    socket = await Socket.open(live_table.pk, ann)
    await socket.until(lambda f: f["type"] == "snapshot")
    for frame, code, key in (
        ("not json", "bad_frame", None),
        ("x" * 5000, "bad_frame", None),
        (json.dumps({"type": "dance"}), "unknown_type", None),
        (json.dumps({"type": "sit", "seat": "one"}), "bad_field", None),
        (
            json.dumps({"type": "wager", "ante": 5.5, "key": "wager-key-1"}),
            "bad_amount",
            "wager-key-1",
        ),
        (
            json.dumps({"type": "wager", "ante": 500, "key": "short"}),
            "bad_idempotency_key",
            "short",
        ),
        (json.dumps({"type": "sit", "seat": 9}), "no_such_seat", None),
        (
            json.dumps({"type": "decide", "decision": "call", "key": "decide-key"}),
            "no_round",
            "decide-key",
        ),
    ):
        await socket.communicator.send_to(text_data=frame)
        error = await socket.until(lambda f: f["type"] == "error")
        assert (error["code"], error["key"], error["seq"]) == (code, key, None), error
        assert error["message"]
    counts = await sync_to_async(
        lambda: (LiveSeat.objects.count(), LiveRound.objects.count(), ShowdownRound.objects.count())
    )()
    assert counts == (0, 0, 0)
    # The socket stays open and still answers.
    await socket.send({"type": "ping", "echo": "still here"})
    assert (await socket.until(lambda f: f["type"] == "pong"))["echo"] == "still here"
    await socket.send({"type": "snapshot"})
    await socket.until(lambda f: f["type"] == "snapshot")
    await socket.communicator.disconnect()


async def test_anonymous_sockets_and_unknown_tables_are_closed(live_table):
    ann = await sync_to_async(make_funded_player)("ann")
    anonymous = WebsocketCommunicator(
        application, f"/ws/showdown/{live_table.pk}/", [(b"origin", b"http://127.0.0.1")]
    )
    connected, _ = await anonymous.connect(timeout=10)
    assert not connected
    online = await sync_to_async(make_showdown_table)()  # one seat: not a live table
    headers = await sync_to_async(session_headers_for)(ann)
    socket = WebsocketCommunicator(application, f"/ws/showdown/{online.pk}/", headers)
    connected, _ = await socket.connect(timeout=10)
    assert not connected


async def test_after_a_channel_layer_flush_the_socket_still_hears_the_table(live_table):
    from django.conf import settings

    from showdown.live import live_seat_take
    from tests.factories import channel_layer_flush

    if settings.EMBEDDED:
        pytest.skip("flushing the channel layer needs REDIS_URL (the Redis channel layer)")
    ann = await sync_to_async(make_funded_player)("ann")
    bob = await sync_to_async(make_funded_player)("bob")
    watching = await Socket.open(live_table.pk, bob)
    await watching.until(lambda f: f["type"] == "snapshot")
    # Every key is gone; the table's group is a subscription of this process, and stays.
    await sync_to_async(channel_layer_flush)()
    await sync_to_async(live_seat_take)(player=ann, table_id=live_table.pk, seat=3)
    frame = await watching.until(
        lambda f: (
            f["type"] == "state"
            and any(
                seat.get("seat") == 3 and seat.get("player") for seat in f["state"]["seats"] if seat
            )
        ),
        timeout=30,
    )
    assert frame["type"] == "state"
    await watching.communicator.disconnect()
