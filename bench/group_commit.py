"""Group commit, measured (issue 37: "several tables' actions in one commit on one writer,
commit before frames leave"): does writing K tables' mid-hand actions in one transaction pay
against the owner's way, each action one statement in autocommit (its own commit)?

K six-seat tables play hands through `poker.services.table_act` in this one process, from the
table's memory as at an owner (poker/services/unit.py `table_apply`). The peer, `own commit`,
is the owner as it is: one action of each table in turn, each committed on its own. `group`
makes the same actions K to a transaction (one action of each table, then one COMMIT; the
frames, the memory and the timers leave after it, as `on_commit` holds them). The two
alternate in slices in the same run. Per completed action: wall, this process's CPU, the
PostgreSQL backend's CPU (/proc of `pg_backend_pid()`), and the ratio of group to own commit.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/room_bench_group \\
    REDIS_URL=redis://127.0.0.1:6379/9 .venv/bin/python -m bench.group_commit \\
        [--tables 8] [--slices 6] [--steps 40]

The database named by DATABASE_URL is dropped and created again.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

from bench.frames import SEATS, django_on_scratch_database, next_call_or_check

TICKS = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """Seconds of CPU (user + system) the process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def tables_to_play(count: int):
    from poker.models import Table
    from tests.factories import default_rake_schedule_row, make_seated_player, make_table

    tables = []
    for t in range(count):
        table = make_table(
            rake_schedule=default_rake_schedule_row(Table.Structure.POT_LIMIT),
            next_hand_delay_seconds=3600,
            max_seats=SEATS,
        )
        players = {n: make_seated_player(table, f"g{t}s{n}", n) for n in range(1, SEATS + 1)}
        tables.append((table, players))
    return tables


def play_slice(tables, steps: int, *, group: bool, backend: int) -> tuple[int, float, float, float]:
    """`steps` rounds of one action per table: (actions, wall, this process's CPU, the
    backend's CPU), the moves' reads (what the bench looks up to act) left out."""
    from django.db import transaction

    from poker import services

    done, wall, cpu, db_cpu = 0, 0.0, 0.0, 0.0
    for _ in range(steps):
        actions = [a for a in (next_call_or_check(t, p) for t, p in tables) if a is not None]
        if not actions:
            continue
        started, thread, db = time.perf_counter(), time.thread_time(), process_cpu(backend)
        if group:
            with transaction.atomic():
                for action in actions:
                    services.table_act(**action)
        else:
            for action in actions:
                services.table_act(**action)
        wall += time.perf_counter() - started
        cpu += time.thread_time() - thread
        db_cpu += process_cpu(backend) - db
        done += len(actions)
    return done, wall, cpu, db_cpu


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tables", type=int, default=8)
    parser.add_argument("--slices", type=int, default=6, help="slices of each mode, alternated")
    parser.add_argument("--steps", type=int, default=40, help="one action per table a step")
    args = parser.parse_args(argv)
    django_on_scratch_database()
    from django.db import connection

    tables = tables_to_play(args.tables)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        backend = cursor.fetchone()[0]
    play_slice(tables, 10, group=False, backend=backend)  # warm: every table in memory
    totals = {"own commit": [0, 0.0, 0.0, 0.0], "group": [0, 0.0, 0.0, 0.0]}
    per_slice: dict[str, list[float]] = {"own commit": [], "group": []}
    for index in range(2 * args.slices):
        mode = "group" if index % 2 else "own commit"
        done, wall, cpu, db_cpu = play_slice(
            tables, args.steps, group=mode == "group", backend=backend
        )
        for slot, value in enumerate((done, wall, cpu, db_cpu)):
            totals[mode][slot] += value
        per_slice[mode].append(1000 * wall / max(done, 1))
    print(f"{args.tables} tables, {args.slices} slices of {args.steps} steps per mode, alternated")
    figures = {}
    for mode, (done, wall, cpu, db_cpu) in totals.items():
        figures[mode] = (1000 * wall / done, 1000 * cpu / done, 1000 * db_cpu / done)
        print(
            f"  {mode:>10}: {done} actions, wall {figures[mode][0]:.2f} ms per action "
            f"(slices' median {statistics.median(per_slice[mode]):.2f}), this process's CPU "
            f"{figures[mode][1]:.2f} ms, PostgreSQL backend's CPU {figures[mode][2]:.2f} ms"
        )
    peer, group = figures["own commit"], figures["group"]
    print(
        f"  group / own commit: wall {group[0] / peer[0]:.2f}, this process's CPU "
        f"{group[1] / peer[1]:.2f}, PostgreSQL's CPU {group[2] / max(peer[2], 1e-9):.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
