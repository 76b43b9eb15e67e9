"""One action through the service, profiled: where `table_act`'s time goes (docs/benchmarks.md
"One action, profiled").

A six-seat pot-limit table plays hands through `poker.services.table_act` in this one process,
each action its own committed transaction as in production (no socket, no channel layer
worker: frames are sent to the Redis layer after commit as usual). Every action's wall time
and its statements (Django's `execute_wrapper`) and round trips (the statements, and BEGIN and
COMMIT for each transaction the action opened) are recorded, and
cProfile runs over the actions; the table prints per-action means and the functions with the
most cumulative time.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/room_bench_act \\
    REDIS_URL=redis://127.0.0.1:6379/9 .venv/bin/python -m bench.act_profile [--actions 400]
        [--no-profile]

The database named by DATABASE_URL is dropped and created again.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import statistics
import sys
import time

from bench.frames import django_on_scratch_database, six_seat_table


class Counter:
    """One action's statements (Django's `execute_wrapper`) and the transactions it opened:
    each is two round trips more (psycopg sends BEGIN and COMMIT as commands of their own); a
    statement in autocommit is its own transaction."""

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.statements = self.transactions = 0
        self.in_transaction = False

    def __call__(self, execute, sql, params, many, context):
        self.statements += 1
        in_transaction = context["connection"].in_atomic_block
        if in_transaction and not self.in_transaction:
            self.transactions += 1
        self.in_transaction = in_transaction
        return execute(sql, params, many, context)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=400)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument(
        "--no-profile",
        action="store_true",
        help="time without cProfile (its cost grows with Python calls, so CPU is truer)",
    )
    args = parser.parse_args(argv)
    django_on_scratch_database()
    from django.db import connection

    from poker import services
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand, Table

    table, players = six_seat_table()
    count = Counter()

    walls: list[float] = []
    cpus: list[float] = []
    trips: list[int] = []
    round_trips: list[int] = []
    profile = cProfile.Profile()
    done = 0
    while done < args.actions:
        hand = Hand.objects.filter(table=table, status="running").first()
        if hand is None:
            Table.objects.filter(pk=table.pk).update(next_hand_at=None)
            services.table_hand_start(table=table.pk)
            continue
        engine = EngineHand.from_dict(hand.state)
        legal = engine.legal_actions()
        action = "call" if legal.call else "check"
        count.reset()
        with connection.execute_wrapper(count):
            started, cpu = time.perf_counter(), time.thread_time()
            if not args.no_profile:
                profile.enable()
            services.table_act(
                table=table.pk,
                player=players[engine.to_act],
                action=action,
                amount=None,
                turn=hand.turn,
                seq=hand.turn,
            )
            profile.disable()
            walls.append(time.perf_counter() - started)
            cpus.append(time.thread_time() - cpu)
        trips.append(count.statements)
        round_trips.append(count.statements + 2 * count.transactions)
        done += 1
    walls.sort()
    print(
        f"{len(walls)} actions: "
        f"wall p50 {1000 * statistics.median(walls):.2f} ms, "
        f"mean {1000 * statistics.fmean(walls):.2f} ms, "
        f"p95 {1000 * walls[int(0.95 * (len(walls) - 1))]:.2f} ms; "
        f"this thread's CPU mean {1000 * statistics.fmean(cpus):.2f} ms; "
        f"statements per action mean {statistics.fmean(trips):.2f}, "
        f"median {statistics.median(trips)}; "
        f"round trips (with BEGIN and COMMIT) mean {statistics.fmean(round_trips):.2f}, "
        f"median {statistics.median(round_trips)}"
    )
    if args.no_profile:
        return 0
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out)
    # Where an action's time goes, per action (cumulative, so the parts overlap).
    focus = {
        "table_apply": "table_apply (the whole change, from memory where held)",
        "_apply_held": "  of which from the owner's memory",
        "table_change": "table_change (locked: a take-over, or a refusal confirmed)",
        "lock_table": "the table lock",
        "table_seats": "reading the seats",
        "running_hand": "reading the running hand",
        "load": "load: snapshot + replay check",
        "rebuild": "  of which the replay",
        "persist": "persist (the one write)",
        "frames_and_view": "building the frames",
        "frames_for_change": "building the frames",
        "table_stacks_and_wallets": "  of which stacks and wallets",
        "send": "sending after commit (channel layer)",
        "hand_settle": "settling hands (the cashier)",
    }
    entries = stats.stats  # type: ignore[attr-defined]
    print("per action, cumulative ms (cProfile on; overlapping):")
    for name, label in focus.items():
        total = sum(
            value[3]
            for (path, _line, function), value in entries.items()
            if function == name and ("poker" in path or "cashier" in path)
        )
        if total:
            print(f"  {label:40} {1000 * total / len(walls):8.2f}")
    stats.sort_stats("cumulative").print_stats(args.top)
    if not args.no_profile:
        print(out.getvalue())
    return 0


if __name__ == "__main__":
    sys.exit(main())
