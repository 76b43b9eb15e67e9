"""The table's owner (poker/owner.py): a command goes to the live owner
holding the table's lease and its answer comes back; an owner runs one table's commands in the
order they reached it; a command for a table whose owner stopped answering runs where it
arrived once the lease lapsed, and that process takes the lease with the next epoch; a timeout
goes to the live owner, this process's own too when it comes from a thread beside it (the
embedded room's worker); an owner renews only its own leases; a router (POKER_OWNER_RUN off)
sends a table nobody holds to an owner alive, and so does an owner: a table nobody holds
goes to the owner its id chooses among those announced.

This process plays one owner (started in the test's loop, routing on for these tests), and
"another process's owner" is a channel on the same Redis layer that the test reads and answers
itself. The whole path between real processes (two daphnes, a Celery worker, kill -9 of an
owner) is tests/poker/test_chaos_owner.py."""

import asyncio
import itertools
import time
from datetime import timedelta

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.conf import settings as django_settings
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from poker import owner
from poker.models import ChatMessage, Seat, Table
from poker.services import TableError
from tests.factories import make_seated_player, make_table
from tests.poker.owner_leases import ELSEWHERE, lease_set, table_row

pytestmark = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def seated_table():
    table = make_table()
    return table, make_seated_player(table, "ann", 1)


def command(player, name: str, **fields) -> dict:
    return {"command": name, "fields": fields, "user": player.pk}


async def test_a_command_goes_to_the_live_owner_and_its_refusal_comes_back(owner_routing):
    table, ann = await seated_table()
    me = await owner.owner_start()
    layer = get_channel_layer()
    elsewhere = await layer.new_channel()
    await lease_set(table, ELSEWHERE + elsewhere, seconds=30)
    before = await table_row(table)
    payload = {"table": table.pk, **command(ann, "SitOut")}

    asked = asyncio.create_task(owner.command_run(table.pk, "poker.command", payload))
    message = await asyncio.wait_for(layer.receive(elsewhere), 10)
    assert message["type"] == "owner.command" and message["reply_to"] == me
    assert (message["table"], message["kind"], message["payload"]) == (
        table.pk,
        "poker.command",
        payload,
    )
    await layer.send(
        me,
        {"type": "owner.reply", "request": message["request"], "code": "nope", "message": "No."},
    )
    with pytest.raises(TableError) as refused:
        await asyncio.wait_for(asked, 10)
    assert (refused.value.code, refused.value.message) == ("nope", "No.")
    # Nothing ran here: the seat still plays, the table is as it was, still held elsewhere.
    after = await table_row(table)
    assert (after.version, after.lease_owner) == (before.version, before.lease_owner)
    seat = await database_sync_to_async(Seat.objects.get)(table=table, player=ann)
    assert seat.status != Seat.Status.SITTING_OUT


async def test_an_owner_runs_a_table_s_commands_in_the_order_they_reached_it(owner_routing):
    table, ann = await seated_table()
    me = await owner.owner_start()
    layer = get_channel_layer()
    sender = await layer.new_channel()
    lines = [f"line {n}" for n in range(5)]  # the chat limit: 5 lines in 10 s
    for n, text in enumerate(lines):  # as another process's sockets would, all at once
        await layer.send(
            me,
            {
                "type": "owner.command",
                "table": table.pk,
                "kind": "poker.command",
                "payload": {"table": table.pk, **command(ann, "Chat", text=text)},
                "lang": "fr",
                "reply_to": sender,
                "request": str(n),
            },
        )
    replies = [await asyncio.wait_for(layer.receive(sender), 10) for _ in lines]
    assert [reply["request"] for reply in replies] == [str(n) for n in range(5)]
    assert all("code" not in reply for reply in replies), replies
    stored = await database_sync_to_async(
        lambda: list(
            ChatMessage.objects.filter(table=table).order_by("pk").values_list("text", flat=True)
        )
    )()
    assert stored == lines
    # A refusal at the owner speaks the asker's language.
    await layer.send(
        me,
        {
            "type": "owner.command",
            "table": table.pk,
            "kind": "poker.command",
            "payload": {"table": table.pk, **command(ann, "Chat", text="")},
            "lang": "fr",
            "reply_to": sender,
            "request": "empty",
        },
    )
    reply = await asyncio.wait_for(layer.receive(sender), 10)
    with translation.override("fr"):
        french = _("Write something first.")
    assert french != "Write something first."
    assert (reply["code"], reply["message"]) == ("chat_empty", french)


async def test_a_silent_owner_s_table_is_taken_over_once_its_lease_lapsed(owner_routing):
    """The holder was killed: nobody answers its channel and nobody renews its lease. The
    command waits while the lease is alive, then runs here; this process takes the lease with
    the next epoch."""
    table, ann = await seated_table()
    me = await owner.owner_start()
    layer = get_channel_layer()
    dead = await layer.new_channel()
    await lease_set(table, ELSEWHERE + dead, seconds=1.5)
    before = await table_row(table)
    started = time.monotonic()
    await asyncio.wait_for(
        owner.command_run(table.pk, "poker.command", {"table": table.pk, **command(ann, "SitOut")}),
        15,
    )
    waited = time.monotonic() - started
    after = await table_row(table)
    assert 1.0 <= waited <= 1.5 + django_settings.POKER_TABLE_LEASE_SECONDS + 2, waited
    assert after.lease_owner == owner.owner_identity() and owner.channel_of(after.lease_owner) == me
    assert after.lease_epoch == before.lease_epoch + 1
    assert after.version == before.version + 1
    seat = await database_sync_to_async(Seat.objects.get)(table=table, player=ann)
    assert seat.status == Seat.Status.SITTING_OUT
    # The command went to the silent owner once, and was not sent again while it waited.
    sent = await asyncio.wait_for(layer.receive(dead), 5)
    assert sent["type"] == "owner.command"
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(dead), 0.5)


async def test_a_timeout_goes_to_the_live_owner_and_runs_where_it_is_when_none_is(owner_routing):
    table, _ = await seated_table()
    layer = get_channel_layer()
    elsewhere = await layer.new_channel()
    await lease_set(table, ELSEWHERE + elsewhere, seconds=30)
    payload = {"timeout": ["poker.hand_start", table.pk, 0, 0, time.time()]}
    sent = await sync_to_async(owner.command_send_sync)(table.pk, "poker.timeout", payload)
    assert sent == "owner"
    message = await asyncio.wait_for(layer.receive(elsewhere), 10)
    assert (message["kind"], message["payload"], message["reply_to"]) == (
        "poker.timeout",
        payload,
        "",
    )
    # A lapsed lease, or one held by a process that runs no owner: the caller runs it.
    await lease_set(table, ELSEWHERE + elsewhere, seconds=-1)
    assert await sync_to_async(owner.command_send_sync)(table.pk, "poker.timeout", payload) is None
    await lease_set(table, "celery-host:7:feed", seconds=30)
    assert await sync_to_async(owner.command_send_sync)(table.pk, "poker.timeout", payload) is None


def test_an_owner_renews_its_own_leases_only(settings):
    settings.POKER_TABLE_LEASE_SECONDS = 4
    mine, theirs = make_table(), make_table()
    soon = timezone.now() + timedelta(seconds=1)
    Table.objects.filter(pk=mine.pk).update(lease_owner=ELSEWHERE + "a!1", lease_expires_at=soon)
    Table.objects.filter(pk=theirs.pk).update(lease_owner=ELSEWHERE + "b!2", lease_expires_at=soon)
    assert owner.leases_renew(ELSEWHERE + "a!1") == 1
    assert Table.objects.get(pk=mine.pk).lease_expires_at > soon + timedelta(seconds=2)
    assert Table.objects.get(pk=theirs.pk).lease_expires_at == soon


async def test_a_process_that_wrongly_believes_it_owns_the_table_sends_the_command_on(
    owner_routing,
):
    """Two owners that both ran a table's first commands each remembered themselves as its
    holder: the one whose lease lapsed must not take the table back at its next command (they
    would pass the lease to and fro at every action). Under the table's lock it finds another
    live owner holding it, does nothing, and sends the command there."""
    table, ann = await seated_table()
    me = await owner.owner_start()
    layer = get_channel_layer()
    elsewhere = await layer.new_channel()
    await lease_set(table, ELSEWHERE + elsewhere, seconds=30)
    owner._holder_is(table.pk, owner.owner_identity())  # what this process remembered
    before = await table_row(table)
    payload = {"table": table.pk, **command(ann, "SitOut")}

    asked = asyncio.create_task(owner.command_run(table.pk, "poker.command", payload))
    message = await asyncio.wait_for(layer.receive(elsewhere), 10)
    assert message["payload"] == payload
    await layer.send(me, {"type": "owner.reply", "request": message["request"], "result": "done"})
    assert await asyncio.wait_for(asked, 10) == "done"
    after = await table_row(table)
    assert (after.version, after.lease_epoch, after.lease_owner) == (
        before.version,
        before.lease_epoch,
        before.lease_owner,
    )


async def test_a_timeout_from_a_thread_beside_this_process_s_owner_is_run_by_the_owner(
    owner_routing,
):
    """The embedded room's Celery worker is a thread of the owner's own process: its timeout
    still goes through the owner's channel and runs in the table's order, not in the thread."""
    table, _ = await seated_table()
    await owner.owner_start()
    await lease_set(table, owner.owner_identity(), seconds=30)
    payload = {"timeout": ["poker.hand_start", table.pk, 0, 0, time.time()]}
    sent = await sync_to_async(owner.command_send_sync)(table.pk, "poker.timeout", payload)
    assert sent == "owner"
    async with asyncio.timeout(10):
        while not owner.owner_report()["served"].get("poker.timeout"):
            await asyncio.sleep(0.05)
    report = owner.owner_report()
    assert report["role"] == "owner" and sum(report["served"]["poker.timeout"].values()) == 1


async def test_a_router_sends_a_table_nobody_holds_to_an_owner_alive(owner_routing, settings):
    """A process that runs no owner holds no lease: a command for a table no live owner holds
    goes to an owner alive (announced); with none alive it runs here."""
    settings.POKER_OWNER_RUN = False
    table, ann = await seated_table()
    other, _ = await database_sync_to_async(lambda: (make_table(), None))()
    me = await owner.owner_start()
    assert me is not None and owner.owner_identity() is None
    layer = get_channel_layer()
    elsewhere = await layer.new_channel()
    await lease_set(other, ELSEWHERE + elsewhere, seconds=30)
    await database_sync_to_async(owner.owner_announce)(ELSEWHERE + elsewhere)
    before = await table_row(table)
    payload = {"table": table.pk, **command(ann, "SitOut")}

    asked = asyncio.create_task(owner.command_run(table.pk, "poker.command", payload))
    message = await asyncio.wait_for(layer.receive(elsewhere), 10)
    assert (message["table"], message["payload"], message["reply_to"]) == (table.pk, payload, me)
    # A busy owner (it has not even taken the table yet) is waited for while it is alive.
    await asyncio.sleep(3 * owner._look_again_seconds())
    assert not asked.done()
    await layer.send(me, {"type": "owner.reply", "request": message["request"], "result": "done"})
    assert await asyncio.wait_for(asked, 10) == "done"
    assert (await table_row(table)).version == before.version  # nothing ran here
    report = owner.owner_report()
    assert (report["role"], report["sent"], report["run_here"]) == ("router", 1, 0)

    # No owner alive any more: the router runs it itself, under a lease that names no owner.
    await lease_set(other, ELSEWHERE + elsewhere, seconds=-1)
    await database_sync_to_async(owner.owner_withdraw)(ELSEWHERE + elsewhere)
    owner._holders.clear()
    owner._owners_seen = ([], 0.0)
    payload = {"table": table.pk, **command(ann, "SitOut")}  # the first never ran
    assert await owner.command_run(table.pk, "poker.command", payload) == "done"
    after = await table_row(table)
    assert after.version > before.version and not owner.is_owner_channel(after.lease_owner)
    assert owner.owner_report()["run_here"] == 1


async def test_a_table_nobody_holds_goes_to_the_owner_its_id_chooses_among_those_announced(
    owner_routing,
):
    """Owners announce themselves (`TableOwner`) when they start and with each renewal, so a
    table no live owner holds goes to the owner its id chooses, here or elsewhere, though the
    other owner holds no table yet: a room's tables spread over its owners, not onto the
    process their first command reached. A stopped owner withdraws at once."""
    me = await owner.owner_start()
    my_name = owner.owner_identity()
    layer = get_channel_layer()
    elsewhere = await layer.new_channel()
    other_name = ELSEWHERE + elsewhere
    assert await database_sync_to_async(owner.owners_read)() == [my_name]
    await database_sync_to_async(owner.owner_announce)(other_name)
    owner._owners_seen = ([], 0.0)
    assert sorted(await database_sync_to_async(owner.owners_read)()) == sorted(
        [my_name, other_name]
    )

    chosen: dict[str, tuple] = {}
    for n in itertools.count():
        table = await database_sync_to_async(make_table)()
        choice = await owner.owner_for(table.pk)
        if choice not in chosen:
            player = await database_sync_to_async(make_seated_player)(table, f"p{n}", 1)
            await lease_set(table, "", seconds=-1)  # seated from here: nobody holds it now
            chosen[choice] = (table, player)
        if len(chosen) == 2:
            break
    # The choice is the table's id's alone: asked again, the same owner.
    for name, (table, _ann) in chosen.items():
        assert await owner.owner_for(table.pk) == name

    # Its table goes to the other owner, though that owner holds no lease.
    table, ann = chosen[other_name]
    before = await table_row(table)
    payload = {"table": table.pk, **command(ann, "SitOut")}
    asked = asyncio.create_task(owner.command_run(table.pk, "poker.command", payload))
    message = await asyncio.wait_for(layer.receive(elsewhere), 10)
    assert (message["table"], message["payload"], message["reply_to"]) == (table.pk, payload, me)
    await layer.send(me, {"type": "owner.reply", "request": message["request"], "result": "done"})
    assert await asyncio.wait_for(asked, 10) == "done"
    assert (await table_row(table)).version == before.version  # nothing ran here

    # Mine runs here, and this process takes its lease.
    table, ann = chosen[my_name]
    payload = {"table": table.pk, **command(ann, "SitOut")}
    assert await owner.command_run(table.pk, "poker.command", payload) == "done"
    assert (await table_row(table)).lease_owner == my_name

    await owner.owner_stop()
    assert await database_sync_to_async(owner.owners_read)() == [other_name]

    # An owner announced on another channel layer (another room on this database, a wrong
    # CHANNEL_LAYER_PREFIX) cannot be reached from here: never chosen.
    unreachable = f"{ELSEWHERE}not-this-layer-specific.0123"
    await database_sync_to_async(owner.owner_announce)(unreachable)
    assert await database_sync_to_async(owner.owners_read)() == [other_name]
