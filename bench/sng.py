"""Sit & Gos at once: how late the blinds rise when many Sit & Gos play on one machine.

Run with ``.venv/bin/python -m bench.sng`` (``--sngs 50 --seats 6 --level-seconds 10
--seconds 90``). Figures go to the "Sit & Gos at once" section of docs/benchmarks.md. The
Sit & Go pieces here (`sng_seed`, `sng_books_check`, `sng_fault_play`) are also the fault
run's at a Sit & Go (tests/tournaments/test_chaos.py, with bench/chaos.py's room and bots).

Method
------
1. **The room as in production, on a scratch database** (``room_sng``): bench/chaos.py's
   room (``--asgi`` daphne processes and one Celery worker, a prefork pool of
   ``--worker-concurrency`` processes as docs/operations.md runs it, with an embedded beat:
   the level timers and the ``tournaments.sweep_levels`` sweep every second), PostgreSQL and
   Redis (``--redis-url``, flushed).
2. **Sit & Gos through the services**, once the room is up: ``--sngs`` templates of
   pot-limit Omaha, ``--seats`` seats, 10,000 starting chips, each Sit & Go opened by
   `tournament_open`, its levels then made ``--level-seconds`` long (the template's minutes
   are whole, 1 to 120: the Sit & Go's own copy is written in fractions of a minute, which is
   all `tournament_level_up` reads), and every seat registered (`tournament_register`, the
   buy-in through the cashier; the players are made without a password, whose hashing cost
   a second of CPU each, and funded by `wallet_deposit`); the last registration starts it,
   which sets its first level clock (a `tournament.level` timer, config/timeouts.py). Every
   Sit & Go's last seat is registered after all the others', so they all start together.
   Tables get the fault run's fast settings (0.3 s between hands, 2 s to act, no time bank).
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
   queue with an ETA ``--level-seconds`` ahead (as far ahead as a level's timer is sent: one
   sent 2 s ahead, as a turn's is, measures the broker queue's backlog, which a level's
   timer, sent a level ahead, does not wait behind), under its own host name; its delay is
   the row's ``beat_at`` less the ETA. It is what the level change costs at least (Celery
   holding an ETA task and running it on a worker that also runs every turn's timer; the peer
   goes in the level timers' lane, ahead of the turns': config/timeouts.py); the
   ratio (level p99 over peer p99) is what the owner round trip and the table's queue add. A
   pgbench peer would measure PostgreSQL's throughput, not a timer's lateness.
6. **Cleanup**: every process is killed with its group; the scratch database is dropped.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
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
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_URL = os.environ.get("LOAD_PG_URL", "postgres://postgres@127.0.0.1:5432")
DB_NAME = os.environ.get("SNG_DB_NAME", "room_sng")
LOG_ROOT = Path(tempfile.gettempdir()) / "room-sng"
WALLET = 1_000_000  # cents per bot: one buy-in and far more
PEER_EVERY_SECONDS = 0.2

# Blinds that rise slowly against 10,000 chips, so most Sit & Gos outlast the run.
LEVELS = [
    (10, 20), (15, 30), (20, 40), (25, 50), (30, 60), (40, 80), (50, 100), (60, 120),
    (80, 160), (100, 200), (120, 240), (150, 300), (200, 400), (250, 500), (300, 600),
    (400, 800), (500, 1000), (600, 1200), (800, 1600), (1000, 2000),
]  # fmt: skip


# -- seeding and the books (these need Django; the play itself does not)


def sng_players(*, count: int, prefix: str, wallet: int = WALLET) -> list:
    """Bot players: no password (a bot logs in by its session; hashing one costs a good
    second of CPU), the address confirmed (a first deposit needs it), the wallet funded
    through the cashier."""
    from django.contrib.auth import get_user_model

    from accounts.services import email_mark_verified
    from cashier.services import wallet_deposit

    user_model = get_user_model()
    players = []
    for k in range(count):
        player = user_model(username=f"{prefix}-{k}", email=f"{prefix}-{k}@sng.test")
        player.set_unusable_password()
        player.save()
        email_mark_verified(user=player)
        wallet_deposit(player=player, amount=wallet, idempotency_key=f"sng-fund-{player.pk}")
        players.append(player)
    return players


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
    """`sngs` Sit & Gos started (every seat registered through `tournament_register`, so
    each is running), with levels of `level_seconds` and the fault run's fast table
    settings; for each, its table as a bench/load.py TableSeed, as a dict (the seats drawn;
    no buy-in: min and max 0). Every Sit & Go's last seat is registered after all the
    others, so they all start within a moment of one another (their first hands and first
    level clocks together), however long the rest took."""
    from bench.chaos import TABLE_SETTINGS
    from bench.load import BotSeed, TableSeed, session_key_for
    from poker.models import Seat, Table
    from tests.factories import make_sit_and_go_template
    from tournaments.models import Registration, Tournament
    from tournaments.services import tournament_open, tournament_register

    blinds = levels or LEVELS
    copy = [
        {"small_blind": small, "big_blind": big, "ante": 0, "minutes": level_seconds / 60}
        for small, big in blinds
    ]
    opened = []
    for k in range(1, sngs + 1):
        template = make_sit_and_go_template(
            name=f"{prefix} {k}",
            seats=seats,
            starting_chips=starting_chips,
            blind_levels=[
                {"small_blind": small, "big_blind": big, "ante": 0, "minutes": 1}
                for small, big in blinds
            ],
            is_active=False,  # no next Sit & Go of it opened when this one fills
        )
        sng = tournament_open(template=template)
        Tournament.objects.filter(pk=sng.pk).update(blind_levels=copy)
        players = sng_players(count=seats, prefix=f"{prefix}-{k}", wallet=wallet)
        for player in players[:-1]:
            tournament_register(player=player, tournament=sng, idempotency_key=f"sng-{player.pk}")
        opened.append((sng, players))
    for sng, players in opened:
        last = players[-1]
        tournament_register(player=last, tournament=sng, idempotency_key=f"sng-{last.pk}")
    seeds = []
    for sng, players in opened:
        sng.refresh_from_db()
        assert sng.status == "running" and sng.table_id is not None, sng.status
        # No time bank either: a turn lost with a killed process costs 2 s, not a minute.
        Table.objects.filter(pk=sng.table_id).update(**TABLE_SETTINGS, time_bank_seconds=0)
        Seat.objects.filter(table_id=sng.table_id).update(time_bank=0)
        drawn = dict(Registration.objects.filter(tournament=sng).values_list("player_id", "seat"))
        bots = [
            BotSeed(p.pk, p.username, session_key_for(p), drawn[p.pk])
            for p in sorted(players, key=lambda p: drawn[p.pk])
        ]
        seeds.append(asdict(TableSeed(sng.table_id, 0, 0, bots)))
    return seeds


@dataclass
class SngBooks:
    """What `sng_books_check` found; `problems` empty means the Sit & Gos lost nothing."""

    finished_sngs: int = 0
    hands: int = 0
    cancelled: int = 0
    running: int = 0
    cancel_codes: dict[str, int] = field(default_factory=dict)
    payouts: int = 0
    ledger_entries: int = 0
    problems: list[str] = field(default_factory=list)


def sng_books_check(*, table_ids: list[int], wallet: int = WALLET) -> SngBooks:
    """After Sit & Gos played out: each is finished with its prize pool paid exactly once (one
    payout entry, its postings the pool's whole and each place's prize, the pool at zero),
    its places complete (everyone placed, one winner, places shared only as ranks are);
    every hand over, numbered one after another and each dealt after the one before ended
    (nothing dealt twice), the stacks at each hand's start adding up to the starting chips of
    every entrant (no chip made or lost: the players out hold none), the winner holding them
    all; no tournament hand settled in money; every wallet what it was less the buy-in and
    fee plus the prize; `ledger_verify` clean (the tournaments' rules included)."""
    from cashier.verify import ledger_verify
    from poker.models import Hand, HandIncident
    from tournaments.models import Tournament

    books = SngBooks()
    problems = books.problems
    sngs = list(Tournament.objects.filter(table_id__in=table_ids).order_by("pk"))
    if len(sngs) != len(table_ids):
        problems.append(f"{len(sngs)} Sit & Gos play at the {len(table_ids)} tables")
    hands = Hand.objects.filter(table_id__in=table_ids)
    books.hands = hands.count()
    books.running = hands.filter(status=Hand.Status.RUNNING).count()
    books.cancelled = hands.filter(status=Hand.Status.CANCELLED).count()
    codes = HandIncident.objects.filter(table_id__in=table_ids).values_list("code", flat=True)
    for code in codes:
        books.cancel_codes[code] = books.cancel_codes.get(code, 0) + 1
    if books.running:
        problems.append(f"{books.running} hands still running")
    _no_money_at_the_tables(hands, table_ids, problems)
    for sng in sngs:
        if sng.status != Tournament.Status.FINISHED:
            problems.append(f"Sit & Go #{sng.pk} is {sng.status}, not finished")
            continue
        books.finished_sngs += 1
        books.payouts += _prizes_check(sng, wallet, problems)
        _hands_check(sng, hands.filter(table_id=sng.table_id), problems)
    report = ledger_verify()
    books.ledger_entries = report.entries
    problems += [f"ledger: {problem}" for problem in report.problems]
    return books


def _no_money_at_the_tables(hands, table_ids: list[int], problems: list[str]) -> None:
    """Tournament chips never touch the ledger: no hand settlement, no table stack, no rake."""
    from cashier.models import Account, Entry

    settled = Entry.objects.filter(
        reason=Entry.Reason.HAND_SETTLEMENT, hand_id__in=hands.values("pk")
    )
    if settled.exists():
        problems.append(f"{settled.count()} tournament hands were settled in money")
    accounts = Account.objects.filter(table_id__in=table_ids).exclude(balance=0)
    for account in accounts:
        problems.append(f"{account} holds {account.balance} cents at a Sit & Go's table")


def _prizes_check(sng, wallet: int, problems: list[str]) -> int:
    """One finished Sit & Go's money: one payout entry (its own), whose postings take the
    whole pool and give each place its prize, the pool at zero; every player placed, ranks
    as a ranking's (a shared place is the best of the places shared, the next place after
    it skips them); the prizes the pool's; each wallet less the buy-in and fee plus the
    prize. Returns how many payout entries it has."""
    from django.db.models import Sum

    from cashier.models import Account, Entry, Posting
    from tournaments.models import Registration

    name = f"Sit & Go #{sng.pk}"
    payouts = list(
        Entry.objects.filter(
            reason=Entry.Reason.TOURNAMENT_PAYOUT, tournament_id=sng.pk
        ).values_list("pk", flat=True)
    )
    if payouts != [sng.payout_entry_id]:
        problems.append(f"{name}: payout entries {payouts}, its own {sng.payout_entry_id}")
    pool = Account.objects.filter(kind=Account.Kind.TOURNAMENT_POOL, tournament_id=sng.pk)
    if (held := pool.aggregate(t=Sum("balance"))["t"] or 0) != 0:
        problems.append(f"{name}: its prize pool still holds {held}")
    entries = list(Registration.objects.filter(tournament=sng, status="active"))
    total = sum(r.buy_in for r in entries)
    places = sorted(r.place or 0 for r in entries)
    ranks = [1 + sum(other < place for other in places) for place in places]
    if len(entries) != sng.seats or places != ranks or places.count(1) != 1:
        problems.append(f"{name}: places {places} for {len(entries)} players")
    if sum(r.prize for r in entries) != total:
        problems.append(f"{name}: prizes {sum(r.prize for r in entries)} for a pool of {total}")
    legs = {
        (kind, owner): amount
        for kind, owner, amount in Posting.objects.filter(entry_id=sng.payout_entry_id).values_list(
            "account__kind", "account__owner_id", "amount"
        )
    }
    paid = {(Account.Kind.WALLET, r.player_id): r.prize for r in entries if r.prize}
    if legs != {(Account.Kind.TOURNAMENT_POOL, None): -total, **paid}:
        problems.append(f"{name}: its payout entry's postings {legs}, not the pool's {total}")
    for r in entries:
        balance = Account.objects.get(kind=Account.Kind.WALLET, owner_id=r.player_id).balance
        if balance != (want := wallet - r.buy_in - r.fee + r.prize):
            problems.append(f"{name}: player {r.player_id}'s wallet holds {balance}, not {want}")
    return len(payouts)


def _hands_check(sng, hands, problems: list[str]) -> None:
    """One finished Sit & Go's table: its hands numbered 1, 2, ... one after another, each
    dealt after the one before ended, each starting with every chip in play; the winner
    alone at the end, holding them all."""
    from poker.models import Seat
    from tournaments.models import Registration

    name = f"Sit & Go #{sng.pk}"
    chips = sng.starting_chips * sng.seats
    left = list(Seat.objects.filter(table_id=sng.table_id).values_list("player_id", "chips"))
    winner = (
        Registration.objects.filter(tournament=sng, place=1)
        .values_list("player_id", flat=True)
        .first()
    )
    if left != [(winner, chips)]:
        problems.append(f"{name}: seats left {left}, the winner {winner} with {chips}")
    played = list(hands.order_by("number").values_list("number", "started_at", "ended_at", "setup"))
    numbers = [number for number, *_rest in played]
    if numbers != list(range(1, len(numbers) + 1)):
        problems.append(f"{name}: hand numbers {numbers}, not one of each in order")
    for number, _start, _end, setup in played:
        if (stacks := sum(stack for _seat, stack in setup["seats"])) != chips:
            problems.append(f"{name}: hand {number} started with {stacks} chips, not {chips}")
    for (n1, _s1, end, _x), (n2, start, _e2, _y) in itertools.pairwise(played):
        if end is None or start < end:
            problems.append(f"{name}: hand {n2} was dealt before hand {n1} ended")


# -- the fault run at Sit & Gos (tests/tournaments/test_chaos.py)


async def sng_fault_play(spec) -> dict:
    """bench/chaos.py's room and bots at Sit & Gos (`spec.tournament`), in three steps, each
    waiting for conditions, never for a time: the bots play (deep stacks, a long first level:
    nobody goes out meanwhile) while the owner of each table in turn (`spec.min_kills`
    kills, the tables in order) gets SIGKILL the moment a hand runs there and a live
    process of the room holds its lease (`_owner_kill`); then every bot shoves, so each Sit
    & Go ends within a few hands; the run ends when none is running. Returns the figures
    (the books are checked afterwards, with Django: `sng_books_check`)."""
    import psycopg

    from bench.chaos import ChaosBot, Room, _note_overdue, log_tracebacks, room_close, seat_bots
    from bench.load import Stats

    rng = random.Random(spec.seed)
    room = Room(spec)
    stats = Stats(window=(0.0, float("inf")))
    bots: list[ChaosBot] = []
    overdue: list[str] = []
    kills: list[dict] = []
    table_ids = [t["table_id"] for t in spec.tables]
    result: dict = {"seed": spec.seed, "log_dir": spec.log_dir, "kills": kills}
    db = psycopg.connect(spec.database_url, autocommit=True)
    began = time.perf_counter()
    try:
        await asyncio.gather(*(room.start(name) for name in room.names))
        await seat_bots(spec, room, stats, rng, bots)
        result["start_seconds"] = round(time.perf_counter() - began, 1)
        deadline = time.monotonic() + spec.timeout
        for k in range(spec.min_kills):
            kill = await _owner_kill(db, room, rng, table_ids[k % len(table_ids)], deadline)
            kills.append(kill)
            print(f"kill -9 {kill}", flush=True)
            _note_overdue(db, spec, overdue)
        result["kills_seconds"] = round(time.perf_counter() - began, 1)
        for bot in bots:
            bot.shove = True
            if bot.mirror.shown and bot.ws is not None:
                bot.decide()
        result["over"] = await _until_over(db, spec, room, overdue, deadline)
        result["seconds"] = round(time.perf_counter() - began, 1)
    finally:
        room_close(bots, room, db)
    result["overdue"] = overdue
    result["bots"] = {
        "reconnects": sum(bot.reconnects for bot in bots),
        "closes": stats.closes,
        "errors": stats.errors,
    }
    result["log_tracebacks"] = log_tracebacks(spec.log_dir)
    return result


async def _owner_kill(db, room, rng: random.Random, table_id: int, deadline: float) -> dict:
    """Wait until a hand runs at the table and a live process of the room holds its lease,
    then SIGKILL that process (its group), start it again after a moment, and time how soon
    another process takes the lease (a later epoch) and moves the table (`resume_seconds`).
    `killed_at` is the database's clock just after the kill: the hand named was running then
    unless it ended later (the test checks its `ended_at`)."""
    from bench.chaos import _start_after

    while True:
        if time.monotonic() > deadline:
            raise RuntimeError(f"no hand with a live owner at table {table_id} in time")
        if dead := room.dead():
            raise RuntimeError(f"{dead} exited by themselves; logs in {room.log_dir}")
        pids = {proc.popen.pid: name for name, proc in room.live.items()}
        row = db.execute(
            "SELECT t.lease_owner, h.id, h.number FROM poker_table t JOIN poker_hand h"
            " ON h.table_id = t.id AND h.status = 'running' WHERE t.id = %s"
            " AND t.lease_owner LIKE 'owner|%%' AND t.lease_expires_at > now()",
            (table_id,),
        ).fetchone()
        pid = int(row[0].split("|")[1].rsplit(":", 1)[1]) if row else None
        if pid in pids:
            break
        await asyncio.sleep(0.05)
    _holder, hand_id, number = row
    name, at = pids[pid], time.perf_counter()
    room.kill(name)
    killed_at, version, epoch = db.execute(
        "SELECT now(), version, lease_epoch FROM poker_table WHERE id = %s", (table_id,)
    ).fetchone()
    restart = asyncio.create_task(_start_after(room, name, rng.uniform(*room.spec.down)))
    resume = None
    while time.perf_counter() - at < 60:
        moved = db.execute(
            "SELECT version > %s AND lease_epoch > %s FROM poker_table WHERE id = %s",
            (version, epoch, table_id),
        ).fetchone()[0]
        if moved:
            resume = round(time.perf_counter() - at, 2)
            break
        await asyncio.sleep(0.05)
    await restart
    stuck = None
    if resume is None:  # what the table shows, for the failure's message
        stuck = db.execute(
            "SELECT t.version, t.lease_epoch, t.lease_owner, t.lease_expires_at::text,"
            " h.id, h.turn, h.deadline::text, now()::text FROM poker_table t LEFT JOIN"
            " poker_hand h ON h.table_id = t.id AND h.status = 'running' WHERE t.id = %s",
            (table_id,),
        ).fetchone()
    return {
        "stuck": stuck,
        "process": name,
        "owner_of": table_id,
        "hand": hand_id,
        "hand_number": number,
        "killed_at": killed_at.isoformat(),
        "resume_seconds": resume,
        "down_seconds": round(time.perf_counter() - at, 2),
    }


async def _until_over(db, spec, room, overdue: list[str], deadline: float) -> bool:
    """Wait until no Sit & Go at the run's tables is running (noting overdue hands)."""
    from bench.chaos import _note_overdue

    table_ids = [t["table_id"] for t in spec.tables]
    while time.monotonic() < deadline:
        running = db.execute(
            "SELECT count(*) FROM tournaments_tournament WHERE table_id = ANY(%s)"
            " AND status = 'running'",
            (table_ids,),
        ).fetchone()[0]
        if not running:
            return True
        if dead := room.dead():
            raise RuntimeError(f"{dead} exited by themselves; logs in {room.log_dir}")
        _note_overdue(db, spec, overdue)
        await asyncio.sleep(0.2)
    return False


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


async def _peer_timers(
    app, queue: str, stop: asyncio.Event, sent: dict[str, float], ahead: float
) -> None:
    """An empty timer every PEER_EVERY_SECONDS, due `ahead` seconds later (a level's length:
    a level's timer is sent that long before it is due, so a backlog in the broker's queue
    shorter than that delays neither)."""
    k = 0
    while not stop.is_set():
        k += 1
        host = f"bench-peer-{k}"
        eta = time.time() + ahead
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

    from bench.chaos import ChaosBot, ChaosSpec, Room, room_close, seat_bots
    from bench.load import Stats, cpu_sample

    queue = f"room-sng-{os.getpid()}"
    spec = ChaosSpec(
        database_url=database_url, tables=[], log_dir=str(log_dir), asgi=args.asgi,
        queue=queue, env={**env, "LOG_LEVEL": "WARNING"}, tournament=True,
        worker_concurrency=args.worker_concurrency,
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
        cpu_before = cpu_sample(room.procs, "core")
        stop = asyncio.Event()
        peer = asyncio.create_task(_peer_timers(app, queue, stop, sent, args.level_seconds))
        spread = asyncio.create_task(_lease_spread(db, [t["table_id"] for t in seeds], stop))
        await asyncio.sleep(args.seconds)
        window_end = time.time()
        cpu_after = cpu_sample(room.procs, "core")
        stop.set()
        await peer
        leases = await spread
        await asyncio.sleep(args.level_seconds + 3)  # the last peers and level changes land
        figures = _figures(db, seeds, sent, window_start, window_end, seeded, stats)
        figures["leases"] = leases
        figures["cpu_share"] = _cpu_shares(cpu_before, cpu_after)
        return figures
    finally:
        room_close(bots, room, db)


async def _lease_spread(db, tables: list[int], stop: asyncio.Event) -> list[int]:
    """Every 2 s of the window, the Sit & Go tables' live leases by holder: the most any one
    process held at a time, sorted by holder (an owner per daphne: how evenly they share)."""
    most: dict[str, int] = {}
    while not stop.is_set():
        for holder, held in db.execute(
            "SELECT lease_owner, count(*) FROM poker_table WHERE id = ANY(%s)"
            " AND lease_expires_at > now() GROUP BY lease_owner",
            (tables,),
        ).fetchall():
            most[holder] = max(most.get(holder, 0), held)
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 2)
    return [most[holder] for holder in sorted(most)]


def _cpu_shares(before, after) -> dict[str, float]:
    """Each process's CPU over the window, in percent of one core, summed by name (each
    daphne, the worker with its beat, all of the machine's postgres processes, redis)."""
    wall = after.wall - before.wall
    shares: dict[str, float] = {}
    for pid, (name, seconds) in after.by_pid.items():
        name = "postgres" if name.startswith("postgres") else name
        used = seconds - before.by_pid.get(pid, (name, 0.0))[1]
        shares[name] = shares.get(name, 0.0) + 100 * used / wall
    return dict(sorted(shares.items()))


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
        f"leases, the most each process held at once: {result.get('leases')}; CPU in % of a "
        f"core: " + ", ".join(f"{k} {v:.0f}" for k, v in result.get("cpu_share", {}).items()),
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
        "--worker-concurrency", type=int, default=4,
        help="the Celery worker's prefork processes, as docs/operations.md runs it (0: solo)",
    )  # fmt: skip
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
    pool = f"prefork x{args.worker_concurrency}" if args.worker_concurrency else "solo"
    print(
        f"# {args.sngs} Sit & Gos x {args.seats} bots; levels of {args.level_seconds:g} s; "
        f"window {args.seconds:g} s after {args.warmup:g} s; {os.cpu_count()} cores; "
        f"{args.asgi} daphne, 1 celery worker ({pool}) with beat; logs in {log_dir}",
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
