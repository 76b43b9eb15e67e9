"""Audit log benchmark: what the audit log costs on the hot path, and how fast it verifies.

1. Hand settlements per second (bench/ledger.py's settlement: a five-player hand with rake at
   each client's own table) with the audit log as the room runs it (one `ledger.entry` record
   per entry, chained at commit under the chain head's lock) and without it (the record call
   replaced by nothing in the bench's worker processes only), alternating in the same run, so
   the ratio compares like with like.
2. `verify_audit` records per second over the log those settlements wrote plus `--records`
   more (and, for scale, how fast `audit_record` alone appends them).

PostgreSQL on a scratch database (`room_bench_audit`, or `<BENCH_DATABASE_NAME>_audit`; created and
dropped here) on the server named by `BENCH_DATABASE_URL` (default postgres://postgres@127.0.0.1:5432).

    .venv/bin/python -m bench.audit [--seconds 5] [--clients 1 2] [--rounds 2] [--quick]
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Sequence

from bench import ledger
from bench.forked import forked_rate

# Never the ledger bench's own scratch database; BENCH_DATABASE_NAME gives your own.
ledger.LEDGER_DB = os.environ.get("BENCH_DATABASE_NAME", "room_bench") + "_audit"


def _unaudited(statement):
    """The posting statement with its audit record's INSERT selecting no row (the same
    parameters, so it runs as prepared; no record, so the chain trigger never fires)."""

    def without_record(count, link_shape):
        head, cte, tail = statement(count, link_shape).partition("), audited AS (")
        return head + cte + tail.replace("WHERE ids.id IN", "WHERE false AND ids.id IN", 1)

    return without_record


def _settle(table_id: int, player_ids: list[int], seconds: float, first_hand: int, audit, queue):
    if not audit:
        import cashier.posting

        # The record is part of the settlement's one statement, so "without audit" is that
        # statement with the record's INSERT selecting no row.
        cashier.posting._statement = _unaudited(cashier.posting._statement)
    ledger.settle_for(table_id, player_ids, seconds, first_hand, queue)


def measure(seating, clients: int, seconds: float, round_number: int, *, audit: bool) -> float:
    """Settlements per second over `clients` processes, each at its own table."""
    worker_args = [
        (table_id, ids, seconds, (round_number * 100 + i + 1) * 10_000_000, audit)
        for i, (table_id, ids) in enumerate(seating[:clients])
    ]
    return forked_rate(_settle, worker_args, seconds=seconds, what="settlement worker")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--rounds", type=int, default=2, help="without/with pairs per count")
    parser.add_argument(
        "--records", type=int, default=20_000, help="records to add before timing verify_audit"
    )
    parser.add_argument("--quick", action="store_true", help="2 seconds per measurement")
    args = parser.parse_args(argv)
    seconds = 2.0 if args.quick else args.seconds
    server = ledger.Server.from_url(ledger.SERVER_URL)
    server.recreate(ledger.LEDGER_DB)
    try:
        ledger.setup_django(server)
        seating = ledger.prepare_tables(max(args.clients))
        round_number = 0
        for clients in args.clients:
            without, with_audit = [], []
            for _ in range(args.rounds):
                for audit, results in ((False, without), (True, with_audit)):
                    results.append(measure(seating, clients, seconds, round_number, audit=audit))
                    round_number += 1
            bare, audited = sum(without) / len(without), sum(with_audit) / len(with_audit)
            name = f"hand settlements, {clients} client{'s' if clients > 1 else ''}"
            print(
                f"{name:<32} without audit {bare:>9,.1f} /s   with audit {audited:>9,.1f} /s   "
                f"ratio {audited / bare:5.2f}x",
                flush=True,
            )

        from django.db import connections, transaction

        from audit import verify as audit_verify_module
        from audit.services import audit_record
        from audit.verify import audit_verify
        from cashier.verify import ledger_verify

        connections.close_all()
        # A log of a realistic size for the check: records like the settlements' own.
        started = time.perf_counter()
        for batch in range(0, args.records, 1_000):
            with transaction.atomic():
                for n in range(batch, min(batch + 1_000, args.records)):
                    audit_record(
                        action="ledger.entry",
                        payload={
                            "reason": "hand_settlement",
                            "hand_id": n,
                            "legs": [[1, -n], [2, n]],
                        },
                    )
        if args.records:
            written = time.perf_counter() - started
            print(
                f"audit_record alone: {args.records:,} records in {written:.2f} s, "
                f"{args.records / written:,.0f} records/s (1,000 per transaction)",
                flush=True,
            )
        # The chain walk only: the runs without audit records left their entries unrecorded on
        # purpose, which the completeness rule (ledger_entries_recorded) would list.
        audit_verify_module._registered.clear()
        best = None
        for _ in range(3):
            report = audit_verify()
            if best is None or report.seconds < best.seconds:
                best = report
        print(
            f"verify_audit: {best.records:,} records in {best.seconds:.2f} s, "
            f"{best.records / best.seconds:,.0f} records/s "
            f"({'intact' if best.ok else 'BROKEN: ' + '; '.join(best.problems)})",
            flush=True,
        )
        report = ledger_verify(skip={"hand_settlements_match_hands"})
        print(
            f"  (ledger after the run: {report.entries:,} entries, "
            f"{'consistent' if report.ok else 'NOT CONSISTENT'})"
        )
        connections.close_all()
    finally:
        server.drop(ledger.LEDGER_DB)


if __name__ == "__main__":
    main()
