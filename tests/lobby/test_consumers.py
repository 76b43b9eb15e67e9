"""The lobby socket over the real channel layer (Redis when REDIS_URL is set)."""

import json

import pytest
from asgiref.sync import sync_to_async
from channels.layers import get_channel_layer
from channels.testing import WebsocketCommunicator
from django.conf import settings

from config.asgi import application
from lobby.consumers import LOBBY_GROUP
from tests.factories import session_headers_for

pytestmark = pytest.mark.django_db(transaction=True)


session_headers = sync_to_async(session_headers_for)


async def test_the_channel_layer_under_test_is_redis_in_ci():
    layer = get_channel_layer()
    if settings.EMBEDDED:
        pytest.skip("embedded mode uses the in-memory layer")
    assert type(layer).__module__.startswith(("channels_redis", "config.channel_layer"))


async def test_authenticated_round_trip_through_the_layer(player):
    communicator = WebsocketCommunicator(
        application, "/ws/lobby/", headers=await session_headers(player)
    )
    connected, _ = await communicator.connect()
    assert connected
    assert await communicator.receive_json_from() == {"type": "welcome", "username": "alice"}

    await communicator.send_json_to({"type": "ping", "echo": 7})
    assert await communicator.receive_json_from() == {"type": "pong", "echo": 7}

    # A broadcast from elsewhere (a service, another worker) reaches the socket via the layer.
    await get_channel_layer().group_send(
        LOBBY_GROUP, {"type": "lobby.update", "update": {"table": 3, "seated": 4}}
    )
    assert await communicator.receive_json_from(timeout=5) == {
        "type": "lobby.update",
        "update": {"table": 3, "seated": 4},
    }
    await communicator.disconnect()


async def test_a_visitor_gets_the_live_lobby_too():
    """The lobby is public: a visitor's socket hears table changes, and only the
    lobby's group (no player's notices)."""
    communicator = WebsocketCommunicator(
        application, "/ws/lobby/", headers=[(b"origin", b"http://127.0.0.1")]
    )
    connected, _ = await communicator.connect()
    assert connected
    assert await communicator.receive_json_from() == {"type": "welcome", "username": None}
    await get_channel_layer().group_send(
        "lobby", {"type": "lobby.update", "update": {"table": 3, "seated": 1}}
    )
    assert (await communicator.receive_json_from(timeout=5))["type"] == "lobby.update"
    await communicator.disconnect()


async def test_foreign_origin_is_refused(player):
    headers = [h for h in await session_headers(player) if h[0] != b"origin"]
    headers.append((b"origin", b"http://evil.example"))
    communicator = WebsocketCommunicator(application, "/ws/lobby/", headers=headers)
    connected, _ = await communicator.connect()
    assert not connected
    await communicator.disconnect()


async def test_bad_frames_get_the_one_error_frame_and_keep_the_socket(player):
    """The lobby socket answers what the frame parser says (its cases: tests/config/
    test_frames.py), one frame of each class, and stays open."""
    communicator = WebsocketCommunicator(
        application, "/ws/lobby/", headers=await session_headers(player)
    )
    await communicator.connect()
    await communicator.receive_json_from()
    for frame, code in (
        ("not json", "bad_frame"),
        (json.dumps({"type": "ping", "pad": "€" * 1400}, ensure_ascii=False), "bad_frame"),
        (json.dumps({"type": "steal_chips"}), "unknown_type"),
    ):
        await communicator.send_to(text_data=frame)
        error = await communicator.receive_json_from()
        assert error == {
            "type": "error",
            "code": code,
            "message": error["message"],
            "seq": None,
            "key": None,
        }
        assert error["message"]
    await communicator.send_json_to({"type": "ping", "echo": 1})
    assert await communicator.receive_json_from() == {"type": "pong", "echo": 1}
    await communicator.disconnect()
