"""Broadcast plumbing that the socket tests do not reach: the embedded in-memory layer."""

import asyncio
import threading

from channels.layers import channel_layers, get_channel_layer

from poker import broadcast


async def test_sends_from_a_timer_thread_wake_sockets_on_the_in_memory_layer(settings):
    """The embedded room runs Celery in a thread; its broadcasts must reach the sockets' loop
    at once, not when that loop next wakes for something else."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layers.backends.clear()
    layer = get_channel_layer()
    loop = asyncio.get_running_loop()
    broadcast.remember_socket_loop(loop)
    channel = await layer.new_channel()
    await layer.group_add(broadcast.group_name(5), channel)
    frames = {"frames": {}, "public": {"type": "update", "state": {}, "events": []}}
    thread = threading.Thread(target=lambda: broadcast.send(table_id=5, frames=frames))
    started = loop.time()
    thread.start()
    message = await asyncio.wait_for(layer.receive(channel), timeout=3)
    assert message == {"type": "table.update", **frames}
    assert loop.time() - started < 1
    await asyncio.to_thread(thread.join)
