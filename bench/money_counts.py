"""What a hand settlement and an online Showdown round cost, whatever the machine's load:
statements sent (Django's `execute_wrapper`; psycopg adds BEGIN and COMMIT) and
this process's CPU (`time.process_time()`), in process, one client, after a warm-up (account
ids learnt, statements prepared). Wall time is printed too, with the load average beside it.

    BENCH_DATABASE_NAME=bench_<you> .venv/bin/python -m bench.money_counts [--hands N] [--rounds N]

Scratch database `<BENCH_DATABASE_NAME>` (bench/ledger.py's), created and dropped here.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence

from bench import ledger, showdown


def _load() -> str:
    with open("/proc/loadavg") as loadavg:
        return loadavg.read().split()[0]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=60)
    args = parser.parse_args(argv)
    server = ledger.Server.from_url(ledger.SERVER_URL)
    server.recreate(ledger.LEDGER_DB)
    try:
        ledger.setup_django(server)
        table_id, player_ids = ledger.prepare_tables(1)[0]
        showdown_table_id, showdown_players = showdown._prepare_service(1)

        from django.contrib.auth import get_user_model
        from django.db import connection

        from cashier.services import hand_settle
        from showdown.models import ShowdownTable

        def settle(count: int, first_hand: int) -> None:
            for n in range(count):
                nets = {pid: -ledger.BET for pid in player_ids}
                nets[player_ids[n % ledger.PLAYERS]] = (
                    ledger.BET * (ledger.PLAYERS - 1) - ledger.RAKE
                )
                hand_settle(
                    table_id=table_id,
                    hand_id=first_hand + n,
                    net_by_player=nets,
                    rake=ledger.RAKE,
                )

        table = ShowdownTable.objects.get(pk=showdown_table_id)
        player = get_user_model().objects.get(pk=showdown_players[0])

        def play(count: int, tag: str) -> None:
            for n in range(count):
                showdown.round_play(player=player, table=table, n=n, tag=tag)

        settle(30, 10**9)
        play(10, "warm")
        sent = [0]

        def count(execute, sql, params, many, context):
            sent[0] += 1
            return execute(sql, params, many, context)

        runs: list[tuple[str, Callable[[], None], int]] = [
            ("hand settlement", lambda: settle(args.hands, 2 * 10**9), args.hands),
            ("online round (deal + decide)", lambda: play(args.rounds, "measured"), args.rounds),
        ]
        for what, run, times in runs:
            sent[0] = 0
            cpu, wall = time.process_time(), time.perf_counter()
            with connection.execute_wrapper(count):
                run()
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
            print(
                f"per {what}: {sent[0] / times:.1f} statements (plus BEGIN, COMMIT), "
                f"our CPU {cpu / times * 1000:.2f} ms, wall {wall / times * 1000:.2f} ms "
                f"(load {_load()})",
                flush=True,
            )
        connection.close()
    finally:
        server.drop(ledger.LEDGER_DB)


if __name__ == "__main__":
    main()
