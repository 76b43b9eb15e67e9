"""The client's address: X-Forwarded-For believed from trusted proxies only, end to end through
a real daphne started as docs/operations.md says."""

import json
import urllib.error
import urllib.request

import pytest
from axes.models import AccessAttempt
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

from config.proxies import ProxyHeadersMiddleware, client_address, trusted_networks_parse
from tests.factories import DEFAULT_PASSWORD, make_player

BALANCER = trusted_networks_parse(["10.0.0.2"])
PRIVATE_HOPS = trusted_networks_parse(["10.0.0.0/24", "fd00::/8"])


@pytest.mark.parametrize(
    ("peer", "forwarded_for", "trusted", "client"),
    [
        # A client talking to us directly cannot name another address.
        ("198.51.100.7", "203.0.113.9", BALANCER, "198.51.100.7"),
        ("198.51.100.7", "203.0.113.9", (), "198.51.100.7"),
        # Our balancer appends the address it saw; what the client wrote before it is ignored.
        ("10.0.0.2", "198.51.100.7", BALANCER, "198.51.100.7"),
        ("10.0.0.2", "203.0.113.9, 198.51.100.7", BALANCER, "198.51.100.7"),
        ("10.0.0.2", "203.0.113.9,198.51.100.7", BALANCER, "198.51.100.7"),
        # Several trusted hops: the first untrusted address from the right.
        ("10.0.0.2", "203.0.113.9, 198.51.100.7, 10.0.0.9", PRIVATE_HOPS, "198.51.100.7"),
        # Only trusted hops: the farthest one.
        ("10.0.0.2", "10.0.0.5, 10.0.0.9", PRIVATE_HOPS, "10.0.0.5"),
        # An unreadable entry stops at the last hop we can vouch for.
        ("10.0.0.2", "203.0.113.9, not-an-address", BALANCER, "10.0.0.2"),
        ("10.0.0.2", "not-an-address, 10.0.0.9", PRIVATE_HOPS, "10.0.0.9"),
        ("10.0.0.2", "", BALANCER, "10.0.0.2"),
        # Address forms some balancers write.
        ("10.0.0.2", "198.51.100.7:4431", BALANCER, "198.51.100.7"),
        ("10.0.0.2", "[2001:db8::1]:443", BALANCER, "2001:db8::1"),
        ("10.0.0.2", "2001:db8::1", BALANCER, "2001:db8::1"),
        ("::ffff:10.0.0.2", "::ffff:198.51.100.7", BALANCER, "198.51.100.7"),
        ("fd00::2", "198.51.100.7", PRIVATE_HOPS, "198.51.100.7"),
    ],
)
def test_client_address(peer, forwarded_for, trusted, client):
    assert client_address(peer=peer, forwarded_for=forwarded_for, trusted=trusted) == client


@pytest.mark.parametrize("entry", ["10.0.0.300", "10.0.0.0/33", "10.0.0.1/24", "balancer"])
def test_a_bad_trusted_proxy_entry_stops_the_server_with_a_clear_error(entry):
    with pytest.raises(ImproperlyConfigured, match=f"TRUSTED_PROXIES: '{entry}'"):
        trusted_networks_parse(["10.0.0.2", entry])


async def _scope_seen_by_the_app(middleware_trusting: list[str], scope: dict) -> dict:
    seen = {}

    async def app(scope, receive, send):
        seen.update(scope)

    await ProxyHeadersMiddleware(app, trusted_proxies=middleware_trusting)(scope, None, None)
    return seen


@pytest.mark.parametrize("kind", ["http", "websocket"])
async def test_the_middleware_rewrites_the_client_only_behind_a_trusted_proxy(kind):
    headers = [(b"x-forwarded-for", b"203.0.113.9"), (b"x-forwarded-for", b"198.51.100.7")]
    via_balancer = {"type": kind, "client": ["10.0.0.2", 51000], "headers": headers}
    direct = {"type": kind, "client": ["198.51.100.8", 51000], "headers": headers}

    seen = await _scope_seen_by_the_app(["10.0.0.2"], via_balancer)
    assert seen["client"] == ["198.51.100.7", 0]
    assert (await _scope_seen_by_the_app(["10.0.0.2"], direct))["client"] == direct["client"]
    assert (await _scope_seen_by_the_app([], via_balancer))["client"] == via_balancer["client"]
    assert via_balancer["client"] == ["10.0.0.2", 51000]  # the server's own scope is left alone


def _post_token(base_url: str, username: str, password: str, forwarded_for: str):
    """POST /api/accounts/token/ as a plain HTTP client would, with its own X-Forwarded-For."""
    request = urllib.request.Request(
        f"{base_url}/api/accounts/token/",
        data=json.dumps({"username": username, "password": password}).encode(),
        headers={"Content-Type": "application/json", "X-Forwarded-For": forwarded_for},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as refused:
        return refused.code, json.loads(refused.read())


def _fail_until_locked(base_url: str, forwarded_for: str) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT):
        status, _ = _post_token(base_url, "alice", "wrong", forwarded_for)
    assert status == 429


def test_through_daphne_a_direct_client_cannot_forge_its_address(asgi_server, transactional_db):
    """The documented daphne (no proxy flags) and no trusted proxies: the header is noise."""
    make_player("alice")
    _fail_until_locked(asgi_server, forwarded_for="203.0.113.9")

    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"127.0.0.1"}
    status, body = _post_token(asgi_server, "alice", DEFAULT_PASSWORD, "203.0.113.10")
    assert status == 429
    assert body["ip_address"] == "127.0.0.1"


def test_through_daphne_a_trusted_proxy_names_the_client(asgi_server_factory):
    """Our test stands in for the balancer at 127.0.0.1; the client wrote its own header in
    front of the address the balancer appended."""
    make_player("alice")
    behind_balancer = asgi_server_factory(env={"TRUSTED_PROXIES": "127.0.0.1"})
    _fail_until_locked(behind_balancer, forwarded_for="192.0.2.1, 203.0.113.9")

    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.9"}
    status, body = _post_token(behind_balancer, "alice", DEFAULT_PASSWORD, "203.0.113.9")
    assert (status, body["ip_address"]) == (429, "203.0.113.9")
    # The same player from another address, whatever that client claims in front of it.
    status, body = _post_token(
        behind_balancer, "alice", DEFAULT_PASSWORD, "203.0.113.9, 198.51.100.7"
    )
    assert status == 200
    assert body["token"]


@pytest.mark.parametrize("kind", ["http", "websocket"])
async def test_x_forwarded_proto_is_believed_only_from_a_trusted_proxy(kind):
    headers = [(b"x-forwarded-proto", b"https"), (b"host", b"room.example.com")]
    via_balancer = {"type": kind, "client": ["10.0.0.2", 51000], "headers": headers}
    direct = {"type": kind, "client": ["198.51.100.8", 51000], "headers": headers}
    secure = "https" if kind == "http" else "wss"

    seen = await _scope_seen_by_the_app(["10.0.0.2"], via_balancer)
    assert seen["scheme"] == secure
    assert (b"x-forwarded-proto", b"https") in seen["headers"]
    for trusting, scope in ((["10.0.0.2"], direct), ([], via_balancer)):
        seen = await _scope_seen_by_the_app(trusting, scope)
        assert "scheme" not in seen
        assert [name for name, _ in seen["headers"]] == [b"host"]


async def test_the_nearest_trusted_proxy_says_the_scheme():
    """The balancer sets the header; whatever the client wrote in front of it is not believed."""
    headers = [(b"x-forwarded-proto", b"https, http")]
    scope = {"type": "http", "client": ["10.0.0.2", 51000], "headers": headers}
    seen = await _scope_seen_by_the_app(["10.0.0.2"], scope)
    assert seen["scheme"] == "http"
    assert seen["headers"] == [(b"x-forwarded-proto", b"http")]


async def _status_through_the_room(settings, *, peer: str, proto: bytes) -> int:
    """A GET through the ASGI stack as built for production, with SSL redirects on."""
    from asgiref.testing import ApplicationCommunicator
    from django.core.handlers.asgi import ASGIHandler

    settings.SECURE_SSL_REDIRECT = True
    app = ProxyHeadersMiddleware(ASGIHandler(), trusted_proxies=["10.0.0.2"])
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/help/",
        "raw_path": b"/help/",
        "query_string": b"",
        "root_path": "",
        "client": [peer, 51000],
        "server": ["127.0.0.1", 8000],
        "headers": [(b"host", b"127.0.0.1"), (b"x-forwarded-proto", proto)],
    }
    communicator = ApplicationCommunicator(app, scope)
    await communicator.send_input({"type": "http.request", "body": b""})
    start = await communicator.receive_output(timeout=10)
    await communicator.receive_output(timeout=10)
    return start["status"]


@pytest.mark.django_db(transaction=True)
async def test_a_direct_client_claiming_https_is_still_redirected_to_https(settings):
    assert await _status_through_the_room(settings, peer="198.51.100.8", proto=b"https") == 301
    assert await _status_through_the_room(settings, peer="10.0.0.2", proto=b"http") == 301
    assert await _status_through_the_room(settings, peer="10.0.0.2", proto=b"https") == 200
