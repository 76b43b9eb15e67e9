"""A silent channel layer, detected and healed (docs/architecture.md "Where state lives").

Redis keeps the channel layer's groups. When it loses them (a `FLUSHDB`, a restart without
persistence, an eviction) every socket stays open and hears nothing more. Two halves heal it:

- every socket re-joins its groups every `CHANNEL_REJOIN_SECONDS` (`GroupRejoinMixin`), so a
  lost membership comes back within that time, and memberships never reach channels-redis's
  `group_expiry` (a day) however long a socket stays open;
- the room keeps a marker key in each of the layer's Redis servers (`broadcast_healed_at`).
  A missing marker means the layer lost its data: the room writes it again with the time it
  noticed, and treats its broadcast path as broken until every socket has had one re-join
  interval to come back. Timers use this to hold turns instead of folding players who could
  not see them (docs/rules.md "Silent tables").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import redis
from django.conf import settings

log = logging.getLogger(__name__)

MARKER_KEY = "room:channel-layer-marker"
# A re-join pass that started just before the interval ended needs a moment to finish.
REJOIN_SLACK_SECONDS = 1.0
REDIS_TIMEOUT_SECONDS = 2.0


def rejoin_seconds() -> float:
    return float(settings.CHANNEL_REJOIN_SECONDS)


class GroupRejoinMixin:
    """For consumers: re-join `rejoin_groups` every `CHANNEL_REJOIN_SECONDS` while the socket
    is open. Call `groups_rejoin_start(groups)` once joined; the loop stops when the consumer
    ends, however it ends."""

    rejoin_groups: tuple[str, ...] = ()
    _rejoin_task: asyncio.Task | None = None

    async def __call__(self, scope, receive, send) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            await self.groups_rejoin_stop()

    def groups_rejoin_start(self, groups: list[str]) -> None:
        self.rejoin_groups = tuple(groups)
        self._rejoin_task = asyncio.create_task(self._groups_rejoin_forever())

    async def groups_rejoin_stop(self) -> None:
        task, self._rejoin_task = self._rejoin_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def groups_rejoin(self) -> None:
        """Join every group again: a no-op for a live membership, a repair for a lost one."""
        for group in self.rejoin_groups:
            await self.channel_layer.group_add(group, self.channel_name)

    async def _groups_rejoin_forever(self) -> None:
        while True:
            # Spread over the second half of the interval, so sockets that connected together
            # (after a server restart) do not all write to Redis in the same instant.
            await asyncio.sleep(rejoin_seconds() * random.uniform(0.5, 1.0))
            try:
                await self.groups_rejoin()
            except Exception as error:  # Redis down: the next pass tries again
                log.warning("could not re-join %s: %s", self.rejoin_groups, error)


# ------------------------------------------------------------------ the room's own check

_clients: dict[str, redis.Redis] = {}


def layer_addresses() -> list[str]:
    """The Redis servers of a channels-redis core layer ([] for any other layer: the
    in-memory layer cannot lose its groups while the process lives, and the pub/sub layer
    keeps none in Redis)."""
    layer = settings.CHANNEL_LAYERS.get("default", {})
    if layer.get("BACKEND") != "channels_redis.core.RedisChannelLayer":
        return []
    addresses = []
    for host in layer.get("CONFIG", {}).get("hosts", []):
        address = host.get("address") if isinstance(host, dict) else host
        if isinstance(address, str):
            addresses.append(address)
        else:
            log.warning("cannot watch channel layer host %r for lost data", host)
    return addresses


def _client(address: str) -> redis.Redis:
    client = _clients.get(address)
    if client is None:
        client = redis.Redis.from_url(
            address,
            socket_timeout=REDIS_TIMEOUT_SECONDS,
            socket_connect_timeout=REDIS_TIMEOUT_SECONDS,
        )
        _clients[address] = client
    return client


def _noticed_at(client: redis.Redis, now: datetime) -> datetime:
    """When the room first saw this server without its marker (writing it now if missing)."""
    stored: Any = client.get(MARKER_KEY)
    if stored is None:
        if client.set(MARKER_KEY, str(now.timestamp()), nx=True):
            log.warning("the channel layer lost its data (no marker): holding turn timers")
            return now
        stored = client.get(MARKER_KEY)  # another process wrote it first
    try:
        return datetime.fromtimestamp(float(stored), tz=UTC)
    except (TypeError, ValueError):  # overwritten by something else: start again from now
        client.set(MARKER_KEY, str(now.timestamp()))
        return now


def broadcast_healed_at(now: datetime | None = None) -> datetime | None:
    """None when the broadcast path is sound; otherwise the moment by which every socket will
    have re-joined its groups (a Redis that does not answer counts as lost from now on)."""
    now = now or datetime.now(tz=UTC)
    healed_at = None
    for address in layer_addresses():
        try:
            noticed = _noticed_at(_client(address), now)
        except redis.RedisError as error:
            log.warning("the channel layer at %s does not answer: %s", address, error)
            noticed = now
        ready = noticed + timedelta(seconds=rejoin_seconds() + REJOIN_SLACK_SECONDS)
        if ready > now and (healed_at is None or ready > healed_at):
            healed_at = ready
    return healed_at
