"""A whole hand through the services, per kind of command: what a deal, a mid-hand action and
the action that ends a hand cost (docs/benchmarks.md "Deals and hands' ends").

A six-seat pot-limit table plays hands in this one process: `poker.services.table_hand_start`
deals, `poker.services.table_act` calls or checks until the hand ends, each its own committed
transaction as in production (frames go to the Redis layer after commit as usual). Every
command's statements (Django's `execute_wrapper`; BEGIN and COMMIT not counted) and this
thread's CPU are recorded by kind: `deal`, `mid` (the hand runs on) and `end` (the action that
ends the hand: its settlement, reveal, seats tidied). Every other deal and about every other
action run under cProfile (each its own profile, kept when it was of the `--profile` kind);
the CPU figures are of the commands run without it. The last deal's and the last hand end's
statements are listed, then the profile of that kind.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/room_bench_hand \\
    REDIS_URL=redis://127.0.0.1:6379/9 .venv/bin/python -m bench.hand_profile \\
        [--commands 600] [--no-list] [--top 35] [--profile deal|end|mid]

The database named by DATABASE_URL is dropped and created again.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import random
import statistics
import sys
import time

from bench.frames import SEATS, django_on_scratch_database, six_seat_table

WARMUP = 2  # hands not counted: their one-off imports (the URL conf at the first reveal), caches
KINDS = ("deal", "mid", "end")


class Recorder:
    """Per kind of command: each one's statements and (unprofiled) CPU, and one profile of
    the kind asked for."""

    def __init__(self, profiled_kind: str) -> None:
        self.statements: list[str] = []
        self.cpu: dict[str, list[float]] = {kind: [] for kind in KINDS}
        self.listed: dict[str, list[list[str]]] = {kind: [] for kind in KINDS}
        self.profiled_kind = profiled_kind
        self.profiled = 0
        self.out = io.StringIO()
        self.stats: pstats.Stats | None = None

    def count(self, execute, sql, params, many, context):
        self.statements.append(" ".join(sql.split())[:110])
        return execute(sql, params, many, context)

    def run(self, command, *, profiled: bool) -> tuple[float, cProfile.Profile]:
        """Run `command` counting its statements; (this thread's CPU, its profile)."""
        from django.db import connection

        self.statements = []
        profile = cProfile.Profile()
        with connection.execute_wrapper(self.count):
            started = time.thread_time()
            if profiled:
                profile.enable()
            command()
            profile.disable()
            return time.thread_time() - started, profile

    def keep(self, kind: str, spent: float, profile: cProfile.Profile, *, profiled: bool) -> None:
        self.listed[kind].append(self.statements)
        if not profiled:
            self.cpu[kind].append(spent)
        elif kind == self.profiled_kind:
            self.profiled += 1
            if self.stats is None:
                self.stats = pstats.Stats(profile, stream=self.out)
            else:
                self.stats.add(profile)

    def report(self, *, listing: bool, top: int) -> None:
        print(f"{'kind':5} {'count':>6} {'statements':>11} {'CPU mean':>10} {'CPU p50':>9}")
        for kind in KINDS:
            if not self.listed[kind]:
                continue
            counts = [len(each) for each in self.listed[kind]]
            times = self.cpu[kind] or [0.0]
            print(
                f"{kind:5} {len(counts):6} {statistics.fmean(counts):11.2f} "
                f"{1000 * statistics.fmean(times):7.2f} ms "
                f"{1000 * statistics.median(times):6.2f} ms"
            )
        for kind in ("deal", "end") if listing else ():
            if self.listed[kind]:
                print(f"== the last {kind}'s statements")
                for sql in self.listed[kind][-1]:
                    print("  ", sql)
        if self.stats is not None:
            print(f"== cProfile of {self.profiled} commands of kind {self.profiled_kind}")
            self.stats.sort_stats("cumulative").print_stats(top)
            print(self.out.getvalue())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--commands", type=int, default=600)
    parser.add_argument("--top", type=int, default=35)
    parser.add_argument("--no-list", action="store_true", help="do not list the statements")
    parser.add_argument("--profile", choices=KINDS, default="deal")
    args = parser.parse_args(argv)
    django_on_scratch_database()
    from poker import services
    from poker.engine.hand import Hand as EngineHand
    from poker.models import Hand, Table

    table, players = six_seat_table()
    recorder = Recorder(args.profile)
    deals = hands_ended = 0
    coin = random.Random(1)  # which actions run profiled: an end's place in a hand is fixed
    for _ in range(args.commands):
        hand = Hand.objects.filter(table=table, status="running").first()
        if hand is None:
            Table.objects.filter(pk=table.pk).update(next_hand_at=None)
            deals += 1
            profiled = deals % 2 == 0
            spent, profile = recorder.run(
                lambda: services.table_hand_start(table=table.pk), profiled=profiled
            )
            kind = "deal"
        else:
            profiled = coin.random() < 0.5
            engine = EngineHand.from_dict(hand.state)
            spent, profile = recorder.run(
                lambda hand=hand, engine=engine: services.table_act(
                    table=table.pk,
                    player=players[engine.to_act],
                    action="call" if engine.legal_actions().call else "check",
                    amount=None,
                    turn=hand.turn,
                    seq=hand.turn,
                ),
                profiled=profiled,
            )
            running = Hand.objects.filter(pk=hand.pk, status="running").exists()
            kind = "mid" if running else "end"
        if hands_ended < WARMUP:
            hands_ended += kind == "end"
            continue
        recorder.keep(kind, spent, profile, profiled=profiled)
    print(
        f"{args.commands} commands (the first {WARMUP} hands not counted), {SEATS} seats, "
        "pot limit; CPU of the commands run without cProfile:"
    )
    recorder.report(listing=not args.no_list, top=args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())
