"""The WebSocket origin check: the page that opens a socket must be the room's own, scheme and
host alike.

Channels' `AllowedHostsOriginValidator` compares the `Origin` header's host with
`ALLOWED_HOSTS` and ignores its scheme, so a page served over plain HTTP under the room's name
(by anyone who can tamper with an unencrypted connection) could open a socket to an HTTPS room
with the player's cookies. Here the origin's scheme must also match the socket's own: `https`
for a `wss` socket (as `config/proxies.py` reads it from a trusted proxy), `http` for `ws`.
"""

from urllib.parse import urlparse

from channels.security.websocket import AllowedHostsOriginValidator, WebsocketDenier

PAGE_SCHEME = {"wss": "https", "ws": "http"}


def origin_scheme(scope: dict) -> str | None:
    """The scheme of the `Origin` header (lower case), or None when there is none to read."""
    for name, value in scope.get("headers", ()):
        if name == b"origin":
            try:
                return urlparse(value.decode("latin-1")).scheme.lower() or None
            except ValueError:
                return None
    return None


class RoomOriginValidator:
    """ASGI middleware for sockets: the origin's scheme matches the socket's, then its host is
    one of `ALLOWED_HOSTS` (channels' check); anything else is refused at the handshake."""

    def __init__(self, application) -> None:
        self.hosts_checked = AllowedHostsOriginValidator(application)

    async def __call__(self, scope, receive, send):
        expected = PAGE_SCHEME.get(scope.get("scheme", "ws"), "http")
        seen = origin_scheme(scope)
        if seen is not None and seen != expected:
            return await WebsocketDenier()(scope, receive, send)
        return await self.hosts_checked(scope, receive, send)
