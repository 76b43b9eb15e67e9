"""The room's channel layer fans a group out locally (config/channel_layer.py).

Two layer instances, each on its own thread and event loop with its own Redis connections,
stand for two processes on the test run's real Redis. A group with members only on the
sender's process is never PUBLISHed once the sender knows it (the PUBLISH commands its Redis
client sends are counted), its members get every message once and in order; a member on
the other process gets each message exactly once; one that joins there after some sends
gets the later ones; a member that leaves gets nothing more; a process whose subscribed
connection Redis drops is heard again once it resubscribes.
"""

import asyncio
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
import redis as sync_redis
from django.conf import settings

from config import channel_layer
from config.channel_layer import FanoutChannelLayer

pytestmark = pytest.mark.skipif(settings.EMBEDDED, reason="needs REDIS_URL (the Redis layer)")

BOUND = 10  # seconds: only a bound on a failure, every wait ends as soon as its message comes
QUIET = 0.3  # seconds without a message that count as "nothing more came"


class Process:
    """One layer on its own thread's event loop, as one ASGI process would have it."""

    def __init__(self, prefix: str, name: str):
        self.name = name
        self.layer = FanoutChannelLayer(
            hosts=[{"address": settings.REDIS_URL, "socket_timeout": None, "client_name": name}],
            prefix=prefix,
        )
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()
        self.publishes: list[str] = []

    def _run(self) -> None:
        self.loop.run_forever()
        self.loop.close()  # on its own thread: channels_redis flushes the layer as it closes

    async def run(self, make: Callable[[], Awaitable[Any]]) -> Any:
        """Run the coroutine `make()` on this process's loop and wait for its result."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(make(), self.loop))

    def loop_layer(self):
        return self.layer._layers[self.loop]

    async def start(self) -> None:
        """Make this loop's layer and count the PUBLISHes its Redis client sends."""

        async def make():
            layer = self.layer._get_layer()
            shard = layer._shards[0]
            shard._ensure_redis()
            client = shard._redis
            execute = client.execute_command

            async def counted(*args, **options):
                if args and str(args[0]).upper() == "PUBLISH":
                    self.publishes.append(str(args[1]))
                return await execute(*args, **options)

            client.execute_command = counted

        await self.run(make)

    def group_publishes(self, group: str) -> int:
        return self.publishes.count(f"{self.loop_layer().prefix}__group__{group}")

    async def new_channel(self) -> str:
        return await self.run(self.layer.new_channel)

    async def group_add(self, group: str, channel: str) -> None:
        await self.run(lambda: self.layer.group_add(group, channel))

    async def group_discard(self, group: str, channel: str) -> None:
        await self.run(lambda: self.layer.group_discard(group, channel))

    async def group_send(self, group: str, message: dict) -> None:
        await self.run(lambda: self.layer.group_send(group, message))

    async def send(self, channel: str, message: dict) -> None:
        await self.run(lambda: self.layer.send(channel, message))

    async def receive(self, channel: str, timeout: float = BOUND) -> dict:
        return await self.run(lambda: asyncio.wait_for(self.layer.receive(channel), timeout))

    async def queued(self, channel: str) -> int:
        """How many messages wait for the channel, after QUIET (a receive that timed out
        would be its consumer leaving: the layer drops the channel)."""
        await asyncio.sleep(QUIET)

        async def count():
            return self.layer._get_layer().channels[channel].qsize()

        return await self.run(count)

    async def nothing_more(self, channel: str) -> None:
        assert await self.queued(channel) == 0

    async def alone(self, group: str) -> bool:
        async def check():
            layer = self.layer._get_layer()
            return layer._shards[0].is_alone(layer._get_group_channel_name(group))

        return await self.run(check)

    async def until_alone_is(self, group: str, expected: bool) -> None:
        deadline = time.monotonic() + BOUND
        while await self.alone(group) != expected:
            assert time.monotonic() < deadline, f"{self.name}: alone({group}) never {expected}"
            await asyncio.sleep(0.01)

    async def stop(self) -> None:
        await self.run(self.layer.flush)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=BOUND)


@pytest.fixture
async def processes():
    prefix = f"fanout-test-{uuid.uuid4().hex[:8]}"
    made = [Process(prefix, f"{prefix}-a"), Process(prefix, f"{prefix}-b")]
    for process in made:
        await process.start()
    yield made
    for process in made:
        await process.stop()


def message(number: int) -> dict:
    return {"type": "table.update", "text": f"frame {number}"}


async def test_a_group_only_on_the_senders_process_is_not_published(processes):
    a, _b = processes
    sockets = [await a.new_channel(), await a.new_channel()]
    for channel in sockets:
        await a.group_add("local", channel)
    for number in range(50):
        await a.group_send("local", message(number))
    for channel in sockets:
        for number in range(50):
            assert await a.receive(channel) == message(number)
        await a.nothing_more(channel)  # not also the Redis copy of the one publish
    # The first send learns that no other process is subscribed; no later one publishes.
    assert a.group_publishes("local") == 1
    assert await a.alone("local")


async def test_a_member_on_the_other_process_gets_each_message_exactly_once(processes):
    a, b = processes
    here, there = await a.new_channel(), await b.new_channel()
    await a.group_add("table", here)
    await b.group_add("table", there)
    for number in range(30):
        await a.group_send("table", message(number))
    for number in range(30, 40):
        await b.group_send("table", message(number))
    for process, channel in ((a, here), (b, there)):
        for number in range(30):
            assert await process.receive(channel) == message(number)
        for number in range(30, 40):
            assert await process.receive(channel) == message(number)
        await process.nothing_more(channel)
    assert a.group_publishes("table") == 30
    assert b.group_publishes("table") == 10
    assert not await a.alone("table")


async def test_a_member_joining_on_another_process_gets_the_later_sends(processes):
    a, b = processes
    here = await a.new_channel()
    await a.group_add("table", here)
    for number in range(5):
        await a.group_send("table", message(number))
    assert await a.alone("table")
    there = await b.new_channel()
    await b.group_add("table", there)
    # The join reaches the sender (a page that joined meanwhile resyncs from its versions).
    await a.until_alone_is("table", False)
    for number in range(5, 10):
        await a.group_send("table", message(number))
    for number in range(10):
        assert await a.receive(here) == message(number)
    await a.nothing_more(here)
    for number in range(5, 10):
        assert await b.receive(there) == message(number)
    await b.nothing_more(there)
    assert a.group_publishes("table") == 1 + 5


async def members_on_both(a: Process, b: Process) -> tuple[str, str]:
    """A member of "table" on each process, and message 0 sent from a and heard on b."""
    here, there = await a.new_channel(), await b.new_channel()
    await a.group_add("table", here)
    await b.group_add("table", there)
    await a.group_send("table", message(0))
    assert await b.receive(there) == message(0)
    return here, there


async def test_a_member_that_leaves_gets_nothing_more_and_the_sender_stops_publishing(processes):
    a, b = processes
    here, there = await members_on_both(a, b)
    await b.group_discard("table", there)
    # Once Redis has dropped b's subscription, one publish finds a alone again.
    await b.run(lambda: b.loop_layer()._shards[0].settle())
    for number in range(1, 10):
        await a.group_send("table", message(number))
    for number in range(10):
        assert await a.receive(here) == message(number)
    await b.nothing_more(there)
    assert a.group_publishes("table") == 2
    assert await a.alone("table")


async def test_direct_sends_reach_a_channel_here_without_redis_and_there_through_it(processes):
    a, b = processes
    here, there = await a.new_channel(), await b.new_channel()
    await a.send(here, {"type": "reply", "n": 1})
    await a.send(there, {"type": "reply", "n": 2})
    await b.send(here, {"type": "reply", "n": 3})
    assert await a.receive(here) == {"type": "reply", "n": 1}
    assert await b.receive(there) == {"type": "reply", "n": 2}
    assert await a.receive(here) == {"type": "reply", "n": 3}
    await a.nothing_more(here)
    await b.nothing_more(there)
    assert a.publishes.count(here) == 0
    assert a.publishes.count(there) == 1


def drop_subscribed_connection(process: Process) -> None:
    """Redis closes the process's subscribed connection, as a restart does."""
    client = sync_redis.Redis.from_url(settings.REDIS_URL)
    try:
        dropped = 0
        for entry in client.client_list(_type="pubsub"):
            if entry["name"] == process.name:
                dropped += client.client_kill_filter(_id=entry["id"])
        assert dropped == 1
    finally:
        client.close()


async def test_a_process_whose_subscriptions_redis_dropped_is_heard_again(processes, monkeypatch):
    # Longer than BOUND: b must be heard again because it says it is back, not by expiry.
    monkeypatch.setattr(channel_layer, "ALONE_SECONDS", 60.0)
    a, b = processes
    here, there = await members_on_both(a, b)
    drop_subscribed_connection(b)
    # While b is away a may find itself alone; once b is back (resubscribed and announced),
    # a publishes again and b hears the table.
    waiting = asyncio.run_coroutine_threadsafe(b.layer.receive(there), b.loop)
    deadline = time.monotonic() + BOUND
    number = 0
    while not waiting.done():
        assert time.monotonic() < deadline, "b never heard the table again"
        number += 1
        await a.group_send("table", message(number))
        await asyncio.sleep(0.02)
    heard = [waiting.result()]
    for _ in range(await b.queued(there)):
        heard.append(await b.receive(there))
    numbers = [int(frame["text"].split()[1]) for frame in heard]
    assert numbers == sorted(set(numbers)) and numbers[-1] == number  # once each, in order
    await a.group_send("table", message(number + 1))
    assert await b.receive(there) == message(number + 1)
    await b.nothing_more(there)
    for expected in range(number + 2):
        assert await a.receive(here) == message(expected)
    await a.nothing_more(here)


async def test_the_health_checks_round_trip_crosses_redis_to_a_channel_here(processes):
    a, _b = processes
    here = await a.new_channel()

    async def ping():  # the layer's own methods are looked up on the process's loop
        await a.layer.send_through_redis(here, {"type": "healthz.ping"})

    await a.run(ping)
    assert await a.receive(here) == {"type": "healthz.ping"}
    await a.nothing_more(here)
    assert a.publishes.count(here) == 1
