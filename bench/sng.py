"""Sit & Gos at once: how late the blinds rise when many Sit & Gos play on one machine.

Run with ``.venv/bin/python -m bench.sng`` (``--sngs 50 --seats 6 --level-seconds 10
--seconds 90``). Figures go to the "Sit & Gos at once" section of docs/benchmarks.md.

Method
------
1. **The room as in production, on a scratch database** (``room_sng``): bench/chaos.py's
   room (``--asgi`` daphne processes and one Celery worker, solo pool, with an embedded beat:
   the level timers and the ``tournaments.sweep_levels`` sweep every second), PostgreSQL and
   Redis (``--redis-url``, flushed).
2. **Sit & Gos through the services**, once the room is up: ``--sngs`` templates of
   pot-limit Omaha, ``--seats`` seats, 10,000 starting chips, each Sit & Go opened by
   `tournament_open`, its levels then made ``--level-seconds`` long (the template's minutes
   are whole, 1 to 120: the Sit & Go's own copy is written in fractions of a minute, which is
   all `tournament_level_up` reads), and every seat registered (`tournament_register`, the
   buy-in through the cashier); the last registration starts it, which sets its first level
   clock (a `tournament.level` timer, config/timeouts.py). Tables get the fault run's fast
   settings (0.3 s between hands).
3. **Bots**: bench/chaos.py's, one per seat over real WebSockets, spread over the daphnes;
   at a Sit & Go they only act (bench/load.py's random policy, at once).
4. **A level change's delay**: for level L >= 2, the moment it took effect (the
   ``tournament.level`` audit record's time: `tournament_level_up` at the table's owner, under
   the table's lock, after the timer went through Celery and the channel layer to the owner
   and waited its turn behind the table's actions) less the moment it was due (level L-1's
   start plus its length: the ``next_level_at`` the previous change set). Only changes due
   inside the window count (after ``--warmup``): a level due while the bots connected
   measures the start, not the room. hands/s: hands ended at the Sit & Gos' tables inside
   the window.
5. **Peer: an empty timer on the same worker**, in the same window: every 0.2 s the bench
   sends ``lobby.record_worker_heartbeat`` (one row's update) through the same broker and
   queue with an ETA 2 s ahead, under its own host name; its delay is the row's ``beat_at``
   less the ETA. It is what the level change costs at least (Celery holding an ETA task and
   running it on a worker that also runs every turn's timer); the ratio (level p99 over peer
   p99) is what the owner round trip and the table's queue add. A pgbench peer would measure
   PostgreSQL's throughput, not a timer's lateness.
6. **Cleanup**: every process is killed with its group; the scratch database is dropped.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_URL = os.environ.get("LOAD_PG_URL", "postgres://postgres@127.0.0.1:5432")
DB_NAME = "room_sng"
LOG_ROOT = Path(tempfile.gettempdir()) / "room-sng"
WALLET = 1_000_000  # cents per bot: one buy-in and far more
PEER_EVERY_SECONDS = 0.2
PEER_AHEAD_SECONDS = 2.0

# Blinds that rise slowly against 10,000 chips, so most Sit & Gos outlast the run.
LEVELS = [
    (10, 20), (15, 30), (20, 40), (25, 50), (30, 60), (40, 80), (50, 100), (60, 120),
    (80, 160), (100, 200), (120, 240), (150, 300), (200, 400), (250, 500), (300, 600),
    (400, 800), (500, 1000), (600, 1200), (800, 1600), (1000, 2000),
]  # fmt: skip


# -- seeding and the books (these need Django; the play itself does not)


def sng_seed(
    *,
    sngs: int,
    seats: int,
    prefix: str,
    level_seconds: float,
    starting_chips: int = 10_000,
    levels: list[tuple[int, int]] | None = None,
    wallet: int = WALLET,
) -> list[dict]:
    """`sngs` Sit & Gos started (every seat registered, so each is running), with levels of
    `level_seconds` and the fault run's fast table settings; for each, its table as a
    bench/load.py TableSeed, as a dict (the seats drawn; no buy-in: min and max 0)."""
    from bench.chaos import TABLE_SETTINGS
    from bench.load import BotSeed, TableSeed, session_key_for
    from poker.models import Table
    from tests.factories import make_funded_player, make_sit_and_go_template
    from tournaments.models import Registration, Tournament
    from tournaments.services import tournament_open, tournament_register

    blinds = levels or LEVELS
    copy = [
        {"small_blind": small, "big_blind": big, "ante": 0, "minutes": level_seconds / 60}
        for small, big in blinds
    ]
    seeds = []
    for k in range(1, sngs + 1):
        template = make_sit_and_go_template(
            name=f"{prefix} {k}",
            seats=seats,
            starting_chips=starting_chips,
            blind_levels=[
                {"small_blind": small, "big_blind": big, "ante": 0, "minutes": 1}
                for small, big in blinds
            ],
        )
        sng = tournament_open(template=template)
        Tournament.objects.filter(pk=sng.pk).update(blind_levels=copy)
        players = [make_funded_player(f"{prefix}-{k}-{s}", cents=wallet) for s in range(seats)]
        for player in players:
            tournament_register(player=player, tournament=sng, idempotency_key=f"sng-{player.pk}")
        sng.refresh_from_db()
        assert sng.status == "running" and sng.table_id is not None, sng.status
        Table.objects.filter(pk=sng.table_id).update(**TABLE_SETTINGS)
        drawn = dict(Registration.objects.filter(tournament=sng).values_list("player_id", "seat"))
        bots = [
            BotSeed(p.pk, p.username, session_key_for(p), drawn[p.pk])
            for p in sorted(players, key=lambda p: drawn[p.pk])
        ]
        seeds.append(asdict(TableSeed(sng.table_id, 0, 0, bots)))
    return seeds


# -- the bench


def level_delays(rows: list[tuple[int, int, datetime]], starts: dict[int, datetime],
                 lengths: dict[int, list[float]]) -> list[tuple[datetime, float]]:  # fmt: skip
    """(when due, seconds late) of each level change from (tournament, level, took effect)
    rows: level L was due at level L-1's start plus its length (level 1 starts with the
    Sit & Go)."""
    began: dict[tuple[int, int], datetime] = {(t, 1): start for t, start in starts.items()}
    for tournament, level, at in rows:
        began[(tournament, level)] = at
    delays = []
    for tournament, level, at in sorted(rows):
        before = began.get((tournament, level - 1))
        if level < 2 or before is None:
            continue
        due = before + timedelta(seconds=lengths[tournament][level - 2])
        delays.append((due, (at - due).total_seconds()))
    return delays


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


async def _peer_timers(app, queue: str, stop: asyncio.Event, sent: dict[str, float]) -> None:
    """An empty timer every PEER_EVERY_SECONDS, due PEER_AHEAD_SECONDS later."""
    k = 0
    while not stop.is_set():
        k += 1
        host = f"bench-peer-{k}"
        eta = time.time() + PEER_AHEAD_SECONDS
        app.send_task(
            "lobby.record_worker_heartbeat",
            kwargs={"hostname": host},
            eta=datetime.fromtimestamp(eta, UTC),
            queue=queue,
        )
        sent[host] = eta
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), PEER_EVERY_SECONDS)


async def sng_bench(args, database_url: str, env: dict[str, str], log_dir: Path) -> dict:
    import psycopg
    from celery import Celery

    from bench.chaos import ChaosBot, ChaosSpec, Room, seat_bots
    from bench.load import Stats

    queue = f"room-sng-{os.getpid()}"
    spec = ChaosSpec(
        database_url=database_url, tables=[], log_dir=str(log_dir), asgi=args.asgi,
        queue=queue, env={**env, "LOG_LEVEL": "WARNING"}, tournament=True,
    )  # fmt: skip
    room = Room(spec)
    stats = Stats(window=(0.0, float("inf")))
    bots: list[ChaosBot] = []
    rng = random.Random(args.seed)
    app = Celery(broker=env["REDIS_URL"])
    db = psycopg.connect(database_url, autocommit=True)
    sent: dict[str, float] = {}
    try:
        await asyncio.gather(*(room.start(name) for name in room.names))
        seeds_path = log_dir / "seeds.json"
        began = time.perf_counter()
        _django_child(
            ["--seed-only", str(args.sngs), str(args.seats), str(args.level_seconds),
             str(seeds_path)],
            {**env, "CELERY_QUEUE": queue}, log_dir / "seed.log",
        )  # fmt: skip
        seeded = time.perf_counter() - began
        seeds = json.loads(seeds_path.read_text())
        spec.tables = seeds
        await seat_bots(spec, room, stats, rng, bots)
        await asyncio.sleep(args.warmup)
        window_start = time.time()
        stop = asyncio.Event()
        peer = asyncio.create_task(_peer_timers(app, queue, stop, sent))
        await asyncio.sleep(args.seconds)
        window_end = time.time()
        stop.set()
        await peer
        await asyncio.sleep(PEER_AHEAD_SECONDS + 3)  # the last peers and level changes land
        return _figures(db, seeds, sent, window_start, window_end, seeded, stats)
    finally:
        for bot in bots:
            bot.closed = True
            bot.drop()
        room.stop_all()
        db.close()


def _figures(db, seeds, sent, window_start, window_end, seeded, stats) -> dict:
    tables = [t["table_id"] for t in seeds]
    ids = [t for (t,) in db.execute(
        "SELECT id FROM tournaments_tournament WHERE table_id = ANY(%s)", (tables,)
    ).fetchall()]  # fmt: skip
    starts = dict(db.execute(
        "SELECT id, started_at FROM tournaments_tournament WHERE id = ANY(%s)", (ids,)
    ).fetchall())  # fmt: skip
    lengths = {
        t: [level["minutes"] * 60 for level in levels]
        for t, levels in db.execute(
            "SELECT id, blind_levels FROM tournaments_tournament WHERE id = ANY(%s)", (ids,)
        ).fetchall()
    }
    rows = [
        (int(payload["tournament"]), int(payload["level"]), at)
        for payload, at in db.execute(
            "SELECT payload, created_at FROM audit_auditrecord WHERE action = 'tournament.level'"
            " AND (payload->>'tournament')::bigint = ANY(%s)",
            (ids,),
        ).fetchall()
    ]
    start = datetime.fromtimestamp(window_start, UTC)
    end = datetime.fromtimestamp(window_end, UTC)
    delays = [late for due, late in level_delays(rows, starts, lengths) if start <= due < end]
    beats = dict(db.execute(
        "SELECT hostname, beat_at FROM lobby_workerheartbeat WHERE hostname LIKE 'bench-peer-%%'"
    ).fetchall())  # fmt: skip
    peers = [beats[h].timestamp() - eta for h, eta in sent.items() if h in beats]
    hands = db.execute(
        "SELECT count(*) FROM poker_hand WHERE table_id = ANY(%s) AND ended_at >= %s"
        " AND ended_at < %s",
        (tables, start, end),
    ).fetchone()[0]
    running = db.execute(
        "SELECT count(*) FROM tournaments_tournament WHERE id = ANY(%s) AND status = 'running'",
        (ids,),
    ).fetchone()[0]
    return {
        "levels": delays,
        "peers": peers,
        "peers_sent": len(sent),
        "hands": hands,
        "seconds": window_end - window_start,
        "running_at_end": running,
        "sngs": len(ids),
        "seed_seconds": seeded,
        "bot_errors": stats.errors,
        "closes": stats.closes,
    }


def report_lines(result: dict, args) -> list[str]:
    levels, peers = result["levels"], result["peers"]

    def ms(values, q):
        return percentile(values, q) * 1000

    level_p99, peer_p99 = ms(levels, 0.99), ms(peers, 0.99)
    return [
        f"level change delay  n={len(levels):4d}  p50 {ms(levels, 0.5):7.0f} ms  p99 "
        f"{level_p99:7.0f} ms  max {max(levels, default=0) * 1000:7.0f} ms",
        f"empty timer (peer)  n={len(peers):4d}  p50 {ms(peers, 0.5):7.0f} ms  p99 "
        f"{peer_p99:7.0f} ms  max {max(peers, default=0) * 1000:7.0f} ms  "
        f"({len(peers)} of {result['peers_sent']} ran)",
        f"ratio level p99 / peer p99 {level_p99 / peer_p99:.2f}"
        if peer_p99 > 0
        else "ratio: no peer",
        f"hands {result['hands']} in {result['seconds']:.0f} s: "
        f"{result['hands'] / result['seconds']:.1f} hands/s over {result['sngs']} Sit & Gos "
        f"({result['running_at_end']} still running at the end)",
        f"seeding {result['seed_seconds']:.0f} s; bot errors {result['bot_errors'] or 0}; "
        f"closes {result['closes'] or 0}; levels of {args.level_seconds:g} s, median level "
        f"delay {statistics.median(levels) * 1000 if levels else float('nan'):.0f} ms",
    ]


def _django_child(argv: list[str], env: dict[str, str], log: Path) -> None:
    with open(log, "w") as out:
        subprocess.run(
            [sys.executable, "-m", "bench.sng", *argv],
            cwd=ROOT,
            env={**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", **env,
                 "PYTHONPATH": str(ROOT)},
            stdout=out, stderr=subprocess.STDOUT, check=True,
        )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--sngs", type=int, default=50)
    parser.add_argument("--seats", type=int, default=6, choices=[2, 6, 9])
    parser.add_argument("--level-seconds", type=float, default=10.0)
    parser.add_argument("--seconds", type=float, default=90.0, help="the measured window")
    parser.add_argument("--warmup", type=float, default=10.0)
    parser.add_argument("--asgi", type=int, default=2, help="daphne processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--redis-url", default=os.environ.get("SNG_REDIS_URL", "redis://127.0.0.1:6379/7")
    )
    parser.add_argument("--seed-only", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so `finally` stops the room
    if args.seed_only:
        import django

        django.setup()
        sngs, seats, seconds, out = args.seed_only
        seeds = sng_seed(sngs=int(sngs), seats=int(seats), prefix="sng",
                         level_seconds=float(seconds))  # fmt: skip
        Path(out).write_text(json.dumps(seeds))
        return 0
    from bench.chaos import _room_env
    from bench.load import migrate, pg_admin

    log_dir = LOG_ROOT / time.strftime("%Y%m%d-%H%M%S")
    log_dir.mkdir(parents=True, exist_ok=True)
    database_url = f"{PG_URL}/{DB_NAME}"
    env = _room_env(database_url, args.redis_url)
    print(
        f"# {args.sngs} Sit & Gos x {args.seats} bots; levels of {args.level_seconds:g} s; "
        f"window {args.seconds:g} s after {args.warmup:g} s; {os.cpu_count()} cores; "
        f"{args.asgi} daphne, 1 celery worker (solo) with beat; logs in {log_dir}",
        flush=True,
    )
    try:
        pg_admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)", f"CREATE DATABASE {DB_NAME}")
        import redis

        redis.Redis.from_url(args.redis_url).flushdb()
        migrate(database_url, log_dir / "migrate.log")
        result = asyncio.run(sng_bench(args, database_url, env, log_dir))
    finally:
        with suppress(Exception):
            pg_admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
    print("\n".join(report_lines(result, args)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
