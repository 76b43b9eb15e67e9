"""No resync storm at a loaded table (docs/protocol.md "Versions and resync"): six players
play fast over real sockets at the table's owner while each client crosses a share of the
`update` frames (held back a few tens of ms, so later ones overtake them) and drops a few,
before its mirror (bench/mirror.py, with the page's adaptive gap wait) sees them. Every
socket's STATE ends equal to a fresh snapshot's, and each socket asks `resync` less than once
per 100 actions: crossings fill their own gaps once the wait has learnt them, and only a
dropped frame costs one."""

import asyncio
import json
import random

import pytest
from channels.db import database_sync_to_async as sync_to_async

from bench.mirror import TableMirror
from poker.models import Hand, Table
from poker.selectors import table_snapshot_for
from poker.tasks import tables_heartbeat
from tests.factories import TableSocket
from tests.poker.table_sockets import new_table, seat_player, start_hand

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("owner_routing")]

PLAYERS = 6
HANDS = 12
CROSSED = 0.1  # of the update frames, each held back CROSS_MS
CROSS_MS = (10, 60)
DROP_EVERY = 250  # one update frame in this many never reaches the mirror
BEHIND_GRACE_SECONDS = 1.5  # static/js/table_socket.js BEHIND_GRACE_MS


class LossyClient:
    """A player's socket whose update frames cross and drop before the mirror sees them; it
    asks `resync` as a page does (at most one in flight, after the gap's wait, or when a
    heartbeat shows a version it lacks) and acts when its own STATE says it is to act."""

    def __init__(self, socket: TableSocket, seat: int, seed: int) -> None:
        self.socket, self.seat = socket, seat
        self.random = random.Random(seed)
        self.mirror = TableMirror()
        self.arrivals: asyncio.Queue[dict] = asyncio.Queue()
        self.updates = 0
        self.dropped = 0
        self.resyncs = 0
        self.asked = False
        self.gap_deadline: float | None = None
        self.acted: set[tuple[int, int]] = set()
        self.actions = 0
        self.errors: list[dict] = []
        # A heartbeat's version the mirror did not show, and when to ask if it still does not.
        self.behind: tuple[int, float] | None = None

    async def pump(self) -> None:
        """The socket's frames as this client's network delivers them."""
        loop = asyncio.get_running_loop()
        queue = self.socket.communicator.output_queue
        while True:
            message = await queue.get()
            if message["type"] != "websocket.send":
                return
            frame = json.loads(message["text"])
            if frame["type"] == "update":
                self.updates += 1
                if self.updates % DROP_EVERY == DROP_EVERY // 2:
                    self.dropped += 1
                    continue
                if self.random.random() < CROSSED:
                    delay = self.random.uniform(*CROSS_MS) / 1000
                    loop.call_later(delay, self.arrivals.put_nowait, frame)
                    continue
            self.arrivals.put_nowait(frame)

    async def play(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            deadlines = [self.gap_deadline, self.behind and self.behind[1]]
            due = [d for d in deadlines if d is not None]
            timeout = max(0.0, min(due) - loop.time()) if due else None
            try:
                frame = await asyncio.wait_for(self.arrivals.get(), timeout)
            except TimeoutError:
                frame = None
            if frame is not None:
                self.apply(frame)
            await self.resync_if_due()
            await self.act_if_to_act()

    def apply(self, frame: dict) -> None:
        if frame["type"] in ("resync", "snapshot"):
            self.asked = False
        if frame["type"] == "error":
            self.errors.append(frame)
        if (
            frame["type"] == "heartbeat"
            and frame["version"] > self.mirror.version
            and self.behind is None
        ):
            # As a page does: the update sent just before the heartbeat may still be coming.
            grace = BEHIND_GRACE_SECONDS
            self.behind = (frame["version"], asyncio.get_running_loop().time() + grace)
        self.mirror.apply(frame)

    async def resync_if_due(self) -> None:
        loop = asyncio.get_running_loop()
        if self.asked:
            self.gap_deadline = None
            return
        if not self.mirror.pending:
            self.gap_deadline = None
            if self.behind is not None and loop.time() >= self.behind[1]:
                version, self.behind = self.behind[0], None
                if version > self.mirror.version:
                    await self.resync()
            return
        if self.gap_deadline is None:
            self.gap_deadline = loop.time() + self.mirror.gap_wait_seconds
        elif loop.time() >= self.gap_deadline:
            await self.resync()

    async def resync(self) -> None:
        self.asked, self.gap_deadline = True, None
        self.resyncs += 1
        await self.socket.send(self.mirror.resync_frame())

    async def act_if_to_act(self) -> None:
        state = self.mirror.state
        hand = state and state["hand"]
        if not hand or not hand["legal_actions"] or (hand["id"], hand["turn"]) in self.acted:
            return
        self.acted.add((hand["id"], hand["turn"]))
        legal = hand["legal_actions"]
        draw = self.random.random()
        if legal["raise"] and draw < 0.1:
            action, amount = "raise", legal["raise"]["min"]
        elif legal["bet"] and draw < 0.2:
            action, amount = "bet", legal["bet"]["min"]
        elif legal["fold"] and legal["call"] and draw > 0.85:
            action, amount = "fold", None
        else:
            action, amount = ("call", None) if legal["call"] else ("check", None)
        self.actions += 1
        await self.socket.act(action, amount, turn=hand["turn"])


@sync_to_async
def running_hand(table) -> Hand | None:
    return Hand.objects.filter(table=table, status=Hand.Status.RUNNING).first()


async def hand_end(table) -> None:
    """Wait for the running hand to end. A player whose turn came in a dropped frame with
    nothing after it sees no gap: as the room does, the heartbeat tells every socket the
    table's version (every second here, 5 s in the room)."""
    loop = asyncio.get_running_loop()
    deadline, beat = loop.time() + 30, loop.time() + 1
    while await running_hand(table) is not None:
        assert loop.time() < deadline, "the hand did not end"
        if loop.time() > beat:
            await sync_to_async(tables_heartbeat)()
            beat = loop.time() + 1
        await asyncio.sleep(0.02)


@sync_to_async
def snapshots(table, players) -> tuple[int, dict[int, dict]]:
    version = Table.objects.get(pk=table.pk).version
    return version, {
        seat: table_snapshot_for(table=Table(pk=table.pk), player=player)["state"]
        for seat, player in players.items()
    }


@pytest.mark.timeout(120)
async def test_crossed_and_dropped_frames_at_a_loaded_table_cost_few_resyncs():
    table = await new_table()
    players = {n: await seat_player(table, f"p{n}", n) for n in range(1, 7)}
    clients = {}
    for seat, player in players.items():
        socket = await TableSocket.open(table.pk, player)
        assert socket.connected
        clients[seat] = LossyClient(socket, seat, seed=seat)
    tasks = [asyncio.create_task(job()) for c in clients.values() for job in (c.pump, c.play)]
    try:
        for _ in range(HANDS):
            hand = await start_hand(table)
            assert hand is not None
            await hand_end(table)
        # The last frames may have been dropped with nothing after them: the heartbeat tells.
        version, fresh = await snapshots(table, players)
        await sync_to_async(tables_heartbeat)()
        for _wait in range(500):
            if all(c.mirror.version == version and not c.mirror.pending for c in clients.values()):
                break
            await asyncio.sleep(0.01)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    actions = sum(c.actions for c in clients.values())
    assert actions >= 250, actions
    seen = {s: (c.updates, c.dropped, c.resyncs, c.mirror.gaps) for s, c in clients.items()}
    print(f"{actions} actions; per seat (updates, dropped, resyncs, gaps): {seen}")
    for seat, client in clients.items():
        assert client.errors == [], client.errors
        assert client.mirror.version == version, (seat, client.mirror.pending)
        assert client.mirror.state == fresh[seat], f"seat {seat} shows another table"
        assert client.dropped >= 1
        assert client.resyncs * 100 < actions, (seat, seen, actions)
    for client in clients.values():
        await client.socket.close()
