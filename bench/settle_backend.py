"""What a hand settlement costs the PostgreSQL backend: its CPU per settlement, read
from /proc/<backend pid>/stat (so the server's work, whatever else the machine runs), beside
our process's CPU and the wall time, in process, one client, bench/ledger.py's six-leg hand
through `cashier.services.hand_settle`, after a warm-up (statements prepared, ids learnt).

Variants of the database's side are measured in the same run, alternating: each `--variant
FILE` is SQL installed before its measurements (CREATE OR REPLACE of a trigger function, an
index dropped...) and undone after them by the part of the file after a line `-- revert`.
The database as migrated is measured as `as migrated`.

    BENCH_DATABASE_NAME=bench_<you> .venv/bin/python -m bench.settle_backend \
        [--hands 2000] [--rounds 3] [--variant FILE ...]

Needs the server on this machine (the backend's /proc entry). Scratch database
`<BENCH_DATABASE_NAME>` (bench/ledger.py's), created and dropped here.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import psycopg

from bench import ledger

TICKS = os.sysconf("SC_CLK_TCK")
# A record shaped like a settlement's `ledger.entry` (its own transaction, so the chain links it).
RECORD_SQL = """
INSERT INTO audit_auditrecord (created_at, actor_label, actor_kind, action, subject_type,
    subject_id, subject_label, payload, reason, content_hash)
VALUES (now(), '', 'system', 'ledger.entry', 'cashier.entry', '1', 'hand_settlement',
    '{"reason": "hand_settlement", "player_id": null, "table_id": 1, "hand_id": 1,
      "legs": [[1, -100], [2, -100], [3, -100], [4, -100], [5, 380], [6, 20]]}',
    '', encode(sha256(random()::text::bytea), 'hex'))
"""


def backend_cpu(pid: int) -> float:
    """The backend's user + system CPU seconds so far."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def _load() -> str:
    with open("/proc/loadavg") as loadavg:
        return loadavg.read().split()[0]


def _arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2000, help="per measurement")
    parser.add_argument("--warm", type=int, default=50, help="before each measurement")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--variant", action="append", default=[], help="SQL file")
    parser.add_argument("--keep", action="store_true", help="keep the scratch database")
    parser.add_argument("--variants-only", action="store_true", help="not the database as migrated")
    parser.add_argument("--no-vacuum", action="store_true", help="no VACUUM between measurements")
    parser.add_argument(
        "--records",
        action="store_true",
        help="instead of settlements, one audit record per transaction (the chain's share)",
    )
    return parser.parse_args(argv)


def _settler(server: ledger.Server, records: bool) -> tuple[Callable[[int], None], int]:
    """What one measurement repeats, and the PostgreSQL backend it runs on."""
    if records:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        writer = psycopg.connect(server.url(ledger.LEDGER_DB), autocommit=True)

        def write(count: int) -> None:
            for _n in range(count):
                writer.execute(RECORD_SQL, prepare=True)

        return write, writer.execute("SELECT pg_backend_pid()").fetchone()[0]

    from django.db import connection

    from cashier.services import hand_settle

    table_id, player_ids = ledger.prepare_tables(1)[0]
    next_hand = [10**9]

    def settle(count: int) -> None:
        for n in range(count):
            nets = {pid: -ledger.BET for pid in player_ids}
            nets[player_ids[n % ledger.PLAYERS]] = ledger.BET * (ledger.PLAYERS - 1) - ledger.RAKE
            hand_settle(
                table_id=table_id, hand_id=next_hand[0], net_by_player=nets, rake=ledger.RAKE
            )
            next_hand[0] += 1

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return settle, cursor.fetchone()[0]


def _measure(args, admin, name: str, install: str, revert: str, run, pid: int) -> list[float]:
    if install.strip():
        admin.execute(install)
    # Each measurement starts from the same tables: on a shared server other databases' open
    # transactions can stall the pruning of dead row versions (the account rows, the chain
    # head), and the cost would grow with the run.
    if not args.no_vacuum:
        admin.execute("VACUUM cashier_account, audit_auditchainhead, audit_auditrecord")
    run(args.warm)
    server_cpu, cpu, wall = backend_cpu(pid), time.process_time(), time.perf_counter()
    run(args.hands)
    server_cpu = backend_cpu(pid) - server_cpu
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if revert.strip():
        admin.execute(revert)
    per = [value / args.hands * 1000 for value in (server_cpu, cpu, wall)]
    pages = admin.execute(
        "SELECT pg_relation_size('audit_auditchainhead') / 8192, "
        "pg_relation_size('audit_auditrecord') / 8192"
    ).fetchone()
    print(
        f"{name:<24} backend CPU {per[0]:.3f} ms, our CPU {per[1]:.3f} ms, wall {per[2]:.3f} ms "
        f"each (load {_load()}; pages: chain head {pages[0]}, records {pages[1]})",
        flush=True,
    )
    return per


def main(argv: Sequence[str] | None = None) -> None:
    args = _arguments(argv)
    variants: list[tuple[str, str, str]] = [] if args.variants_only else [("as migrated", "", "")]
    for name in args.variant:
        install, _, revert = Path(name).read_text().partition("\n-- revert\n")
        variants.append((Path(name).stem, install, revert))
    server = ledger.Server.from_url(ledger.SERVER_URL)
    server.recreate(ledger.LEDGER_DB)
    try:
        ledger.setup_django(server)
        run, pid = _settler(server, args.records)
        figures: dict[str, list[list[float]]] = {name: [] for name, *_ in variants}
        with psycopg.connect(server.url(ledger.LEDGER_DB), autocommit=True) as admin:
            for _round in range(args.rounds):
                for name, install, revert in variants:
                    figures[name].append(_measure(args, admin, name, install, revert, run, pid))
        print("medians:")
        for name, rows in figures.items():
            print(
                f"{name:<24} backend CPU {statistics.median(r[0] for r in rows):.3f} ms, "
                f"our CPU {statistics.median(r[1] for r in rows):.3f} ms, "
                f"wall {statistics.median(r[2] for r in rows):.3f} ms"
            )
        from django.db import connection

        connection.close()
    finally:
        if not args.keep:
            server.drop(ledger.LEDGER_DB)


if __name__ == "__main__":
    main()
