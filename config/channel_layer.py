"""The room's channel layer: channels_redis's pub/sub layer with local fan-out.

A group send goes at once onto the local queues of this process's own members of the group
(no Redis round trip, no serialisation: each member gets a shallow copy of the message), and
is PUBLISHed to Redis only when some other process may have members of the group. A direct
send (`send`) to a channel of this process goes onto its queue the same way; any other
channel is PUBLISHed as before. "Process" here is one loop layer (channels_redis keeps one
per event loop, each with its own Redis connections): a daphne process's sockets and its
table owners share one.

How a sender knows that no other process has members (docs/architecture.md "Channel
layer"): every process that has members of a group is SUBSCRIBEd to the group's Redis
channel (as with channels_redis), and PUBLISH answers how many connections received the
message. A send always publishes unless the group is cached as *alone*; when a publish
reached no connection but our own subscription, the group is cached alone for
`ALONE_SECONDS`. The cache is only written when the answer is exact:

* our own subscriptions are *settled*: a PING sent on the subscribed connection after our
  last SUBSCRIBE/UNSUBSCRIBE has come back (Redis answers a connection's commands in
  order), and no command was issued since, so Redis's view of our subscriptions is ours;
* we hear the control channel (`<prefix>__fanout__`, subscribed and settled);
* no control message arrived between sending the PUBLISH and reading its answer.

A process whose first member of a group joins SUBSCRIBEs, waits for its PING to come back
(its subscription is then counted by every later PUBLISH), then publishes `join <group>` on
the control channel; a sender that hears it drops its cached *alone* for the group. A
socket that joins on another process can therefore miss only frames sent before the sender
heard the join, which the room's versioned frames repair (a gap asks for a resync,
docs/protocol.md "Versions and resync"). A publish carries its sender's id, and a process
drops the Redis copy of its own publish (its members had it locally): no frame is
delivered twice. A process that dies closes its connections, so Redis stops counting its
subscriptions (a hung one still counted only costs extra publishes). A reconnect of our
subscribed connection (Redis restarted, or the connection was killed) forgets every cached
*alone*; once the resubscription has settled we publish `reset`, and every process forgets
its own (they may have cached *alone* for our groups while we were not subscribed). The
cache also expires after `ALONE_SECONDS`, a bound on anything missed.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from typing import Any

from channels_redis.pubsub import (
    RedisPubSubChannelLayer,
    RedisPubSubLoopLayer,
    RedisSingleShardConnection,
)
from channels_redis.utils import _wrap_close, create_pool
from redis import asyncio as aioredis
from redis.asyncio.client import PubSub

log = logging.getLogger(__name__)

# msgpack never writes 0xc1, so an enveloped payload is told from a plain channels_redis one.
MAGIC = b"\xc1"
ID_LENGTH = 16
# How long a group found with no member on another process is trusted without a publish.
ALONE_SECONDS = 5.0
# How long a join waits for Redis to confirm its subscription before announcing anyway.
SETTLE_SECONDS = 2.0

JOIN, RESET = b"J", b"R"


class _PubSub(PubSub):
    """redis-py's PubSub, telling its shard when it resubscribes after a reconnect."""

    def __init__(self, shard: FanoutShardConnection, redis: aioredis.Redis):
        super().__init__(redis.connection_pool)
        self._shard = shard

    async def on_connect(self, connection):
        if not self.channels:  # the first connection: nothing to resubscribe
            await super().on_connect(connection)
            return
        self._shard.reconnecting()
        await super().on_connect(connection)
        await self.ping(str(self._shard.epoch))


class FanoutShardConnection(RedisSingleShardConnection):
    """One Redis server's connections, with the bookkeeping above."""

    def __init__(self, host, channel_layer):
        super().__init__(host, channel_layer)
        self._fanout_reset()

    def _fanout_reset(self) -> None:
        self.epoch = 0  # bumped by every SUBSCRIBE/UNSUBSCRIBE we issue and every reconnect
        self.settled_epoch = -1  # the latest epoch whose PING came back
        self.generation = 0  # bumped by every control message heard
        self.alone: dict[str, float] = {}  # group channel -> until (loop time)
        self._waiters: list[tuple[int, asyncio.Future]] = []
        self._announce_due_at: int | None = None
        self._tasks: set[asyncio.Future] = set()
        self.publishes = 0  # PUBLISHes of group messages (the tests read it)

    @property
    def control(self) -> str:
        return f"{self.channel_layer.prefix}__fanout__"

    @property
    def settled(self) -> bool:
        return self.settled_epoch == self.epoch and self.control in self._subscribed_to

    # Subscriptions, each followed by a PING whose answer says Redis has done it.

    async def subscribe(self, channel):
        async with self._lock:
            if channel in self._subscribed_to:
                return
            self._ensure_redis()
            self._ensure_receiver()
            self.epoch += 1
            await self._pubsub.subscribe(channel)
            self._subscribed_to.add(channel)
            await self._pubsub.ping(str(self.epoch))

    async def unsubscribe(self, channel):
        async with self._lock:
            if channel not in self._subscribed_to:
                return
            self._ensure_redis()
            self._ensure_receiver()
            self.epoch += 1
            await self._pubsub.unsubscribe(channel)
            self._subscribed_to.remove(channel)
            await self._pubsub.ping(str(self.epoch))

    async def settle(self) -> None:
        """Wait until Redis has done every subscription issued so far (bounded)."""
        target = self.epoch
        if self.settled_epoch >= target:
            return
        future = asyncio.get_running_loop().create_future()
        self._waiters.append((target, future))
        try:
            await asyncio.wait_for(future, SETTLE_SECONDS)
        except TimeoutError:
            log.warning("channel layer: subscription not confirmed in %ss", SETTLE_SECONDS)

    async def announce_join(self, group_channel: str) -> None:
        """Our first member of the group: once our subscription counts, tell the senders."""
        await self.subscribe(self.control)
        await self.settle()
        await self.publish(self.control, JOIN + self.channel_layer.id + group_channel.encode())

    # Group publishes.

    def is_alone(self, group_channel: str) -> bool:
        until = self.alone.get(group_channel)
        if until is None:
            return False
        if until > asyncio.get_running_loop().time():
            return True
        del self.alone[group_channel]
        return False

    async def group_publish(self, group_channel: str, payload: bytes) -> None:
        async with self._lock:
            self._ensure_redis()
            exact = self.settled
            generation, epoch = self.generation, self.epoch
            ours = group_channel in self._subscribed_to
            self.publishes += 1
            received = await self._redis.publish(group_channel, payload)
        if (
            exact
            and generation == self.generation
            and epoch == self.epoch
            and received <= (1 if ours else 0)
        ):
            self.alone[group_channel] = asyncio.get_running_loop().time() + ALONE_SECONDS

    # Receiving.

    def _ensure_redis(self):
        if self._redis is None:
            self._redis = aioredis.Redis(connection_pool=create_pool(self.host))
            self._pubsub = _PubSub(self, self._redis)

    def reconnecting(self) -> None:
        """Our subscribed connection is back: Redis dropped our subscriptions while it was
        away (and we may have cached *alone* from counts without us), so forget what we
        cached; once the resubscription has settled (its PING is back), tell the others to
        forget theirs (`_pong`)."""
        self.epoch += 1
        self.alone.clear()
        self.generation += 1
        self._announce_due_at = self.epoch

    async def _do_receiving(self):
        while True:
            try:
                if self._pubsub and self._pubsub.subscribed:
                    message = await self._pubsub.get_message(
                        ignore_subscribe_messages=False, timeout=0.1
                    )
                    self._receive_message(message)
                else:
                    await asyncio.sleep(0.1)
            except (asyncio.CancelledError, TimeoutError, GeneratorExit):
                raise
            except BaseException:
                log.exception("Unexpected exception in receive task")
                await asyncio.sleep(1)

    def _receive_message(self, message):
        if message is None:
            return
        kind = message["type"]
        if kind == "pong":
            self._pong(message["data"])
            return
        if kind != "message":
            return
        name = message["channel"]
        if isinstance(name, bytes):
            name = name.decode()
        data = message["data"]
        layer = self.channel_layer
        if name == self.control:
            self._control(data)
            return
        if data[:1] == MAGIC:
            if data[1 : 1 + ID_LENGTH] == layer.id:
                return  # our own publish: our members had it locally
            data = data[1 + ID_LENGTH :]
        if name in layer.channels:
            layer.channels[name].put_nowait(data)
        elif name in layer.groups:
            for channel_name in layer.groups[name]:
                if channel_name in layer.channels:
                    layer.channels[channel_name].put_nowait(data)

    def _pong(self, data) -> None:
        try:
            epoch = int(data)
        except (TypeError, ValueError):
            return  # redis-py's own health check
        self.settled_epoch = max(self.settled_epoch, epoch)
        waiting = []
        for target, future in self._waiters:
            if target <= self.settled_epoch:
                if not future.done():
                    future.set_result(None)
            else:
                waiting.append((target, future))
        self._waiters = waiting
        if self._announce_due_at is not None and self.settled_epoch >= self._announce_due_at:
            self._announce_due_at = None
            task = asyncio.ensure_future(self._announce_reset())
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    async def _announce_reset(self) -> None:
        try:
            await self.publish(self.control, RESET + self.channel_layer.id)
        except Exception:
            log.exception("channel layer: could not announce the resubscription")

    def _control(self, data: bytes) -> None:
        kind, sender = data[:1], data[1 : 1 + ID_LENGTH]
        if sender == self.channel_layer.id:
            return
        self.generation += 1
        if kind == JOIN:
            self.alone.pop(data[1 + ID_LENGTH :].decode(), None)
        else:
            self.alone.clear()

    async def flush(self):
        await super().flush()
        self._fanout_reset()


class FanoutLoopLayer(RedisPubSubLoopLayer):
    """One event loop's layer: its channels' queues hold local messages (dicts) and Redis
    payloads (bytes, decoded when received)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.id = uuid.uuid4().bytes
        self._shards = [FanoutShardConnection(shard.host, self) for shard in self._shards]

    def _envelope(self, message: dict[str, Any]) -> bytes:
        return MAGIC + self.id + self.channel_layer.serialize(message)

    async def send(self, channel, message):
        queue = self.channels.get(channel)
        if queue is not None:
            queue.put_nowait(dict(message))
            return
        await self._get_shard(channel).publish(channel, self._envelope(message))

    async def send_through_redis(self, channel, message):
        """`send` even to a channel of this process through a Redis PUBLISH (the health
        check's round trip, which must cross Redis)."""
        payload = MAGIC + b"\0" * ID_LENGTH + self.channel_layer.serialize(message)
        await self._get_shard(channel).publish(channel, payload)

    async def receive(self, channel):
        if channel not in self.channels:
            await self._subscribe_to_channel(channel)
        queue = self.channels[channel]
        try:
            message = await queue.get()
        except (asyncio.CancelledError, TimeoutError, GeneratorExit):
            # As channels_redis: a cancelled receive is its consumer leaving.
            if channel in self.channels:
                del self.channels[channel]
                try:
                    await self._get_shard(channel).unsubscribe(channel)
                except BaseException:
                    log.exception("Unexpected exception while cleaning-up channel:")
            raise
        if isinstance(message, bytes):
            return self.channel_layer.deserialize(message)
        return message

    async def group_add(self, group, channel):
        group_channel = self._get_group_channel_name(group)
        first = not self.groups.get(group_channel)
        await super().group_add(group, channel)
        if first:
            await self._get_shard(group_channel).announce_join(group_channel)

    async def group_send(self, group, message):
        group_channel = self._get_group_channel_name(group)
        for channel in self.groups.get(group_channel, ()):
            queue = self.channels.get(channel)
            if queue is not None:
                queue.put_nowait(dict(message))
        shard = self._get_shard(group_channel)
        if shard.is_alone(group_channel):
            return
        await shard.group_publish(group_channel, self._envelope(message))


class FanoutChannelLayer(RedisPubSubChannelLayer):
    """channels_redis's pub/sub layer whose loop layers fan out locally (the module's doc)."""

    def _get_layer(self):
        loop = asyncio.get_running_loop()
        try:
            return self._layers[loop]
        except KeyError:
            layer = FanoutLoopLayer(*self._args, **self._kwargs, channel_layer=self)
            self._layers[loop] = layer
            _wrap_close(self, loop)
            return layer
