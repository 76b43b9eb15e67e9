"""Broadcast plumbing that the socket tests do not reach: the embedded in-memory layer."""

import asyncio
import threading

from channels.layers import channel_layers, get_channel_layer

from poker import broadcast


async def test_sends_from_a_timer_thread_wake_sockets_on_the_in_memory_layer(settings):
    """The embedded room runs Celery in a thread; its broadcasts must reach the sockets' loop
    at once, not when that loop next wakes for something else. Each private frame goes to its
    player's own group only, before the public one."""
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    channel_layers.backends.clear()
    layer = get_channel_layer()
    loop = asyncio.get_running_loop()
    broadcast.remember_socket_loop(loop)
    ann, ben = await layer.new_channel(), await layer.new_channel()
    for channel, user_id in ((ann, 7), (ben, 8)):
        await layer.group_add(broadcast.group_name(5), channel)
        await layer.group_add(broadcast.user_group_name(5, user_id), channel)
    frames = {"public": '{"type":"update","version":3}', "private": {7: '{"type":"private"}'}}
    thread = threading.Thread(target=lambda: broadcast.send(table_id=5, frames=frames))
    started = loop.time()
    thread.start()
    first = await asyncio.wait_for(layer.receive(ann), timeout=3)
    assert first == {"type": "table.private", "text": '{"type":"private"}'}
    assert loop.time() - started < 1
    public = {"type": "table.update", "text": frames["public"]}
    assert await asyncio.wait_for(layer.receive(ann), timeout=3) == public
    assert await asyncio.wait_for(layer.receive(ben), timeout=3) == public  # and nothing else
    await asyncio.to_thread(thread.join)
    # `send` waited for its group sends, so anything else it sent is queued already: a marker
    # sent now must be the next message on each channel (its queue is first in, first out).
    for channel in (ann, ben):
        await layer.send(channel, {"type": "test.marker"})
        assert await asyncio.wait_for(layer.receive(channel), timeout=3) == {"type": "test.marker"}
