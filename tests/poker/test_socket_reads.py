"""A table socket's reads (the snapshot, the table's chat, whether the table is open) run on
the sockets' database threads, not in the table's turn at its owner: a
command the owner is running, however slow, does not hold up a page asking for its snapshot.
Every frame carries the table's version, so the order of a snapshot and a command's frames
never mattered."""

import asyncio
import threading

import pytest
from channels.db import database_sync_to_async

from poker import consumers, owner
from tests.factories import make_seated_player, make_table

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def seated_table():
    table = make_table(next_hand_delay_seconds=3600)
    return table, make_seated_player(table, "ann", 1)


async def test_a_snapshot_is_not_held_up_by_a_command_running_at_the_table():
    table, ann = await seated_table()
    running, release = threading.Event(), threading.Event()

    def slow_command() -> str:
        running.set()
        release.wait(30)
        return "done"

    command = asyncio.create_task(owner.in_table_order(table.pk, slow_command))
    try:
        await asyncio.get_running_loop().run_in_executor(None, running.wait, 10)
        snapshot = await asyncio.wait_for(consumers._snapshot_for(table.pk, ann), 10)
        assert snapshot["state"]["version"] >= 1
        assert await asyncio.wait_for(consumers._table_is_open(table.pk, ann), 10)
        assert await asyncio.wait_for(consumers._chat_read(table.pk), 10) == []
        assert not command.done(), "the command was still running meanwhile"
    finally:
        release.set()
    assert await command == "done"
