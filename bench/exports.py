"""Auditor export benchmark: the journal of `--entries` entries (default 100,000) exported
through the room's view, time and peak memory, against PostgreSQL's own COPY of the same rows.

1. ours, CSV streamed: GET /api/cashier/audit/journal/?format=csv through Django's handler and
   middleware, the body read chunk by chunk and counted, never kept.
2. ours, JSON pages: the same entries as JSON pages of `--page` entries, following the Link
   header's next page to the end.
3. before: the whole journal built in memory and rendered as one CSV body, as the export did
   before it streamed (`cashier.audit.journal` + `CSVRenderer`), for the memory it took.
4. the peer: `COPY (the same join, same order) TO STDOUT WITH CSV HEADER` read through psycopg:
   the floor for getting those rows out of the database. The ratio is ours / COPY (time).

Each measurement runs in a forked process of its own, so its peak memory is its own: the growth
of the process's resident set (its peak VmHWM, reset at the start, less its VmRSS then).
Scratch database `room_bench_exports` (or `BENCH_DATABASE_NAME`) on the server named by
`BENCH_DATABASE_URL` (default postgres://postgres@127.0.0.1:5432), created and dropped here.

    .venv/bin/python -m bench.exports [--entries 100000] [--page 10000] [--quick]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import re
import time
from collections.abc import Callable, Sequence

from bench import ledger

ledger.LEDGER_DB = os.environ.get("BENCH_DATABASE_NAME", "room_bench_exports")
PLAYERS = 50
JOURNAL = "/api/cashier/audit/journal/"


def _status_kb(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def _reset_peak_rss() -> None:
    """Reset VmHWM to the current RSS (Linux: writing 5 to clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as refs:
            refs.write("5")
    except OSError:
        pass


def fill(entries: int) -> int:
    """`entries` deposits (wallet +, the outside world -) spread over PLAYERS players, written
    in bulk behind the triggers (a scratch database); returns the postings written."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection, transaction

    from accounts.services import email_mark_verified
    from cashier.models import Account
    from cashier.services import wallet_deposit

    call_command("migrate", verbosity=0)
    users = get_user_model().objects
    for p in range(PLAYERS):
        player = users.create_user(username=f"bench-{p}")
        email_mark_verified(user=player)
        wallet_deposit(player=player, amount=100, idempotency_key="bench-open")
    wallets = list(
        Account.objects.filter(kind=Account.Kind.WALLET).order_by("id").values_list("id", "owner")
    )
    source = Account.objects.get(kind=Account.Kind.OUTSIDE_WORLD).pk
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(
            "CREATE TEMP TABLE bench_wallets (n int, account_id bigint, owner_id bigint) "
            "ON COMMIT DROP"
        )
        cursor.executemany(
            "INSERT INTO bench_wallets VALUES (%s, %s, %s)",
            [(n, account, owner) for n, (account, owner) in enumerate(wallets)],
        )
        cursor.execute(
            "INSERT INTO cashier_entry (reason, player_id, request_fingerprint, memo, created_at) "
            "SELECT 'deposit', w.owner_id, '', 'bench', now() - (%s - g) * interval '1 second' "
            "FROM generate_series(1, %s) g JOIN bench_wallets w ON w.n = g %% %s",
            [entries, entries, len(wallets)],
        )
        cursor.execute(
            "INSERT INTO cashier_posting (entry_id, account_id, amount) "
            "SELECT e.id, w.account_id, 1000 + e.id %% 500 FROM cashier_entry e "
            "JOIN bench_wallets w ON w.owner_id = e.player_id WHERE e.memo = 'bench' "
            "UNION ALL SELECT e.id, %s, -(1000 + e.id %% 500) FROM cashier_entry e "
            "WHERE e.memo = 'bench'",
            [source],
        )
        cursor.execute("SELECT count(*) FROM cashier_posting")
        return cursor.fetchone()[0]


def _client():
    from django.contrib.auth import get_user_model
    from django.test import Client

    auditor = get_user_model().objects.get_or_create(
        username="bench-auditor", defaults={"is_superuser": True, "is_staff": True}
    )[0]
    client = Client(HTTP_HOST="localhost")
    client.force_login(auditor)
    return client


def ours_csv(_args) -> tuple[int, int]:
    response = _client().get(JOURNAL, {"format": "csv"})
    assert response.status_code == 200 and response.streaming
    size = rows = 0
    for part in response.streaming_content:
        size += len(part)
        rows += part.count(b"\n")
    response.close()
    return size, rows - 1


def ours_json_pages(args) -> tuple[int, int]:
    client = _client()
    url, params, size, rows = JOURNAL, {"limit": args.page}, 0, 0
    while url:
        response = client.get(url, params)
        assert response.status_code == 200, response.content[:200]
        size += len(response.content)
        rows += len(response.json())
        link = response.headers.get("Link")
        url = (
            re.fullmatch(r'<http://localhost([^>]+)>; rel="next"', link).group(1) if link else None
        )
        params = None
    return size, rows


def before_one_body(_args) -> tuple[int, int]:
    from cashier.api import CSVRenderer
    from cashier.audit import journal, journal_flat

    flat = journal_flat(journal())
    body = CSVRenderer().render(flat)
    return len(body), len(flat)


PEER_SQL = (
    "COPY (SELECT e.id, e.created_at, e.reason, pu.username, '' AS table_name, e.hand_id, "
    "'' AS created_by, e.memo, p.id, p.account_id, a.kind, coalesce(au.username, ''), '', "
    "CASE WHEN a.kind IN ('house_bankroll', 'banked_bets_in_play') THEN a.shard::text "
    "ELSE '' END, p.amount FROM cashier_entry e JOIN cashier_posting p ON p.entry_id = e.id "
    "JOIN cashier_account a ON a.id = p.account_id "
    "LEFT JOIN auth_user pu ON pu.id = e.player_id LEFT JOIN auth_user au ON au.id = a.owner_id "
    "ORDER BY e.id, p.id) TO STDOUT WITH CSV HEADER"
)


def peer_copy(_args) -> tuple[int, int]:
    import psycopg

    server = ledger.Server.from_url(ledger.SERVER_URL)
    size = rows = 0
    with (
        psycopg.connect(server.url(ledger.LEDGER_DB)) as conn,
        conn.cursor() as cursor,
        cursor.copy(PEER_SQL) as copy,
    ):
        for part in copy:
            size += len(part)
            rows += bytes(part).count(b"\n")
    return size, rows - 1


def _child(how: Callable, args, queue) -> None:
    from django.db import connections

    connections.close_all()  # the parent's socket is not ours to use
    _reset_peak_rss()
    rss = _status_kb("VmRSS")
    started = time.perf_counter()
    size, rows = how(args)
    seconds = time.perf_counter() - started
    queue.put((seconds, size, rows, max(_status_kb("VmHWM") - rss, 0) * 1024))


def measure(how: Callable, args) -> tuple[float, int, int, int]:
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(how, args, queue))
    child.start()
    result = queue.get(timeout=1800)
    child.join()
    return result


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100_000)
    parser.add_argument("--page", type=int, default=10_000, help="entries a JSON page holds")
    parser.add_argument("--quick", action="store_true", help="10,000 entries")
    parser.add_argument("--skip-before", action="store_true", help="not the one-body export")
    args = parser.parse_args(argv)
    entries = 10_000 if args.quick else args.entries
    server = ledger.Server.from_url(ledger.SERVER_URL)
    server.recreate(ledger.LEDGER_DB)
    try:
        ledger.setup_django(server)
        started = time.perf_counter()
        postings = fill(entries)
        print(
            f"journal: {entries:,} entries (+{PLAYERS} opening deposits), {postings:,} postings, "
            f"written in {time.perf_counter() - started:.1f} s",
            flush=True,
        )
        from django.db import connections

        connections.close_all()
        runs = [
            ("ours, CSV streamed", ours_csv),
            (f"ours, JSON pages of {args.page:,}", ours_json_pages),
        ]
        if not args.skip_before:
            runs.append(("before: one CSV body", before_one_body))
        runs.append(("peer: PostgreSQL COPY to CSV", peer_copy))
        results = {}
        for name, how in runs:
            seconds, size, rows, rss = measure(how, args)
            results[name] = seconds
            print(
                f"{name:<32} {seconds:7.2f} s  {rows:>9,} rows  {size / 1e6:7.1f} MB  "
                f"peak RSS growth {rss / 1e6:7.1f} MB",
                flush=True,
            )
        copy = results["peer: PostgreSQL COPY to CSV"]
        for name in results:
            if not name.startswith("peer"):
                print(f"  {name}: {results[name] / copy:5.1f}x the time of COPY")
    finally:
        from django.db import connections

        connections.close_all()
        server.drop(ledger.LEDGER_DB)


if __name__ == "__main__":
    main()
