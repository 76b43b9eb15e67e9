"""Ledger benchmark: hand settlements per second on PostgreSQL against pgbench's TPS.

Ours: `cashier.services.hand_settle` for a five-player hand with rake (a six-leg entry: five
stacks and the table's rake account; lock, validate, insert the entry and its postings, move
the stored balances, clear the in-hand marks, commit with the deferred balance trigger). Each
client process settles hands at its own table, as live tables do.

The peer: the same machine's `pgbench` running a one-row update transaction
(`UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :id`) with the same number
of clients, for the same time. Both run against scratch databases created and dropped here, on
the PostgreSQL server named by `BENCH_DATABASE_URL` (default postgres://postgres@127.0.0.1:5432).

    .venv/bin/python -m bench.ledger [--seconds 5] [--clients 1 2 4] [--quick]

It exits 1 when verify_ledger or verify_audit finds a problem after the run (both must pass
after every benchmark), having printed the figures and the problems.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from glob import glob
from urllib.parse import urlparse

import psycopg

from bench.forked import forked_rate

SERVER_URL = os.environ.get("BENCH_DATABASE_URL", "postgres://postgres@127.0.0.1:5432")
# Scratch database names; BENCH_DATABASE_NAME gives your own on a shared server (its pgbench
# peer gets the name with "_pgbench" appended).
LEDGER_DB = os.environ.get("BENCH_DATABASE_NAME", "room_bench_ledger")
PGBENCH_DB = os.environ.get("BENCH_DATABASE_NAME", "room_bench") + "_pgbench"
PLAYERS = 5
STACK = 1_000_000  # $10,000: 100 big blinds at the bench tables' $50/$100
BET, RAKE = 100, 20


@dataclass(frozen=True)
class Server:
    host: str
    port: int
    user: str

    @classmethod
    def from_url(cls, url: str) -> Server:
        parts = urlparse(url)
        return cls(parts.hostname or "127.0.0.1", parts.port or 5432, parts.username or "postgres")

    def url(self, database: str) -> str:
        return f"postgres://{self.user}@{self.host}:{self.port}/{database}"

    def recreate(self, database: str) -> None:
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            conn.execute(f'CREATE DATABASE "{database}"')

    def drop(self, database: str) -> None:
        with psycopg.connect(self.url("postgres"), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')


def find_pgbench() -> str:
    found = shutil.which("pgbench") or next(
        iter(sorted(glob("/usr/lib/postgresql/*/bin/pgbench"), reverse=True)), None
    )
    if not found:
        sys.exit("pgbench not found: install postgresql-client (Debian: postgresql-contrib)")
    return found


# -- ours


def setup_django(server: Server) -> None:
    os.environ["DATABASE_URL"] = server.url(LEDGER_DB)
    os.environ.setdefault("DEBUG", "true")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    import django

    django.setup()


def prepare_tables(clients: int) -> list[tuple[int, list[int]]]:
    """One table per client, five funded players seated at each; (table id, player ids)."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from accounts.services import email_mark_verified
    from cashier.services import table_buy_in, wallet_deposit
    from poker.models import Table

    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    seating = []
    for t in range(clients):
        table = Table.objects.create(
            name=f"bench-{t}",
            game="omaha",
            structure="pot-limit",
            small_blind=5_000,
            big_blind=10_000,
        )
        ids = []
        for p in range(PLAYERS):
            player = users.create_user(username=f"bench-{t}-{p}")
            email_mark_verified(user=player)  # deposits wait for a proven address
            wallet_deposit(player=player, amount=STACK, idempotency_key="bench-deposit")
            table_buy_in(
                player=player,
                table_id=table.pk,
                min_buy_in=table.min_buy_in,
                max_buy_in=table.max_buy_in,
                amount=STACK,
                idempotency_key="bench-sit",
            )
            ids.append(player.pk)
        seating.append((table.pk, ids))
    return seating


def settle_for(table_id: int, player_ids: list[int], seconds: float, first_hand: int, queue):
    """Settle hands for `seconds` (in a child process); report how many."""
    from django.db import connections

    from cashier.services import hand_settle
    from poker.models import Table

    connections.close_all()  # never share the parent's socket
    table = Table.objects.get(pk=table_id)
    hands = 0
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        winner = player_ids[hands % PLAYERS]
        nets = {pid: -BET for pid in player_ids}
        nets[winner] = BET * (PLAYERS - 1) - RAKE
        hand_settle(table_id=table.pk, hand_id=first_hand + hands, net_by_player=nets, rake=RAKE)
        hands += 1
    connections.close_all()
    queue.put(hands)


def measure_ours(seating, clients: int, seconds: float, round_number: int) -> float:
    worker_args = [
        (table_id, ids, seconds, (round_number * 100 + i + 1) * 10_000_000)
        for i, (table_id, ids) in enumerate(seating[:clients])
    ]
    return forked_rate(settle_for, worker_args, seconds=seconds, what="settlement worker")


# -- the peer


PGBENCH_SCRIPT = (
    "\\set id random(1, 100000)\n"
    "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :id;\n"
)


# A settlement's work as separate plain statements, without Python:
# pgbench client n settles at the n-th bench table (lock the six accounts, insert the entry and
# its six postings, move the balances, commit with the deferred balance trigger; no audit
# record). Informational: the database's share of the work, sent the simple way.
SETTLEMENT_SQL_SCRIPT = """\\set h random(1, 9000000000000000)
\\set t :first_table + :client_id
\\set w random(0, 4)
BEGIN;
SELECT id, balance FROM cashier_account WHERE table_id = :t ORDER BY id FOR UPDATE;
WITH e AS (INSERT INTO cashier_entry (reason, table_id, hand_id, request_fingerprint, memo,
  created_at) VALUES ('hand_settlement', :t, :h, '', 'bench', now()) RETURNING id),
legs AS (SELECT id AS account_id, CASE WHEN kind = 'table_rake' THEN 20
  WHEN owner_id = (SELECT owner_id FROM cashier_account
  WHERE table_id = :t AND kind = 'table_stack' ORDER BY owner_id OFFSET :w LIMIT 1) THEN 380
  ELSE -100 END AS amount FROM cashier_account WHERE table_id = :t)
INSERT INTO cashier_posting (entry_id, account_id, amount) SELECT e.id, legs.account_id,
  legs.amount FROM e, legs;
UPDATE cashier_account SET balance = balance + CASE WHEN kind = 'table_rake' THEN 20
  WHEN owner_id = (SELECT owner_id FROM cashier_account
  WHERE table_id = :t AND kind = 'table_stack' ORDER BY owner_id OFFSET :w LIMIT 1) THEN 380
  ELSE -100 END WHERE table_id = :t;
END;
""".replace("\n  ", " ")


def measure_pgbench(
    server: Server,
    pgbench: str,
    clients: int,
    seconds: float,
    *,
    script_text: str = PGBENCH_SCRIPT,
    database: str = PGBENCH_DB,
    variables: Sequence[str] = (),
) -> float:
    base = [pgbench, "-h", server.host, "-p", str(server.port), "-U", server.user]
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as script:
        script.write(script_text)
    try:
        result = subprocess.run(
            [
                *base,
                "-n",
                "-f",
                script.name,
                "-c",
                str(clients),
                "-j",
                str(clients),
                "-T",
                str(max(1, round(seconds))),
                *(f"--define={variable}" for variable in variables),
                database,
            ],
            capture_output=True,
            text=True,
            check=True,
        )
    finally:
        os.unlink(script.name)
    match = re.search(r"tps = ([\d.]+) \(without initial connection time\)", result.stdout)
    if not match:
        match = re.search(r"tps = ([\d.]+)", result.stdout)
    return float(match.group(1))


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 2, 4])
    parser.add_argument("--quick", action="store_true", help="2 seconds per measurement")
    args = parser.parse_args(argv)
    seconds = 2.0 if args.quick else args.seconds
    server = Server.from_url(SERVER_URL)
    pgbench = find_pgbench()

    server.recreate(PGBENCH_DB)
    subprocess.run(
        [
            pgbench,
            "-i",
            "-q",
            "-h",
            server.host,
            "-p",
            str(server.port),
            "-U",
            server.user,
            PGBENCH_DB,
        ],
        capture_output=True,
        check=True,
    )
    server.recreate(LEDGER_DB)
    try:
        setup_django(server)
        seating = prepare_tables(max(args.clients))
        for round_number, clients in enumerate(args.clients):
            peer = measure_pgbench(server, pgbench, clients, seconds)
            ours = measure_ours(seating, clients, seconds, round_number)
            name = f"hand settlements, {clients} client{'s' if clients > 1 else ''}"
            print(
                f"{name:<34} ours {ours:>12,.1f} /s       pgbench {peer:>12,.1f} tps      "
                f"ratio {ours / peer:5.2f}x (higher is better)",
                flush=True,
            )
        from django.db import connections

        from audit.verify import audit_verify
        from cashier.verify import ledger_verify

        # Our settlements checked before the diagnostics below write entries of their own
        # (raw SQL, without the audit records the room writes).
        report, audited = ledger_verify(skip={"hand_settlements_match_hands"}), audit_verify()
        print(
            f"  (after our settlements: verify_ledger {'ok' if report.ok else report.problems}, "
            f"verify_audit {'ok' if audited.ok else audited.summary()})",
            flush=True,
        )
        first_table = min(table_id for table_id, _ in seating)
        for clients in args.clients:
            sql_only = measure_pgbench(
                server,
                pgbench,
                clients,
                seconds,
                script_text=SETTLEMENT_SQL_SCRIPT,
                database=LEDGER_DB,
                variables=[f"first_table={first_table}"],
            )
            untriggered = measure_pgbench(
                server,
                pgbench,
                clients,
                seconds,
                script_text="SET session_replication_role = replica;\n" + SETTLEMENT_SQL_SCRIPT,
                database=LEDGER_DB,
                variables=[f"first_table={first_table}"],
            )
            print(
                f"  (a settlement's work as 4 statements sent by pgbench, {clients} client"
                f"{'s' if clients > 1 else ''}: {sql_only:,.1f} tps; without the ledger's "
                f"triggers: {untriggered:,.1f} tps)",
                flush=True,
            )

        # The bench settles hand ids that no table dealt, so poker's hand check does not apply.
        final = ledger_verify(skip={"hand_settlements_match_hands"})
        print(
            f"  (ledger after the run: {final.entries:,} entries, {final.postings:,} postings, "
            f"{'consistent' if final.ok else 'NOT CONSISTENT: ' + '; '.join(final.problems)})"
        )
        connections.close_all()
    finally:
        server.drop(LEDGER_DB)
        server.drop(PGBENCH_DB)
    if not (report.ok and audited.ok and final.ok):
        sys.exit("verify_ledger or verify_audit failed after the run (above)")


if __name__ == "__main__":
    main()
