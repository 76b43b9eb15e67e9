"""One online Omaha Showdown round through the services, profiled: where `round_deal` and
`round_decide` spend this process's CPU and which statements they send (docs/benchmarks.md
"An online round, profiled").

In this one process, one player plays rounds at the bench's table (bench/showdown.py's wagers
and decisions) after a warm-up; `time.process_time()` over the rounds without the profiler
(beside the PostgreSQL backend's CPU over the same rounds, from /proc: the server must run on
this machine), then the same number again under cProfile, whose table of the most cumulative
time is printed with each statement's text once (Django's `execute_wrapper`; psycopg adds BEGIN
and COMMIT).

    BENCH_DATABASE_NAME=bench_<you> .venv/bin/python -m bench.round_profile [--rounds 300]
        [--top 40] [--no-profile] [--dump FILE]

Scratch database `<BENCH_DATABASE_NAME>` (bench/ledger.py's), created and dropped here.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time
from collections import Counter
from collections.abc import Sequence

from bench import ledger, showdown
from bench.settle_backend import backend_cpu


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=300)
    parser.add_argument("--top", type=int, default=40)
    parser.add_argument("--no-profile", action="store_true")
    parser.add_argument("--dump", help="also write the profile to this file (pstats)")
    args = parser.parse_args(argv)
    server = ledger.Server.from_url(ledger.SERVER_URL)
    server.recreate(ledger.LEDGER_DB)
    try:
        ledger.setup_django(server)
        table_id, players = showdown._prepare_service(1)

        from django.contrib.auth import get_user_model
        from django.db import connection

        from showdown.models import ShowdownTable

        table = ShowdownTable.objects.get(pk=table_id)
        player = get_user_model().objects.get(pk=players[0])
        statements: Counter[str] = Counter()

        def count(execute, sql, params, many, context):
            statements[" ".join(sql.split())[:160]] += 1
            return execute(sql, params, many, context)

        def play(count_: int, tag: str) -> None:
            for n in range(count_):
                showdown.round_play(player=player, table=table, n=n, tag=tag)

        def transactions() -> int:
            """Transactions committed in this database so far (PostgreSQL's statistics, which
            a backend reports at most once a second: read after a pause)."""
            time.sleep(1.5)
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_stat_clear_snapshot()")
                cursor.execute(
                    "SELECT xact_commit FROM pg_stat_database WHERE datname = current_database()"
                )
                return int(cursor.fetchone()[0])

        play(20, "warm")
        committed = transactions()
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            backend = cursor.fetchone()[0]
        with connection.execute_wrapper(count):
            server_cpu, cpu, wall = backend_cpu(backend), time.process_time(), time.perf_counter()
            play(args.rounds, "timed")
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            server_cpu = backend_cpu(backend) - server_cpu
        committed = transactions() - committed - 2  # the two reads of the figure
        sent = sum(statements.values())
        print(
            f"per round: {sent / args.rounds:.2f} statements in "
            f"{committed / args.rounds:.2f} transactions (a statement outside BEGIN ... COMMIT "
            f"is its own), our CPU {cpu / args.rounds * 1000:.2f} ms, "
            f"the PostgreSQL backend's CPU {server_cpu / args.rounds * 1000:.2f} ms, "
            f"wall {wall / args.rounds * 1000:.2f} ms"
        )
        for sql, times in statements.most_common():
            print(f"  {times / args.rounds:5.2f} x {sql}")
        if not args.no_profile:
            profile = cProfile.Profile(time.process_time)  # CPU, not waits
            profile.enable()
            play(args.rounds, "profiled")
            profile.disable()
            if args.dump:
                profile.dump_stats(args.dump)
            out = io.StringIO()
            pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(args.top)
            print(out.getvalue())
            out = io.StringIO()
            stats = pstats.Stats(profile, stream=out).sort_stats("cumulative")
            stats.print_callees(r"\(_deal\)|\(round_decide\)")  # what each step costs
            print(out.getvalue())
        connection.close()
    finally:
        server.drop(ledger.LEDGER_DB)


if __name__ == "__main__":
    main()
