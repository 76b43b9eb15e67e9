"""The channel layer keeps a burst of messages for one ASGI process: every socket of a process
shares one Redis key for what waits for it, and channels_redis's default capacity (100) made
the layer drop whole table updates without a word when a few dozen sockets connected at once
or several hands ended together (seen under bench.load)."""

import asyncio

import pytest
from channels.layers import get_channel_layer
from django.conf import settings

pytestmark = pytest.mark.skipif(
    "InMemory" in settings.CHANNEL_LAYERS["default"]["BACKEND"],
    reason="the Redis channel layer (REDIS_URL) is what drops messages over its capacity",
)

# Hands ending together at 40 tables of one process (a private frame and an update each, to a
# process-wide key), before the process reads any of it.
BURST = 300


async def test_a_burst_of_group_messages_for_one_process_is_delivered_whole():
    layer = get_channel_layer()
    sockets = [await layer.new_channel() for _ in range(6)]
    for channel in sockets:
        await layer.group_add("burst-test", channel)
    try:
        for number in range(BURST):
            await layer.group_send("burst-test", {"type": "table.update", "n": number})
        for channel in sockets:
            for number in range(BURST):
                message = await asyncio.wait_for(layer.receive(channel), timeout=5)
                assert message == {"type": "table.update", "n": number}
    finally:
        for channel in sockets:
            await layer.group_discard("burst-test", channel)
