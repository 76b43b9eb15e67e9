"""The sweep and the staff tools at the table's owner (poker/owner.py): what the
sweep finds due at a table goes to the live owner holding it, which does it only if it still is
due, and runs where the sweep runs when no live owner holds the table; a staff tool on a table
another process's live owner holds runs at that owner and its answer, a refusal too, comes back
to the staff member; a silent owner is not asked twice while its lease is alive.

As in tests/poker/test_owner.py, this process plays one owner (started in the test's loop), and
another process's owner is either a channel the test reads itself or this process's owner loop
named in the lease as another host's (`elsewhere_but_here`): the command crosses the channel
layer to it like any other process's and is served by its loop. The last test has the owner
in another process indeed: a real daphne (`asgi_server`) whose socket took the table's lease."""

import asyncio
import json
import os
import time
import urllib.request
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from asgiref.sync import sync_to_async
from channels.db import database_sync_to_async
from channels.layers import get_channel_layer
from django.db import connections
from django.utils import timezone

from audit.models import AuditRecord
from cashier.selectors import wallet_balance
from poker import owner
from poker.models import Hand, Seat, Table, TableBar
from poker.services import TableError, table_sit_out
from poker.services.staff import (
    staff_seat_remove,
    staff_table_close,
    staff_table_reopen,
    staff_waiting_move,
)
from poker.tasks import sweep_tables
from tests.factories import (
    WireTableSocket,
    deal_hand,
    make_funded_player,
    make_seated_player,
    make_staff,
    make_table,
    session_headers_for,
)
from tests.poker.owner_leases import ELSEWHERE, lease_set, table_row

pytestmark = pytest.mark.django_db(transaction=True)


def in_a_thread(func):
    """A sync call from a thread of its own, as an admin page or a Celery worker makes it: not
    Channels' one database thread, which the owner's commands may need meanwhile."""

    def call(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        finally:
            connections.close_all()

    return sync_to_async(call, thread_sensitive=False)


def elsewhere_but_here(channel: str) -> str:
    """A lease naming another host's owner whose channel is this process's owner's."""
    return ELSEWHERE + channel


async def served(kind: str, outcome: str, count: int = 1) -> dict:
    """Wait until this process's owner has served `count` `kind` commands with `outcome`."""
    async with asyncio.timeout(10):
        while owner.owner_report()["served"].get(kind, {}).get(outcome, 0) < count:
            await asyncio.sleep(0.05)
    return owner.owner_report()["served"][kind]


@database_sync_to_async
def running_hand_overdue():
    table = make_table(next_hand_delay_seconds=3600)
    make_seated_player(table, "ann", 1)
    make_seated_player(table, "ben", 2)
    hand = deal_hand(table)
    Hand.objects.filter(pk=hand.pk).update(deadline=timezone.now() - timedelta(seconds=5))
    return table, Hand.objects.get(pk=hand.pk)


@database_sync_to_async
def sitter_out_past_the_limit(name: str):
    table = make_table(sit_out_limit_seconds=600)
    player = make_seated_player(table, name, 1)
    table_sit_out(table=table, player=player)
    Seat.objects.filter(player=player).update(sat_out_at=timezone.now() - timedelta(seconds=601))
    return table, player


async def test_the_sweep_sends_an_overdue_turn_to_the_live_owner_which_times_it_out_once(
    owner_routing,
):
    table, hand = await running_hand_overdue()
    me = await owner.owner_start()
    layer = get_channel_layer()
    elsewhere = await layer.new_channel()
    await lease_set(table, ELSEWHERE + elsewhere, seconds=30)
    before = await table_row(table)

    done = await in_a_thread(sweep_tables)()
    assert (done["sent"], done["timeouts"], done["cancelled"]) == (1, 0, 0)
    message = await asyncio.wait_for(layer.receive(elsewhere), 10)
    assert (message["type"], message["kind"], message["reply_to"]) == (
        "owner.command",
        "poker.sweep",
        "",
    )
    item = message["payload"]
    assert (item["do"], item["table"], item["hand"], item["turn"]) == (
        "turn",
        table.pk,
        hand.pk,
        hand.turn,
    )
    assert (await table_row(table)).version == before.version  # nothing done in the worker

    # The owner (this process's loop, reached as that owner would be) times the turn out...
    await layer.send(me, message)
    await served("poker.sweep", "timeouts")
    after = await database_sync_to_async(Hand.objects.get)(pk=hand.pk)
    assert after.turn > hand.turn or after.status != Hand.Status.RUNNING
    version = (await table_row(table)).version
    assert version > before.version
    # ... and the same item again (a second sweep before the first was done) finds the turn
    # gone by: nothing happens.
    await layer.send(me, message)
    assert (await served("poker.sweep", ""))[""] == 1
    assert (await table_row(table)).version == version


async def test_the_sweep_evicts_at_the_live_owner_and_here_where_no_live_owner_holds_the_table(
    owner_routing,
):
    held, held_player = await sitter_out_past_the_limit("ann")
    free, free_player = await sitter_out_past_the_limit("ben")
    await owner.owner_start()
    await lease_set(held, owner.owner_identity(), seconds=30)
    await lease_set(free, ELSEWHERE + "gone!1", seconds=-1)  # its owner stopped

    done = await in_a_thread(sweep_tables)()
    # Here: the free table's eviction. Sent: the held table's eviction. Neither table is
    # checked for a deal: one seat taken at each.
    assert (done["evicted"], done["started"], done["sent"]) == (1, 0, 1)
    assert not await database_sync_to_async(Seat.objects.filter(player=free_player).exists)()
    await served("poker.sweep", "evicted")
    assert not await database_sync_to_async(Seat.objects.filter(player=held_player).exists)()
    assert (await table_row(held)).lease_owner == owner.owner_identity()


@database_sync_to_async
def table_with_a_player_and_a_manager():
    table = make_table()
    make_seated_player(table, "ann", 1)
    return table, make_staff("tm", "table managers")


def staff_records(table) -> list[tuple[str, int, str]]:
    return list(
        AuditRecord.objects.filter(action__startswith="staff.", subject_id=str(table.pk))
        .order_by("id")
        .values_list("action", "actor_id", "reason")
    )


async def test_a_staff_tool_runs_at_the_live_owner_and_its_answer_and_refusal_come_back(
    owner_routing,
):
    table, manager = await table_with_a_player_and_a_manager()
    ann = await database_sync_to_async(lambda: Seat.objects.get(table=table).player_id)()
    me = await owner.owner_start()
    assert me is not None
    await lease_set(table, elsewhere_but_here(me), seconds=30)

    closed = await in_a_thread(staff_table_close)(table=table, staff=manager, reason="repairs")
    assert closed == {"removed": [ann], "leaving": []}
    assert (await served("poker.staff", "done")) == {"done": 1}
    assert not (await table_row(table)).is_open
    # (The owner's change renamed the lease after this process: named as another's again.)
    await lease_set(table, elsewhere_but_here(me), seconds=30)
    # A refusal at the owner reaches the staff member as the same error; nothing is recorded.
    with pytest.raises(TableError) as refused:
        await in_a_thread(staff_table_close)(table=table.pk, staff=manager, reason="again")
    assert refused.value.code == "table_closed"
    assert (await served("poker.staff", "table_closed"))["table_closed"] == 1
    # A tool that returns a row returns it as the owner left it.
    await lease_set(table, elsewhere_but_here(me), seconds=30)
    reopened = await in_a_thread(staff_table_reopen)(table=table.pk, staff=manager, reason="ok")
    assert isinstance(reopened, Table) and reopened.is_open
    assert owner.owner_report()["served"]["poker.staff"] == {"done": 2, "table_closed": 1}
    records = await database_sync_to_async(staff_records)(table)
    assert records == [
        ("staff.table_close", manager.pk, "repairs"),
        ("staff.table_reopen", manager.pk, "ok"),
    ]
    assert owner.owner_report()["run_here"] == 0  # nothing ran as this process's own command


async def test_a_staff_tool_waits_for_a_silent_owner_while_its_lease_lives_and_never_asks_twice(
    owner_routing, monkeypatch
):
    table, manager = await table_with_a_player_and_a_manager()
    await owner.owner_start()
    layer = get_channel_layer()
    silent = await layer.new_channel()
    await lease_set(table, ELSEWHERE + silent, seconds=30)
    before = await table_row(table)
    monkeypatch.setattr(owner, "ASK_WAIT_SECONDS", 1.0)

    started = time.monotonic()
    with pytest.raises(TableError) as refused:
        await in_a_thread(staff_table_close)(table=table, staff=manager, reason="repairs")
    assert refused.value.code == "owner_busy" and time.monotonic() - started >= 1.0
    sent = await asyncio.wait_for(layer.receive(silent), 5)
    assert (sent["kind"], sent["payload"]["tool"]) == ("poker.staff", "table_close")
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(layer.receive(silent), 0.5)
    after = await table_row(table)
    assert (after.version, after.is_open, after.lease_owner) == (
        before.version,
        True,
        before.lease_owner,
    )

    # Its lease lapses while the staff member waits: the tool runs here.
    monkeypatch.setattr(owner, "ASK_WAIT_SECONDS", 30.0)
    await lease_set(table, ELSEWHERE + silent, seconds=1.0)
    closed = await in_a_thread(staff_table_close)(table=table, staff=manager, reason="repairs")
    assert len(closed["removed"]) == 1
    after = await table_row(table)
    assert not after.is_open and after.lease_epoch == before.lease_epoch + 1


async def test_a_staff_tool_from_a_process_running_no_owner_waits_on_a_channel_of_its_own(
    owner_routing,
):
    """A worker or a management command has no owner loop: it asks with a fresh channel."""
    table, manager = await table_with_a_player_and_a_manager()
    layer = get_channel_layer()
    elsewhere = await layer.new_channel()
    await lease_set(table, ELSEWHERE + elsewhere, seconds=30)
    args = {"table": table.pk, "player": 1, "staff": manager, "reason": "fair", "place": 1}

    asked = asyncio.ensure_future(in_a_thread(staff_waiting_move)(**args))
    message = await asyncio.wait_for(layer.receive(elsewhere), 10)
    assert message["reply_to"] and message["payload"]["args"] == {
        "table": table.pk,
        "player": 1,
        "place": 1,
    }
    reply = {"type": "owner.reply", "request": message["request"]}
    await layer.send(message["reply_to"], {**reply, "code": "not_waiting", "message": "No."})
    with pytest.raises(TableError) as refused:
        await asyncio.wait_for(asked, 10)
    assert (refused.value.code, refused.value.message) == ("not_waiting", "No.")


@database_sync_to_async
def table_with_bob_and_ann_to_sit():
    """A table with Bob seated (through the services here) and Ann funded, to sit through her
    socket; a table manager; Ann's session cookie. No hand starts by itself."""
    table = make_table(next_hand_delay_seconds=3600)
    bob = make_seated_player(table, "bob", 2)
    ann = make_funded_player("ann")
    (_, cookie), _origin = session_headers_for(ann)
    return table, ann, bob, make_staff("tm", "table managers"), cookie.decode()


def owner_at(server: str) -> dict:
    """The server's owner as its /healthz reports it (poker/owner.py `owner_report`)."""
    with urllib.request.urlopen(f"{server}/healthz", timeout=10) as response:
        return json.loads(response.read())["owner"]


# The daphne may take minutes to start on a loaded machine (PROCESS_START_SECONDS).
@pytest.mark.timeout(240)
async def test_a_staff_tool_from_a_process_without_an_owner_runs_at_the_daphne_holding_the_table(
    asgi_server, settings
):
    """The whole path between two real processes: Ann's socket at a daphne takes the table's
    lease (her sit runs at that process's owner); this process, running no owner, asks it to
    remove her and to close the table, and gets its answers and its refusal."""
    settings.POKER_OWNER_ROUTING = True  # this process routes, and runs no owner
    table, ann, bob, manager, cookie = await table_with_bob_and_ann_to_sit()
    port = urlsplit(asgi_server).port
    before_served = (await asyncio.to_thread(owner_at, asgi_server)).get("served", {})
    socket = await WireTableSocket.open(port, table.pk, cookie)
    try:
        await socket.until(lambda state: True)  # the snapshot
        await socket.send(
            {"type": "sit", "seat": 1, "buy_in": table.max_buy_in, "post_big_blind": False}
        )
        await socket.until(lambda state: (state["you"] or {}).get("seat") == 1)
        held = await table_row(table)
        assert held.lease_owner.startswith(owner.OWNER_MARK), held.lease_owner
        assert f":{os.getpid()}|" not in held.lease_owner  # the daphne's, not this process's
        ann_seat = await database_sync_to_async(Seat.objects.get)(table=table, player=ann)

        removed = await in_a_thread(staff_seat_remove)(
            seat=ann_seat.pk, staff=manager, reason="collusion"
        )
        assert removed == "removed"
        # Her page hears it from the owner: she is standing, her chips back in her wallet.
        await socket.until(lambda state: (state["you"] or {}).get("seat") is None)
        closed = await in_a_thread(staff_table_close)(table=table, staff=manager, reason="repairs")
        assert closed == {"removed": [bob.pk], "leaving": []}
        await socket.until(lambda state: all(s["player"] is None for s in state["seats"]))
        # Closed already: the owner's refusal comes back as the same error, nothing recorded.
        with pytest.raises(TableError) as refused:
            await in_a_thread(staff_table_close)(table=table.pk, staff=manager, reason="again")
        assert (refused.value.code, refused.value.message) == (
            "table_closed",
            "This table is closed already.",
        )
    finally:
        await socket.close()

    # It all ran at the owner: the lease is still the daphne's, at the same epoch...
    after = await table_row(table)
    assert (after.lease_owner, after.lease_epoch) == (held.lease_owner, held.lease_epoch)
    assert after.version > held.version and not after.is_open
    # ... whose /healthz counts the three commands it served for the staff member.
    report = await asyncio.to_thread(owner_at, asgi_server)
    assert report["role"] == "owner", report
    staff_served = report["served"].get("poker.staff", {})
    earlier = before_served.get("poker.staff", {})
    assert {k: staff_served.get(k, 0) - earlier.get(k, 0) for k in ("done", "table_closed")} == {
        "done": 2,
        "table_closed": 1,
    }, report

    # The database shows what the owner did: no seat left, both cashed out, Ann barred.
    def books() -> tuple:
        return (
            Seat.objects.filter(table=table).count(),
            wallet_balance(player=ann),
            wallet_balance(player=bob),
            TableBar.objects.filter(table=table, player=ann, staff=manager).count(),
        )

    assert await database_sync_to_async(books)() == (0, 100_000, 100_000, 1)
    assert await database_sync_to_async(staff_records)(table) == [
        ("staff.seat_remove", manager.pk, "collusion"),
        ("staff.table_close", manager.pk, "repairs"),
    ]


@database_sync_to_async
def full_table_and_a_player_waiting_to_join():
    table = make_table(max_seats=2)
    make_seated_player(table, "cat", 1)
    make_seated_player(table, "dan", 2)
    return table, make_funded_player("eve")


async def test_a_page_s_waiting_list_buttons_run_at_the_live_owner_and_answer_from_there(
    owner_routing,
):
    """The lobby's waiting-list buttons change the table (its list, a seat offered): at a
    table another process's live owner holds, the request's command runs at that owner and
    the page shows its answer, a refusal too; the request's process never takes the lease."""
    from django.test import Client
    from django.urls import reverse

    table, eve = await full_table_and_a_player_waiting_to_join()
    me = await owner.owner_start()
    assert me is not None
    holder = elsewhere_but_here(me)

    def press(name: str) -> str:
        client = Client()
        client.force_login(eve)
        response = client.post(reverse(name, args=[table.pk]), follow=True)
        return " ".join(str(message) for message in response.context["messages"])

    await lease_set(table, holder, seconds=30)
    joined = await in_a_thread(press)("poker:waiting_join")
    assert "number 1 on the waiting list" in joined
    assert (await served("poker.answer", "done")) == {"done": 1}
    await lease_set(table, holder, seconds=30)
    left = await in_a_thread(press)("poker:waiting_leave")
    assert "You left the waiting list" in left
    await lease_set(table, holder, seconds=30)
    again = await in_a_thread(press)("poker:waiting_leave")
    assert "You are not on this table's waiting list." in again
    assert owner.owner_report()["served"]["poker.answer"] == {
        "done": 1,
        "false": 1,
        "not_waiting": 1,
    }
    assert owner.owner_report()["run_here"] == 0
