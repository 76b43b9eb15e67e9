"""Hand histories benchmark: one player with 100,000 hands (`--quick`: 10,000).

    .venv/bin/python -m bench.histories [--quick] [--hands N] [--requests N]

It fills a scratch database with the player's hands in bulk (COPY of hands, their players and
their events, cloned from hands the engine played at random), then measures through Django's
test client, in this process: the My hands page and /api/hands/'s first page, one hand's page
(random hands), p50 and p99 in ms; and the bulk PokerStars export of 10,000 hands (the most
one zip holds) in hands per second. Each rate is printed beside pgbench's one-row UPDATE TPS
measured right after on the same PostgreSQL, as a ratio (machines here are noisy).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import time
from collections.abc import Sequence
from datetime import timedelta
from random import Random

from bench import ledger

ledger.LEDGER_DB = "room_bench_histories"  # never another bench's scratch database
ONE_ROW_UPDATE = (
    "\\set aid random(1, 100000 * :scale)\n"
    "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n"
)
TEMPLATES = 200  # distinct random hands, cloned round robin


def _template_hands(rng: Random) -> list:
    from poker.engine.hand import Hand as EngineHand
    from poker.engine.simulate import play_randomly, random_table

    games = [
        ("omaha", "pot-limit"),
        ("omaha8", "pot-limit"),
        ("omaha", "limit"),
        ("omaha8", "limit"),
    ]
    hands = []
    for k in range(TEMPLATES):
        game, structure = games[k % len(games)]
        start = random_table(
            rng, game=game, structure=structure, seats=6, button=k % 6 + 1, rake=True
        )
        hands.append(play_randomly(rng, EngineHand.start(**start)))
    return hands


def fill(hands: int, rng: Random) -> tuple[int, list[int]]:
    """The hero and their `hands` hands at four tables (one a game): (hero id, hand ids)."""
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone

    from poker.models import Table

    call_command("migrate", verbosity=0)
    users = [get_user_model().objects.create_user(username=f"hist-{k}") for k in range(6)]
    tables = {
        (game, structure): Table.objects.create(
            name=f"bench {game} {structure}",
            game=game,
            structure=structure,
            small_blind=50,
            big_blind=100,
            small_bet=100 if structure == "limit" else None,
            big_bet=200 if structure == "limit" else None,
        )
        for game, structure in [
            ("omaha", "pot-limit"),
            ("omaha8", "pot-limit"),
            ("omaha", "limit"),
            ("omaha8", "limit"),
        ]
    }
    templates = _template_hands(rng)
    now = timezone.now()
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('poker_hand', 'id'))")
        first = cursor.fetchone()[0] + 1
        cursor.execute(
            "SELECT setval(pg_get_serial_sequence('poker_hand', 'id'), %s)", [first + hands]
        )
    copy = connection.connection.cursor()
    hand_ids = list(range(first, first + hands))
    with copy.copy(
        "COPY poker_hand (id, table_id, number, status, deck, setup, state, turn, cancel_reason,"
        " result, started_at, ended_at) FROM STDIN"
    ) as out:
        for k, hand_id in enumerate(hand_ids):
            engine = templates[k % TEMPLATES]
            table = tables[(engine.game, engine.structure)]
            at = now - (hands - k) * timedelta(seconds=30)
            out.write_row((
                hand_id, table.pk, k + 1, "finished", json.dumps(engine.deck),
                json.dumps(engine.setup_without_deck), json.dumps(engine.snapshot()), 1, "",
                json.dumps(engine.result), at, at,
            ))  # fmt: skip
    with copy.copy(
        "COPY poker_handplayer (hand_id, seat, player_id, last_seq, net) FROM STDIN"
    ) as out:
        for k, hand_id in enumerate(hand_ids):
            nets = {e["seat"]: e["net"] for e in templates[k % TEMPLATES].result["seats"]}
            for seat in templates[k % TEMPLATES].seats:
                out.write_row((hand_id, seat, users[seat - 1].pk, 0, nets[seat]))
    with copy.copy(
        "COPY poker_handevent (hand_id, seq, kind, payload, created_at) FROM STDIN"
    ) as out:
        for k, hand_id in enumerate(hand_ids):
            for seq, event in enumerate(templates[k % TEMPLATES].events):
                out.write_row((hand_id, seq, event["type"], json.dumps(event), now))
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return users[0].pk, hand_ids


def timed(call, count: int) -> tuple[float, float]:
    """(p50, p99) in ms of `count` calls."""
    times = []
    for _ in range(count):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.99))]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 hands, fewer requests")
    parser.add_argument("--hands", type=int, default=None)
    parser.add_argument("--requests", type=int, default=None, help="per page measured")
    args = parser.parse_args(argv)
    hands = args.hands or (10_000 if args.quick else 100_000)
    requests = args.requests or (40 if args.quick else 200)
    server = ledger.Server.from_url(ledger.SERVER_URL)
    pgbench = ledger.find_pgbench()
    server.recreate(ledger.PGBENCH_DB)
    subprocess.run(
        [pgbench, "-i", "-q", "-h", server.host, "-p", str(server.port), "-U", server.user,
         ledger.PGBENCH_DB],
        capture_output=True, check=True,
    )  # fmt: skip
    server.recreate(ledger.LEDGER_DB)
    try:
        ledger.setup_django(server)
        from django.conf import settings
        from django.test import Client

        from histories.exports import hands_zip

        settings.ALLOWED_HOSTS = ["*"]
        rng = Random(13)
        started = time.perf_counter()
        hero_id, hand_ids = fill(hands, rng)
        print(f"filled {hands:,} hands in {time.perf_counter() - started:.1f} s", flush=True)
        from django.contrib.auth import get_user_model

        from poker.models import Table

        hero = get_user_model().objects.get(pk=hero_id)
        table_id = Table.objects.order_by("pk").first().pk
        client = Client()
        client.force_login(hero, backend="django.contrib.auth.backends.ModelBackend")

        def get(path: str):
            response = client.get(path)
            assert response.status_code == 200, (path, response.status_code)

        rows = [
            ("My hands page", lambda: get("/hands/")),
            ("My hands, won, one table", lambda: get(f"/hands/?result=won&table={table_id}")),
            ("/api/hands/ first page", lambda: get("/api/hands/")),
            ("one hand's page", lambda: get(f"/hands/{rng.choice(hand_ids)}/")),
        ]
        for name, call in rows:
            call()  # warm
            p50, p99 = timed(call, requests)
            peer = ledger.measure_pgbench(server, pgbench, 1, 2, script_text=ONE_ROW_UPDATE)
            print(
                f"{name:<28} p50 {p50:7.1f} ms  p99 {p99:7.1f} ms   "
                f"pgbench one-row {peer:8,.0f} tps   "
                f"ratio {1000 / p50 / peer:.4f} (pages/s at p50 over tps)",
                flush=True,
            )
        started = time.perf_counter()
        _, body, written = hands_zip(player=hero, fmt="pokerstars", since=None, until=None)
        elapsed = time.perf_counter() - started
        peer = ledger.measure_pgbench(server, pgbench, 1, 2, script_text=ONE_ROW_UPDATE)
        print(
            f"bulk PokerStars export       {written:,} hands in {elapsed:.1f} s: "
            f"{written / elapsed:,.0f} hands/s ({len(body) / 1e6:.1f} MB zipped)   "
            f"pgbench one-row {peer:,.0f} tps   ratio {written / elapsed / peer:.4f}",
            flush=True,
        )
        from django.db import connections

        connections.close_all()
    finally:
        server.drop(ledger.LEDGER_DB)
        server.drop(ledger.PGBENCH_DB)


if __name__ == "__main__":
    main()
