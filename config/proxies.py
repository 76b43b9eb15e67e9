"""The client's address behind our own load balancer, on the word of nobody else.

Daphne puts the TCP peer into `scope["client"]` (Django's `REMOTE_ADDR`). Behind the load
balancer that peer is the balancer, the same for every player, so the login lockout, which
counts failures per username and address, would see one address for the whole room. Daphne's
`--proxy-headers` would believe the leftmost `X-Forwarded-For` entry from any peer, and the
leftmost entry is whatever the client sent. This middleware believes the header only when the
peer is one of `TRUSTED_PROXIES`, and then takes the rightmost entry that is not itself a
trusted proxy: the address our own proxies saw, whatever the client wrote in front of it.

`X-Forwarded-Proto` (Django's `SECURE_PROXY_SSL_HEADER`: is the request HTTPS?) gets the same
rule: from a trusted proxy the nearest one's word (the rightmost entry) becomes the request's
scheme, from anyone else the header is dropped, so a client talking to daphne directly cannot
pass a plain-HTTP request off as HTTPS (skipping the HTTPS redirect, or a socket's origin check
of the scheme, `config/origins.py`).
"""

import ipaddress
from collections.abc import Iterable

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

Address = ipaddress.IPv4Address | ipaddress.IPv6Address
Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def trusted_networks_parse(entries: Iterable[str]) -> tuple[Network, ...]:
    """`TRUSTED_PROXIES` entries (addresses or CIDR networks) as networks; a typo stops the
    server at start rather than quietly trusting nobody or the wrong hosts."""
    networks = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry.strip()))
        except ValueError as exc:
            raise ImproperlyConfigured(
                f"TRUSTED_PROXIES: {entry!r} is not an IP address or network "
                f"(e.g. 10.0.0.7 or 10.0.0.0/24): {exc}"
            ) from None
    return tuple(networks)


def _address_parse(text: str) -> Address | None:
    """An address from a header entry, allowing the `203.0.113.5:4431` and `[2001:db8::1]:443`
    forms some balancers write; None when it is not an address."""
    text = text.strip()
    if text.startswith("[") and "]" in text:
        text = text[1 : text.index("]")]
    elif text.count(":") == 1:
        text = text.partition(":")[0]
    try:
        address = ipaddress.ip_address(text)
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped:
        return address.ipv4_mapped
    return address


def _is_trusted(address: Address, trusted: tuple[Network, ...]) -> bool:
    return any(address in network for network in trusted)


def client_address(*, peer: str, forwarded_for: str, trusted: tuple[Network, ...]) -> str:
    """The client's address for a request that reached us from `peer` carrying
    `X-Forwarded-For: forwarded_for`.

    Walks the header from the right, each entry written by the hop after it, and stops at the
    first address that is not a trusted proxy. An unreadable entry stops the walk at the last
    trusted hop, which is then counted as the client (it is the last one we can vouch for).
    """
    hop = _address_parse(peer)
    if hop is None or not _is_trusted(hop, trusted):
        return peer
    for entry in reversed(forwarded_for.split(",")):
        address = _address_parse(entry)
        if address is None:
            break
        hop = address
        if not _is_trusted(address, trusted):
            break
    return str(hop)


FORWARDED_PROTO = b"x-forwarded-proto"
# The scheme a trusted `X-Forwarded-Proto` names, as ASGI writes it for each kind of connection.
SCHEMES = {
    "http": {"https": "https", "http": "http"},
    "websocket": {"https": "wss", "http": "ws", "wss": "wss", "ws": "ws"},
}


def _with_forwarded_proto(scope: dict, trusted_peer: bool) -> dict:
    """The scope with `X-Forwarded-Proto` believed (as the scheme, the header cut to that one
    value) from a trusted proxy, or dropped from anyone else."""
    headers = scope.get("headers", ())
    values = [value for name, value in headers if name == FORWARDED_PROTO]
    if not values:
        return scope
    others = [(name, value) for name, value in headers if name != FORWARDED_PROTO]
    if not trusted_peer:
        return {**scope, "headers": others}
    nearest = b",".join(values).decode("latin-1").split(",")[-1].strip().lower()
    scheme = SCHEMES[scope["type"]].get(nearest)
    if scheme is None:
        return {**scope, "headers": others}
    return {
        **scope,
        "scheme": scheme,
        "headers": [*others, (FORWARDED_PROTO, nearest.encode("latin-1"))],
    }


class ProxyHeadersMiddleware:
    """ASGI middleware: replace `scope["client"]` by the client's address, and the scheme by
    `X-Forwarded-Proto`, when the request came through a trusted proxy (HTTP and WebSocket
    alike); from anyone else `X-Forwarded-Proto` is dropped and the rest passes untouched."""

    def __init__(self, app, trusted_proxies: Iterable[str] | None = None) -> None:
        self.app = app
        if trusted_proxies is None:
            trusted_proxies = settings.TRUSTED_PROXIES
        self.trusted = trusted_networks_parse(trusted_proxies)

    async def __call__(self, scope, receive, send):
        if scope["type"] not in ("http", "websocket"):
            return await self.app(scope, receive, send)
        peer = _address_parse(scope["client"][0]) if scope.get("client") else None
        scope = _with_forwarded_proto(
            scope, trusted_peer=peer is not None and _is_trusted(peer, self.trusted)
        )
        if self.trusted and scope.get("client"):
            forwarded_for = b",".join(
                value for name, value in scope.get("headers", ()) if name == b"x-forwarded-for"
            )
            if forwarded_for:
                peer = scope["client"][0]
                client = client_address(
                    peer=peer, forwarded_for=forwarded_for.decode("latin-1"), trusted=self.trusted
                )
                if client != peer:
                    # The client's port is not known here; 0, as daphne's own header parsing.
                    scope = {**scope, "client": [client, 0]}
        return await self.app(scope, receive, send)
