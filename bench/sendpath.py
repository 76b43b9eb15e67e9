"""What an owner's turn spends after its commit (docs/benchmarks.md "An owner's turn after its
commit").

`bench.act_profile` runs `table_act` in a plain process, where `async_to_sync` makes a new
event loop for every call; daphne does not. Here the actions run as an owner runs them: an
event loop in the main thread, each action through `poker.owner.in_table_order` on the
process's database threads (config/db_threads.py), so a frame's send from the database thread
hops to that running loop as it does in daphne. Seven sockets' channels (six players and a
spectator) are subscribed to the table's groups on that loop and drain what they receive,
checking that every socket gets the table's versions in order.

Measured per action (a six-seat pot-limit table, calls and checks, each action its own
committed transaction; the hands' starts are run the same way but not counted):
- the CPU and wall time of each part of the post-commit work, in the thread that ran it (the
  database thread, or the sender thread of config/after_commit.py): `frames_keep` (the frame
  log), the wait for or the hand-off of the group sends (`_run_on_layer`), the timeout's
  hand-off and its `timeouts_send` (the turn's Celery task), and the whole of
  `broadcast.send`;
- the table's turn: the wall time `in_table_order` held the table;
- until the sockets had it: from the action's start until every socket got its public frame;
- the whole process's CPU per action (the loop's publishes and receives included), and the
  Redis commands per action (INFO commandstats on the Redis of REDIS_URL, so use a Redis of
  your own).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/room_bench_sendpath \\
    REDIS_URL=redis://127.0.0.1:6379/9 .venv/bin/python -m bench.sendpath [--actions 600]
        [--no-wait] [--profile FILE]

The database named by DATABASE_URL is dropped and created again; the timeouts go to a queue of
the bench's own, deleted at the end (no worker runs them).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib
import json
import os
import statistics
import sys
import threading
import time
import uuid
from collections import defaultdict
from pathlib import Path

from bench.frames import django_on_scratch_database, next_call_or_check

SEATS = 6
TICKS = os.sysconf("SC_CLK_TCK")
# (label, module, function): the parts of the post-commit work, timed in the thread that runs
# them; a function a version of the code does not have is skipped.
PARTS = [
    ("broadcast.send (all of the frames)", "poker.broadcast", "send"),
    ("  frames_keep (the frame log)", "poker.broadcast", "frames_keep"),
    ("  the group sends: waited for or handed off", "poker.broadcast", "_run_on_layer"),
    ("the timeout: handed to the sender thread", "config.timeouts", "_timeouts_send_after_commit"),
    ("timeouts_send (Celery's apply_async)", "config.timeouts", "timeouts_send"),
]


def _timed(samples: dict[str, list[tuple[float, float, str]]], label: str, func):
    @functools.wraps(func)
    def run(*args, **kwargs):
        cpu, wall = time.thread_time(), time.perf_counter()
        try:
            return func(*args, **kwargs)
        finally:
            thread = threading.current_thread().name.split("_")[0]
            samples[label].append((time.thread_time() - cpu, time.perf_counter() - wall, thread))

    return run


def _ms(values: list[float]) -> str:
    return f"{1000 * statistics.fmean(values):7.3f}" if values else "      -"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=600)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--profile", help="write a cProfile of the loop's thread to this file")
    parser.add_argument(
        "--no-wait",
        action="store_true",
        help="act again as soon as the table's turn is free, not when the sockets heard",
    )
    args = parser.parse_args(argv)
    os.environ.setdefault("CELERY_QUEUE", f"bench-sendpath-{uuid.uuid4().hex[:8]}")
    os.environ.setdefault("CHANNEL_LAYER_PREFIX", f"bench-sendpath-{os.getpid()}")
    os.environ.setdefault("FRAME_LOG_PREFIX", f"bench-sendpath-{os.getpid()}")
    django_on_scratch_database()
    return asyncio.run(_main(args))


class Sockets:
    """Seven sockets' channels on the loop (six players and a spectator), each in the table's
    group and its player's own, reading what they get: when every socket had a version's
    public frame, and how many frames came after a later version."""

    def __init__(self, layer, table_id: int, user_ids: list[int | None]) -> None:
        self.layer, self.table_id, self.user_ids = layer, table_id, user_ids
        self.heard: dict[int, float] = {}  # version -> when the last socket got its public frame
        self.arrived: dict[int, asyncio.Event] = defaultdict(asyncio.Event)
        self.counts: dict[int, int] = defaultdict(int)
        self.seen: dict[str, int] = {}
        self.disorder = 0
        self.readers: list[asyncio.Task] = []

    async def open(self) -> None:
        from poker import broadcast

        for user_id in self.user_ids:
            channel = await self.layer.new_channel()
            await self.layer.group_add(broadcast.group_name(self.table_id), channel)
            if user_id is not None:
                group = broadcast.user_group_name(self.table_id, user_id)
                await self.layer.group_add(group, channel)
            self.readers.append(asyncio.get_running_loop().create_task(self.read(channel)))

    async def read(self, channel: str) -> None:
        while True:
            message = await self.layer.receive(channel)
            version = json.loads(message["text"]).get("version", 0)
            if version < self.seen.get(channel, 0):
                self.disorder += 1
            self.seen[channel] = version
            if message["type"] == "table.update":
                self.counts[version] += 1
                if self.counts[version] == len(self.user_ids):
                    self.heard[version] = time.perf_counter()
                    self.arrived[version].set()

    async def close(self) -> None:
        for task in self.readers:
            task.cancel()
        await asyncio.gather(*self.readers, return_exceptions=True)


def _seated_table():
    from poker.models import Table
    from tests.factories import default_rake_schedule_row, make_seated_player, make_table

    table = make_table(
        rake_schedule=default_rake_schedule_row(Table.Structure.POT_LIMIT),
        next_hand_delay_seconds=3600,
        max_seats=SEATS,
    )
    return table, {n: make_seated_player(table, f"b{n}", n) for n in range(1, SEATS + 1)}


def _act(fields: dict) -> None:
    from poker import services

    services.table_act(**fields)


def _instrument(samples: dict[str, list[tuple[float, float, str]]]) -> list[int]:
    """Time the PARTS; returns the versions `broadcast.send` sent, in order."""
    from poker import broadcast

    for label, module_name, name in PARTS:
        module = importlib.import_module(module_name)
        if hasattr(module, name):
            setattr(module, name, _timed(samples, label, getattr(module, name)))
    sent: list[int] = []
    send = broadcast.send

    def send_noting(*, table_id, frames):
        sent.append(frames["version"])
        return send(table_id=table_id, frames=frames)

    broadcast.send = send_noting
    return sent


async def _main(args) -> int:
    import redis
    from channels.layers import get_channel_layer
    from django.conf import settings

    from config import after_commit
    from poker import owner

    samples: dict[str, list[tuple[float, float, str]]] = defaultdict(list)
    sent = _instrument(samples)
    loop = asyncio.get_running_loop()
    after_commit.socket_loop_remember(loop)
    table, players = await owner.in_table_order(0, _seated_table)
    sockets = Sockets(get_channel_layer(), table.pk, [p.pk for p in players.values()] + [None])
    await sockets.open()
    stats = redis.Redis.from_url(settings.REDIS_URL)

    held: list[float] = []
    started_at: dict[int, float] = {}
    done = 0
    while len(held) < args.actions:
        fields = await owner.in_table_order(0, next_call_or_check, table, players)
        if fields is None:
            continue
        if done == args.warmup:
            for values in samples.values():
                values.clear()
            await asyncio.sleep(0.2)
            before = (_commands(stats), time.process_time(), _thread_cpu(), time.perf_counter())
            profile = _profile_start(args.profile)
        started = time.perf_counter()
        await owner.in_table_order(table.pk, _act, fields)
        if done >= args.warmup:
            held.append(time.perf_counter() - started)
            started_at[sent[-1]] = started
        if not args.no_wait:
            # A player acts on what their page shows: the next action once every socket heard.
            await sockets.arrived[sent[-1]].wait()
        done += 1
    await asyncio.wait_for(sockets.arrived[sent[-1]].wait(), timeout=30)
    after = (time.process_time(), _thread_cpu(), time.perf_counter())
    if profile is not None:
        profile.disable()
        profile.dump_stats(args.profile)
    await asyncio.sleep(0.2)
    commands = _commands(stats)
    await sockets.close()
    stats.delete(settings.CELERY_TASK_DEFAULT_QUEUE)
    delivered = [sockets.heard[v] - t for v, t in started_at.items()]
    _report(samples, held, delivered)
    n = len(held)
    cpu, loop_cpu, elapsed = (after[i] - before[i + 1] for i in range(3))
    mode = "acting once the turn was free" if args.no_wait else "acting once the sockets heard"
    print(
        f"process CPU per action {1000 * cpu / n:.2f} ms, of which the event loop's thread "
        f"{1000 * loop_cpu / n:.2f} ms ({n / elapsed:.0f} actions/s at one table, {mode}); "
        f"frames after a later version: {sockets.disorder}"
    )
    per = {
        name: round((calls - before[0].get(name, 0)) / n, 2)
        for name, calls in sorted(commands.items())
        if calls != before[0].get(name, 0) and name != "info"
    }
    print(f"Redis commands per action: {per}")
    return 0


def _profile_start(path: str | None):
    if not path:
        return None
    import cProfile

    profile = cProfile.Profile()
    profile.enable()
    return profile


def _report(samples, held: list[float], delivered: list[float]) -> None:
    from django.conf import settings

    n = len(held)
    print(
        f"{n} actions at a {SEATS}-seat table through in_table_order on the database threads "
        f"(SOCKET_DB_THREADS={settings.SOCKET_DB_THREADS}), 7 sockets on the loop"
    )
    print(
        f"{'post-commit part, per call':46} {'calls/action':>12} {'CPU ms':>8} {'wall ms':>8}"
        "  thread"
    )
    for label, _module, _name in PARTS:
        values = samples.get(label, [])
        if values:
            threads = ", ".join(sorted({t for _c, _w, t in values}))
            print(
                f"{label:46} {len(values) / n:12.2f} {_ms([c for c, _w, _t in values]):>8} "
                f"{_ms([w for _c, w, _t in values]):>8}  {threads}"
            )
    held.sort()
    delivered.sort()
    print(
        f"the table's turn (in_table_order) wall: p50 {1000 * statistics.median(held):.2f} ms, "
        f"mean {1000 * statistics.fmean(held):.2f} ms"
    )
    print(
        f"until every socket had the public frame: p50 {1000 * statistics.median(delivered):.2f}"
        f" ms, p95 {1000 * delivered[int(0.95 * (n - 1))]:.2f} ms"
    )


def _thread_cpu() -> float:
    """User and system CPU seconds of this thread (the loop's) so far, as /proc counts them."""
    stat = Path(f"/proc/self/task/{threading.get_native_id()}/stat").read_text()
    fields = stat.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _commands(client) -> dict[str, int]:
    info = client.info("commandstats")
    return {key.removeprefix("cmdstat_"): value["calls"] for key, value in info.items()}


if __name__ == "__main__":
    sys.exit(main())
