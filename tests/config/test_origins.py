"""A socket's page must be the room's own, scheme included: an HTTPS room refuses a socket
opened by a plain-HTTP page under its name."""

import pytest
from asgiref.testing import ApplicationCommunicator

from config.asgi import application
from config.proxies import ProxyHeadersMiddleware

pytestmark = pytest.mark.django_db(transaction=True)


async def _handshake(app, *, scheme: str, origin: bytes, client="198.51.100.8", extra=()) -> str:
    """The lobby socket's handshake; "accept" or "close"."""
    scope = {
        "type": "websocket",
        "scheme": scheme,
        "path": "/ws/lobby/",
        "raw_path": b"/ws/lobby/",
        "query_string": b"",
        "headers": [(b"host", b"127.0.0.1"), (b"origin", origin), *extra],
        "client": [client, 51000],
        "server": ["127.0.0.1", 8000],
        "subprotocols": [],
    }
    communicator = ApplicationCommunicator(app, scope)
    await communicator.send_input({"type": "websocket.connect"})
    answer = (await communicator.receive_output(timeout=10))["type"]
    await communicator.send_input({"type": "websocket.disconnect", "code": 1000})
    await communicator.wait(timeout=5)
    return answer.removeprefix("websocket.")


@pytest.mark.parametrize(
    ("scheme", "origin", "answer"),
    [
        ("wss", b"https://127.0.0.1", "accept"),
        ("wss", b"http://127.0.0.1", "close"),  # a plain-HTTP page under the room's name
        ("ws", b"http://127.0.0.1", "accept"),
        ("ws", b"https://127.0.0.1", "close"),
        ("wss", b"https://evil.example", "close"),  # the host check still holds
    ],
)
async def test_the_origins_scheme_must_match_the_sockets(scheme, origin, answer):
    assert await _handshake(application, scheme=scheme, origin=origin) == answer


async def test_behind_a_trusted_balancer_the_forwarded_scheme_is_the_one_compared():
    """TLS ends at the balancer: daphne sees ws, the balancer says https."""
    inner = application.application_mapping["websocket"].app
    behind = ProxyHeadersMiddleware(inner, trusted_proxies=["10.0.0.2"])
    https = [(b"x-forwarded-proto", b"https")]
    assert (
        await _handshake(
            behind, scheme="ws", origin=b"https://127.0.0.1", client="10.0.0.2", extra=https
        )
        == "accept"
    )
    assert (
        await _handshake(
            behind, scheme="ws", origin=b"http://127.0.0.1", client="10.0.0.2", extra=https
        )
        == "close"
    )
    # The same header from a client reaching daphne directly is not believed.
    assert (
        await _handshake(behind, scheme="ws", origin=b"https://127.0.0.1", extra=https) == "close"
    )
