"""What the room's timers cost when players act in time (docs/benchmarks.md "Timers").

Every turn sets a timeout (config/timeouts.py): a Celery task with an eta, sent when the turn
starts, that a worker later runs and that finds, in most cases, the turn played already. This
plays hands at a six-seat table through the services, every player acting at once (calls and
checks, some folds, a bet on the flop), with the tasks sent to a queue of its own, and counts:

- the tasks sent per hand and per action, by kind, their size, and the sender's CPU per task
  (the `apply_async` after commit, in the process that made the change);
- the handler's cost per stale turn timeout, run here as a worker runs it (thread CPU, wall
  time, database statements);
- a real `celery worker` (solo pool, as docs/operations.md starts it but one process) started
  on that queue once the hands are over, its process CPU from `ready` until it has run every
  due timeout, less its CPU over as long idle: the worker's CPU per stale task, Celery's part
  (receive, hold until the eta, run, ack, log) included.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/room_bench_timeouts \\
    REDIS_URL=redis://127.0.0.1:6379/9 .venv/bin/python -m bench.timeouts [--hands 200]

The database named by DATABASE_URL is dropped and created again.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path

from bench.frames import django_on_scratch_database

SEATS = 6
TICKS = os.sysconf("SC_CLK_TCK")
REPO_ROOT = Path(__file__).resolve().parents[1]


def process_cpu(pid: int) -> float:
    """User and system CPU seconds of a process so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--worker-loglevel",
        default="INFO",
        help="the worker's --loglevel (INFO logs two lines a task)",
    )
    args = parser.parse_args(argv)
    queue = f"bench-timeouts-{uuid.uuid4().hex[:8]}"
    os.environ["CELERY_QUEUE"] = queue
    django_on_scratch_database()
    import redis
    from django.conf import settings

    from config import timeouts

    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)

    send_cpu: list[float] = []
    real_send = timeouts.timeouts_send

    def timed_send(items) -> None:
        items = list(items)
        started = time.thread_time()
        real_send(items)
        if items:
            send_cpu.append((time.thread_time() - started) / len(items))

    timeouts.timeouts_send = timed_send
    try:
        hands, actions = _play(args.hands, random.Random(args.seed))
        raw = broker.lrange(queue, 0, -1)
        sent = [_decode(message) for message in raw]
        kinds = Counter(args_[0] for args_ in sent)
        print(
            f"{hands} hands, {actions} actions at a {SEATS}-seat table, every player in time "
            f"(seed {args.seed})"
        )
        print(
            f"timeout tasks sent: {len(sent)} = {len(sent) / hands:.1f} per hand, "
            f"{len(sent) / actions:.2f} per action; by kind: {dict(kinds)}"
        )
        print(
            f"message size: mean {statistics.mean(len(m) for m in raw):,.0f} bytes; sender's "
            f"CPU per task: mean {statistics.mean(send_cpu) * 1000:.3f} ms"
        )

        turns = [a for a in sent if a[0] == "poker.turn"]
        _handler_measure(turns)
        _timekeeper_compare(broker, f"{queue}:deadlines", turns)

        # A real worker runs them all from the queue (their etas have passed); the next
        # hands' timers (an hour ahead) stay held, unacked.
        due = len(turns)
        worker_cpu, idle_cpu, seconds = _worker_run(
            queue, broker, held=len(sent) - due, loglevel=args.worker_loglevel
        )
        print(
            f"real worker (solo pool, --loglevel {args.worker_loglevel}): {due} due timeouts "
            f"run in {seconds:.2f} s, process CPU "
            f"{worker_cpu:.2f} s, idle for as long {idle_cpu:.2f} s: "
            f"{(worker_cpu - idle_cpu) / due * 1000:.2f} ms of CPU per stale task"
        )
    finally:
        broker.delete(queue)
    return 0


def _handler_measure(turns: list[list]) -> None:
    """The handler of each stale turn timeout, run here as the worker runs it."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from config.timeouts import timeout_fire

    cpu, wall, statements = [], [], []
    for fired in turns:
        with CaptureQueriesContext(connection) as queries:
            started, clock = time.thread_time(), time.perf_counter()
            done = timeout_fire(*fired)
            cpu.append(time.thread_time() - started)
            wall.append(time.perf_counter() - clock)
        statements.append(len(queries))
        assert done == "moved_on", (fired, done)
    print(
        f"handler per stale turn timeout ({len(turns)}, in this process): CPU mean "
        f"{statistics.mean(cpu) * 1000:.3f} ms, wall p50 "
        f"{statistics.median(wall) * 1000:.3f} ms, statements {statistics.mean(statements)}"
    )


def _timekeeper_compare(broker, key: str, turns: list[list]) -> None:
    """The timekeeper's write per turn that this path replaced (a ZREM and a ZADD in one
    pipeline after commit), on the same Redis, for comparison."""
    pipe_cpu = []
    for _kind, _table, hand_id, turn, at in turns:
        started = time.thread_time()
        pipe = broker.pipeline(transaction=False)
        pipe.zrem(key, f"{hand_id}:{turn - 1}")
        pipe.zadd(key, {f"{hand_id}:{turn}": at})
        pipe.execute()
        pipe_cpu.append(time.thread_time() - started)
    broker.delete(key)
    print(
        f"for comparison, the timekeeper's deadline write per turn: CPU mean "
        f"{statistics.mean(pipe_cpu) * 1000:.3f} ms, no task"
    )


def _decode(message: bytes) -> list:
    import base64

    body = json.loads(message)["body"]
    args_, _kwargs, _embed = json.loads(base64.b64decode(body))
    return args_


def _play(hands: int, chance: random.Random) -> tuple[int, int]:
    """Play `hands` hands in which everyone acts at once; returns (hands, actions)."""
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand, Table
    from poker.services import table_act, table_seat_options_set
    from tests.factories import (
        deal_hand,
        default_rake_schedule_row,
        make_seated_player,
        make_table,
    )

    table = make_table(
        rake_schedule=default_rake_schedule_row(Table.Structure.POT_LIMIT),
        next_hand_delay_seconds=3600,
        action_seconds=1,  # each turn's timeout is due a second after it starts
        max_seats=SEATS,
    )
    players = {n: make_seated_player(table, f"t{n}", n) for n in range(1, SEATS + 1)}
    for player in players.values():  # every stack back to the top after each hand
        table_seat_options_set(table=table, player=player, auto_top_up=True)
    actions = 0
    for _ in range(hands):
        hand = deal_hand(table)
        while hand.status == Hand.Status.RUNNING:
            engine = EngineHand.from_dict(hand.state)
            legal = engine.legal_actions()
            action, amount = ("call", None) if legal.call else ("check", None)
            if legal.call and chance.random() < 0.3:
                action = "fold"
            elif engine.street_name == "flop" and legal.raise_kind == "bet":
                action, amount = "bet", legal.min_to
            table_act(
                table=table,
                player=players[legal.seat],
                action=action,
                amount=amount,
                turn=hand.turn,
                seq=hand.turn,
            )
            actions += 1
            hand.refresh_from_db()
    return hands, actions


def _worker_run(queue: str, broker, *, held: int, loglevel: str) -> tuple[float, float, float]:
    """Start a worker on `queue`, wait until it has run every task but the `held` ones (the
    queue empty, only they unacked): (its CPU from ready to then, its CPU idle for as long
    afterwards, the seconds it took)."""
    log_path = Path(tempfile.mkdtemp(prefix="bench-timeouts-")) / "worker.log"
    command = [
        sys.executable, "-m", "celery", "-A", "config", "worker",
        "--pool", "solo", "--concurrency", "1", "--loglevel", loglevel,
        "--queues", queue, "--without-mingle", "--without-gossip",
        "--hostname", f"bench-timeouts-{os.getpid()}@%h",
    ]  # fmt: skip
    with open(log_path, "w") as log:
        worker = subprocess.Popen(command, cwd=REPO_ROOT, stdout=log, stderr=log)
    try:
        # Ready once it has taken its first message off the queue.
        while broker.hlen("unacked") == 0:
            if worker.poll() is not None:
                sys.exit(f"the worker did not start:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.01)
        cpu0, clock = process_cpu(worker.pid), time.monotonic()
        while broker.llen(queue) or broker.hlen("unacked") > held:
            if worker.poll() is not None or time.monotonic() - clock > 600:
                sys.exit(f"the worker did not finish:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.01)
        seconds = time.monotonic() - clock
        busy = process_cpu(worker.pid) - cpu0
        cpu1 = process_cpu(worker.pid)
        time.sleep(max(seconds, 1.0))
        idle = (process_cpu(worker.pid) - cpu1) * seconds / max(seconds, 1.0)
        return busy, idle, seconds
    finally:
        worker.terminate()
        worker.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
