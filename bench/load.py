"""Live tables under load: bots over real WebSockets against the production setup.

Run with ``.venv/bin/python -m bench.load`` (``--tables N --seconds S --layer core|pubsub|both``,
``--repeat R`` to alternate the layers R times and print medians, ``--think-ms T`` for bots that
wait before acting, ``--find-max`` to search for the most tables with p99 under 100 ms). Figures
go to the "Live tables under load" section of docs/benchmarks.md.

Method
------
1. **Production processes.** A scratch PostgreSQL database (``room_load``) is migrated once into
   a template (``room_load_tpl``); every run copies it afresh, so runs never see each other's
   seats or hands. The run then starts, as separate process groups with the environment of
   docs/operations.md (DEBUG off, a 64-character SECRET_KEY, one Redis database, DB 5 or
   ``LOAD_REDIS_URL``, for the channel layer and the Celery broker, the chosen
   ``CHANNEL_LAYER_BACKEND``): ``--asgi`` daphne
   processes on consecutive ports, one Celery worker and Celery beat. ``--owners M`` (default:
   all of them) runs table owners in the first M daphnes only; the others route their sockets'
   commands to the owners (``POKER_OWNER_RUN=false``, poker/owner.py). After the window each
   daphne's ``/healthz`` tells its role, the leases it renews and the commands it ran, sent
   and served, and the tables' leases are counted by holder.
2. **Seeding through the services.** N 6-max pot-limit Omaha tables ($0.50/$1, 5 s to act,
   ``next_hand_delay_seconds`` 0.2) and six bot users per table, each funded with
   ``cashier.services.wallet_deposit``; each bot gets a real session (``SessionStore``, as the
   login view makes) and connects with its ``sessionid`` cookie. Bots of one table are spread
   over the ASGI processes, so every broadcast crosses the channel layer between processes.
3. **Bots** are asyncio WebSocket clients (autobahn's asyncio client: daphne already depends on
   it, so nothing is added). Each sits with a 100 BB buy-in through the ``sit`` frame, and when
   ``state.hand.to_act`` is its seat it acts at once (no think time unless ``--think-ms``) with
   ``poker.engine.simulate.random_decision`` on its ``legal_actions`` (the policy of
   bench/engine.py), sending the hand's ``turn`` and an incrementing ``seq``. Between hands a
   short or busted bot tops up to the maximum (re-buys if it was removed); a bot sat out is sat
   back in.
4. **Latency** of an action: from just before its frame is written to the moment the *last* of
   the table's six connected players has received an update that shows the hand past that turn
   (a later turn of the same hand, a later hand, or the hand's result). This is what a player
   waits for before the next player can act, and it includes the bot process's own receive
   work. p50/p95/p99 are over the actions sent inside the measured window (after a warm-up).
   Actions/s counts actions whose result reached every player; hands/s counts hands whose result
   was seen, inside the window.
5. **Peer: pgbench** on the same PostgreSQL, for the same duration, with a custom script of one
   transaction updating one row (``pgbench_accounts``, scale 1, random row), ``--pgbench-clients``
   clients; we print our actions/s divided by its TPS. It runs right after each load run, not
   during it.
6. **Where the time goes.** CPU seconds of each process group (ASGI, Celery worker, beat, the
   bots, and the machine's postgres and redis-server processes) are read from /proc at the start
   and end of the window and shown as percent of one core; PostgreSQL sessions waiting on locks
   are sampled twice a second. ``--find-max`` doubles then bisects the table count until p99
   passes 100 ms, and prints these figures for each step, which is how the limit is named.
7. **Cleanup.** Every process is started in its own session (process group) and killed with its
   group in a ``finally`` (SIGTERM, then SIGKILL), also on Ctrl-C and errors. Logs stay in
   ``/tmp/room-load/<run>/`` and errors found in them are counted in the output.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path

from bench.mirror import GAP_WAIT_SECONDS

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent
PG_URL = os.environ.get("LOAD_PG_URL", "postgres://postgres@127.0.0.1:5432")
# LOAD_DB_NAME and LOAD_BASE_PORT let two runs share a machine (each its databases and ports).
DB_NAME = os.environ.get("LOAD_DB_NAME", "room_load")
TEMPLATE_DB = f"{DB_NAME}_tpl"
PGBENCH_DB = f"{DB_NAME}_pgbench"
# One Redis database for the channel layer and the broker (their keys do not overlap); the run
# flushes it, so pick one nothing else uses.
REDIS_CHANNELS = REDIS_BROKER = os.environ.get("LOAD_REDIS_URL", "redis://127.0.0.1:6379/5")
LAYERS = {
    "core": "channels_redis.core.RedisChannelLayer",
    "pubsub": "channels_redis.pubsub.RedisPubSubChannelLayer",
}
LOG_ROOT = Path(tempfile.gettempdir()) / "room-load"
SEATS = 6
SMALL_BLIND, BIG_BLIND = 50, 100
WALLET = 10_000_000  # cents: enough for every re-buy of a long run
P99_LIMIT_MS = 100.0
CLK_TCK = os.sysconf("SC_CLK_TCK")


@dataclass
class Options:
    tables: int = 4
    seconds: float = 30.0
    warmup: float = 5.0
    layer: str = "core"
    asgi: int = 2
    owners: int | None = None  # daphnes running table owners (None: all), the rest route
    celery_concurrency: int = 2
    think_ms: float = 0.0
    profile: bool = False  # py-spy on each ASGI process during the window
    pgbench_clients: int = 4
    base_port: int = int(os.environ.get("LOAD_BASE_PORT", "18700"))


# -- the environment every process of a run shares


EMBEDDED = "embedded"  # the `layer` of `make run`'s room: one process, its own PostgreSQL


def embedded_data_dir() -> Path:
    return LOG_ROOT / f"pgdata-{DB_NAME}"


def room_env(layer: str) -> dict[str, str]:
    if layer == EMBEDDED:
        return embedded_env()
    env = dict(os.environ)
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=f"{PG_URL}/{DB_NAME}",
        REDIS_URL=REDIS_CHANNELS,
        CELERY_BROKER_URL=REDIS_BROKER,
        CELERY_RESULT_BACKEND=REDIS_BROKER,
        CELERY_QUEUE="room-load",
        CHANNEL_LAYER_BACKEND=LAYERS[layer],
        SECRET_KEY=SECRET_KEY,
        DEBUG="false",
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        SESSION_COOKIE_SECURE="false",
        CSRF_COOKIE_SECURE="false",
        ALLOWED_HOSTS="*",
        LOG_LEVEL="WARNING",
        # The core, not the page's pause for a showdown to be read before the next hand.
        POKER_SHOWDOWN_PAUSE_SCALE="0",
        PYTHONUNBUFFERED="1",
        # This checkout's code even when run from another worktree (the editable install
        # points at the main one).
        PYTHONPATH=str(ROOT),
    )
    return env


def embedded_env() -> dict[str, str]:
    """The embedded room's environment: no DATABASE_URL and no REDIS_URL (its own PostgreSQL
    server on a scratch data folder, the in-memory layer and broker), the rest as above."""
    env = room_env("core")
    for name in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND"):
        env.pop(name)
    return env | {"EMBEDDED_PGDATA": str(embedded_data_dir())}


SECRET_KEY = secrets.token_urlsafe(48)


# -- PostgreSQL and Redis scratch state


def pg_admin(*statements: str) -> None:
    import psycopg

    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        for statement in statements:
            conn.execute(statement)


def prepare_template(log_dir: Path) -> None:
    """Migrate the schema once; each run then copies it (CREATE DATABASE ... TEMPLATE)."""
    pg_admin(
        f"DROP DATABASE IF EXISTS {TEMPLATE_DB} WITH (FORCE)", f"CREATE DATABASE {TEMPLATE_DB}"
    )
    migrate(f"{PG_URL}/{TEMPLATE_DB}", log_dir / "migrate.log")


def migrate(database_url: str | None, log_path: Path) -> None:
    """Migrate the database at `database_url`, or the embedded room's (None)."""
    env = (
        embedded_env()
        if database_url is None
        else room_env("core") | {"DATABASE_URL": database_url}
    )
    with open(log_path, "w") as log:
        subprocess.run(
            [sys.executable, "manage.py", "migrate", "--noinput"],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            check=True,
        )


def fresh_database(layer: str) -> None:
    if layer == EMBEDDED:
        import shutil

        shutil.rmtree(embedded_data_dir(), ignore_errors=True)
        return
    pg_admin(
        f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)",
        f"CREATE DATABASE {DB_NAME} TEMPLATE {TEMPLATE_DB}",
    )
    import redis

    for url in {REDIS_CHANNELS, REDIS_BROKER}:
        redis.Redis.from_url(url).flushdb()


@dataclass
class BotSeed:
    user_id: int
    username: str
    session_key: str
    seat: int


@dataclass
class TableSeed:
    table_id: int
    min_buy_in: int
    max_buy_in: int
    bots: list[BotSeed]


def seed(tables: int) -> list[TableSeed]:
    """Tables, bot users with funded wallets (cashier service) and logged-in sessions."""
    from django.contrib.auth import get_user_model

    from accounts.services import email_mark_verified
    from cashier.services import wallet_deposit
    from poker.models import Table

    user_model = get_user_model()
    seeds = []
    for t in range(tables):
        table = Table.objects.create(
            name=f"Load {t + 1}",
            game=Table.Game.OMAHA,
            structure=Table.Structure.POT_LIMIT,
            small_blind=SMALL_BLIND,
            big_blind=BIG_BLIND,
            max_seats=SEATS,
            action_seconds=5,
            countdown_seconds=3,
            disconnect_grace_seconds=5,
            next_hand_delay_seconds=0.2,
        )
        bots = []
        for s in range(1, SEATS + 1):
            user = user_model(username=f"bot-{t + 1}-{s}", email=f"bot-{t + 1}-{s}@load.test")
            user.set_unusable_password()
            user.save()
            email_mark_verified(user=user)  # a first deposit needs a confirmed address
            wallet_deposit(player=user, amount=WALLET, idempotency_key=f"load-{user.pk}")
            bots.append(BotSeed(user.pk, user.username, session_key_for(user), s))
        seeds.append(TableSeed(table.pk, table.min_buy_in, table.max_buy_in, bots))
    return seeds


def session_key_for(user) -> str:
    """A logged-in session for `user`, as the login view makes it; its key is the cookie."""
    from django.contrib.auth import BACKEND_SESSION_KEY, HASH_SESSION_KEY, SESSION_KEY
    from django.contrib.sessions.backends.db import SessionStore

    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def seed_in_child(tables: int, log_dir: Path, layer: str) -> list[TableSeed]:
    """Seed in a child: the daphne app pins txaio to Twisted, and our bots need asyncio."""
    out = log_dir / "seed.json"
    with open(log_dir / "seed.log", "w") as log:
        subprocess.run(
            [sys.executable, "-m", "bench.load", "--seed-only", str(tables), str(out)],
            cwd=ROOT, env=room_env(layer), stdout=log, stderr=subprocess.STDOUT, check=True,
        )  # fmt: skip
    return [
        TableSeed(**{**t, "bots": [BotSeed(**b) for b in t["bots"]]})
        for t in json.loads(out.read_text())
    ]


# -- processes: each in its own process group, all killed in `finally`


@dataclass
class Proc:
    role: str
    name: str
    popen: subprocess.Popen
    log: Path


class Processes:
    def __init__(self, log_dir: Path) -> None:
        self.log_dir = log_dir
        self.procs: list[Proc] = []

    def start(self, role: str, name: str, argv: list[str], env: dict[str, str]) -> Proc:
        log = self.log_dir / f"{name}.log"
        with open(log, "w") as out:
            popen = subprocess.Popen(
                argv, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL, start_new_session=True,
            )  # fmt: skip
        proc = Proc(role, name, popen, log)
        self.procs.append(proc)
        return proc

    def check_alive(self) -> None:
        for proc in self.procs:
            if proc.popen.poll() is not None:
                tail = proc.log.read_text(errors="replace")[-3000:]
                raise RuntimeError(f"{proc.name} exited with {proc.popen.returncode}:\n{tail}")

    def stop_all(self) -> None:
        # A second Ctrl-C must not cut the cleanup short and leave servers behind.
        previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            self._stop_all()
        finally:
            signal.signal(signal.SIGINT, previous)

    def _stop_all(self) -> None:
        for proc in self.procs:
            # The leader only: a Celery worker then stops its own pool (warm shutdown).
            with suppress(ProcessLookupError):
                proc.popen.terminate()
        deadline = time.monotonic() + 10
        for proc in self.procs:
            with suppress(subprocess.TimeoutExpired):
                proc.popen.wait(max(0.1, deadline - time.monotonic()))
        for proc in self.procs:
            # The group too: prefork pool children outlive a killed parent otherwise.
            with suppress(ProcessLookupError):
                os.killpg(proc.popen.pid, signal.SIGKILL)
            with suppress(subprocess.TimeoutExpired):
                proc.popen.wait(5)
        self.procs.clear()


def wait_for_port(port: int, procs: Processes, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        procs.check_alive()
        with suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return
        time.sleep(0.2)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


def wait_for_log(proc: Proc, needle: str, procs: Processes, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        procs.check_alive()
        if needle in proc.log.read_text(errors="replace"):
            return
        time.sleep(0.2)
    raise RuntimeError(f"{proc.name} did not log {needle!r} within {timeout} s")


def wait_for_worker(name: str, env: dict[str, str], procs: Processes, timeout=60) -> None:
    """The worker answers a broadcast ping once it consumes (it logs "ready" only at INFO)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        procs.check_alive()
        answer = subprocess.run(
            [str(VENV_BIN / "celery"), "-A", "config", "inspect", "ping", "-d", name, "-t", "1"],
            cwd=ROOT, env=env, capture_output=True, text=True,
        )  # fmt: skip
        if answer.returncode == 0 and "pong" in answer.stdout:
            return
    raise RuntimeError(f"celery worker {name} did not answer a ping within {timeout} s")


def start_room(procs: Processes, options: Options, log_dir: Path) -> list[int]:
    if options.layer == EMBEDDED:
        return start_embedded_room(procs, options)
    env = room_env(options.layer)
    ports = [options.base_port + i for i in range(options.asgi)]
    owners = options.asgi if options.owners is None else options.owners
    for i, port in enumerate(ports):
        runs_owner = "true" if i < owners else "false"
        procs.start(
            "asgi", f"daphne-{i + 1}",
            # A handshake may wait 30 s, not daphne's 5: the last bots connect while the
            # first tables already play at full speed, and on a busy machine their snapshot
            # can take longer than 5 s to be read.
            [str(VENV_BIN / "daphne"), "-b", "127.0.0.1", "-p", str(port), "-v", "1",
             "--websocket_connect_timeout", "30", "bench.dbcount:application"],
            env | {"LOAD_COUNT_ROLE": "asgi", "POKER_OWNER_RUN": runs_owner},
        )  # fmt: skip
    worker_name = f"load-{os.getpid()}@{socket.gethostname()}"
    procs.start(
        "celery", "celery-worker",
        [str(VENV_BIN / "celery"), "-A", "bench.dbcount", "worker", "--loglevel", "WARNING",
         "--queues", "room-load", "--concurrency", str(options.celery_concurrency),
         "--hostname", worker_name, "--without-gossip", "--without-mingle"],
        env | {"LOAD_COUNT_ROLE": "celery"},
    )  # fmt: skip
    procs.start(
        "beat", "celery-beat",
        [str(VENV_BIN / "celery"), "-A", "config", "beat", "--loglevel", "WARNING",
         "--schedule", str(log_dir / "beat-schedule")],
        env,
    )  # fmt: skip
    for port in ports:
        wait_for_port(port, procs)
    wait_for_worker(worker_name, env, procs)
    return ports


def start_embedded_room(procs: Processes, options: Options) -> list[int]:
    """`manage.py runroom` as `make run` serves it (already migrated and seeded here): web,
    sockets, the owner, the worker and beat in one process, on its own PostgreSQL server."""
    port = options.base_port
    procs.start(
        "asgi", "runroom",
        [sys.executable, "manage.py", "runroom", "--no-setup", f"127.0.0.1:{port}"],
        embedded_env(),
    )  # fmt: skip
    wait_for_port(port, procs)
    return [port]


# -- CPU accounting from /proc


def _stat_fields(pid: int) -> list[str] | None:
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return raw[raw.rindex(")") + 2 :].split()


ROLES = ("asgi", "celery", "beat", "bots", "postgres", "redis")


def cpu_sample(procs: Processes) -> dict[int, tuple[str, float]]:
    """{pid: (role, CPU seconds so far)} for our process groups, the bots (this process), and
    the machine's postgres and redis-server processes."""
    groups = {proc.popen.pid: proc.role for proc in procs.procs}
    me = os.getpid()
    sample = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        fields = _stat_fields(pid)
        if fields is None:
            continue
        seconds = (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime
        pgrp = int(fields[2])
        role = None
        comm = ""
        with suppress(OSError):
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
        if pid == me:
            role = "bots"
        elif comm in ("postgres", "postmaster"):
            role = "postgres"  # the embedded room's server too, started in its process group
        elif pgrp in groups:
            role = groups[pgrp]
        elif comm.startswith("redis-server"):
            role = "redis"
        if role:
            sample[pid] = (role, seconds)
    return sample


def cpu_by_role(before: dict, after: dict, seconds: float) -> dict[str, float]:
    """Percent of one core per role between two samples (a process that ended in between is
    not counted; one that started is counted whole)."""
    used = dict.fromkeys(ROLES, 0.0)
    for pid, (role, total) in after.items():
        start = before.get(pid, (role, 0.0))[1]
        used[role] += max(0.0, total - start)
    return {role: 100 * value / seconds for role, value in used.items()}


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    parts = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = parts[3] + parts[4]
    return sum(parts) - idle, sum(parts)


# -- the WebSocket client (autobahn's asyncio protocol, callbacks into the bot)


def client_factory(url: str, origin: str, cookie: str, bot: Bot):
    """An autobahn asyncio client factory whose protocol hands frames to `bot`.

    Imported here, not at the top: importing autobahn.asyncio pins txaio to asyncio, and the
    seeding child sets Django up, whose daphne app needs txaio on Twisted.
    """
    from autobahn.asyncio.websocket import WebSocketClientFactory, WebSocketClientProtocol

    class BotProtocol(WebSocketClientProtocol):
        def onOpen(self) -> None:
            bot.on_open(self)

        def onMessage(self, payload: bytes, isBinary: bool) -> None:
            bot.watch.stats.frames += 1
            bot.watch.stats.frame_bytes += len(payload)
            bot.on_frame(json.loads(payload), time.perf_counter())

        def onClose(self, wasClean: bool, code: int | None, reason: str | None) -> None:
            bot.on_close(code, reason)

    factory = WebSocketClientFactory(url, origin=origin, headers={"Cookie": cookie})
    factory.setProtocolOptions(
        utf8validateIncoming=False, autoPingInterval=0, openHandshakeTimeout=30
    )
    factory.protocol = BotProtocol
    return factory


# -- what one run measures


@dataclass
class Stats:
    window: tuple[float, float] = (0.0, 0.0)
    latencies: list[float] = field(default_factory=list)  # seconds, actions sent in the window
    first_latencies: list[float] = field(default_factory=list)  # to the first player only
    end_latencies: list[float] = field(default_factory=list)  # actions that ended their hand
    mid_latencies: list[float] = field(default_factory=list)  # the others
    actions: int = 0
    hands: int = 0
    sent: int = 0
    errors: dict[str, int] = field(default_factory=dict)
    closes: dict[str, int] = field(default_factory=dict)
    stalls: int = 0
    # Frames in the window that came early (a version before them still missing: the client
    # waits for it) or stale (a version it already shows, e.g. sent again in a resync
    # answer, or older than the snapshot it joined with: ignored, costs no wait).
    early: int = 0
    stale: int = 0
    gaps: int = 0  # resyncs asked for
    snapshots: int = 0  # snapshots asked for after an update that did not fit
    frames: int = 0
    frame_bytes: int = 0
    stall_notes: list[str] = field(default_factory=list)
    lock_waits: list[int] = field(default_factory=list)
    lock_queries: dict[str, int] = field(default_factory=dict)
    db: dict[str, int] = field(default_factory=dict)  # pg_stat_database deltas in the window
    trips: dict[str, int] = field(default_factory=dict)  # bench/dbcount.py deltas, role:counter
    owners: list[str] = field(default_factory=list)  # each daphne's owner, after the window

    def in_window(self, t: float) -> bool:
        return self.window[0] <= t < self.window[1]

    def count(self, bucket: dict[str, int], key: str) -> None:
        bucket[key] = bucket.get(key, 0) + 1


def progress_of(state: dict) -> tuple[int, int] | None:
    """Where a table is: (hand id, turn); a finished hand counts as past every turn."""
    hand = state.get("hand")
    if hand:
        if hand.get("result") is not None:
            return hand["id"], 1 << 30
        return hand["id"], hand["turn"]
    last = state.get("last_result")
    if last and last.get("hand_id", last.get("id")) is not None:
        return last.get("hand_id", last.get("id")), 1 << 30
    return None


def new_mirror():
    """What a client holds of a table, from its frames (bench.mirror, as the tests use)."""
    from bench.mirror import TableMirror

    return TableMirror()  # replaced by a WholeStateMirror at the first update with a STATE


class WholeStateMirror:
    """The older protocol whose `snapshot` and `update` frames carried the whole STATE, so the
    benchmark can measure that code beside today's."""

    def __init__(self) -> None:
        self.state: dict | None = None
        self.gaps = 0
        self.broken = 0
        self.stale = 0

    def apply(self, frame: dict) -> bool:
        if frame.get("type") not in ("snapshot", "update"):
            return False
        state = frame["state"]
        if self.state is not None and state.get("version", 0) <= self.state.get("version", 0):
            self.stale += 1
            return False
        self.state = state
        return True


class TableWatch:
    """One table's bots; an action is done when every connected bot has seen the table past it."""

    def __init__(self, seed: TableSeed, stats: Stats) -> None:
        self.seed = seed
        self.stats = stats
        self.bots: list[Bot] = []
        self.pending: dict[tuple[int, int], tuple[float, set[int]]] = {}
        self.finished_hands: set[int] = set()
        self.last_change = time.perf_counter()
        self.last_progress: tuple[int, int] | None = None

    def action_sent(self, key: tuple[int, int], t0: float) -> None:
        waiting = {bot.seed.user_id for bot in self.bots if bot.protocol is not None}
        self.pending[key] = (t0, waiting)
        if self.stats.in_window(t0):
            self.stats.sent += 1

    def action_refused(self, key: tuple[int, int]) -> None:
        self.pending.pop(key, None)

    def seen(self, bot: Bot, progress: tuple[int, int], t: float) -> None:
        if self.last_progress is None or progress > self.last_progress:
            self.last_progress = progress
            self.last_change = t
        if progress[1] == 1 << 30 and progress[0] not in self.finished_hands:
            self.finished_hands.add(progress[0])
            if self.stats.in_window(t):
                self.stats.hands += 1
        for key in [key for key in self.pending if key < progress]:
            t0, waiting = self.pending[key]
            if len(waiting) == len(self.bots) and self.stats.in_window(t0):
                self.stats.first_latencies.append(t - t0)
            waiting.discard(bot.seed.user_id)
            if not waiting:
                del self.pending[key]
                if self.stats.in_window(t0):
                    self.stats.actions += 1
                    self.stats.latencies.append(t - t0)
                    if progress == (key[0], 1 << 30):  # this action ended the hand
                        self.stats.end_latencies.append(t - t0)
                    else:
                        self.stats.mid_latencies.append(t - t0)

    def bot_gone(self, bot: Bot) -> None:
        for _t0, waiting in self.pending.values():
            waiting.discard(bot.seed.user_id)


class Bot:
    """One player: sits, acts at random when it is its turn, tops up and re-buys between hands."""

    def __init__(self, seed: BotSeed, watch: TableWatch, options: Options, rng: random.Random):
        self.seed = seed
        self.watch = watch
        self.options = options
        self.rng = rng
        self.protocol = None  # the autobahn protocol once open
        self.opened = asyncio.get_running_loop().create_future()
        self.seq = 0
        self.mirror = new_mirror()
        self.state: dict | None = None
        self.acted: set[tuple[int, int]] = set()
        self.sent_for: dict[int, tuple[int, int]] = {}  # seq -> (hand, turn) of an act
        self.admin_sent: dict[str, float] = {}  # frame type -> when last sent
        self.closed = False
        self.gap_timer: asyncio.TimerHandle | None = None  # waiting for a missing version

    # -- connection

    def on_open(self, protocol) -> None:
        self.protocol = protocol
        if not self.opened.done():
            self.opened.set_result(True)

    def on_close(self, code: int | None, reason: str | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError(f"closed {code} {reason}"))
        if self.protocol is not None and not self.closed:
            self.watch.stats.count(self.watch.stats.closes, str(code))
        self.protocol = None
        self.watch.bot_gone(self)

    def send(self, frame: dict) -> None:
        if self.protocol is not None and self.protocol.state == self.protocol.STATE_OPEN:
            self.protocol.sendMessage(json.dumps(frame, separators=(",", ":")).encode())

    # -- frames

    def on_frame(self, frame: dict, t: float) -> None:
        kind = frame.get("type")
        if kind == "update" and "state" in frame and not isinstance(self.mirror, WholeStateMirror):
            self.mirror = WholeStateMirror()  # the older whole-STATE protocol
        if kind in ("snapshot", "update", "private", "resync"):
            # Frame v is applied after v-1 (docs/protocol.md "Versions and resync"): one that
            # comes early waits for the missing one, which is asked for with `resync` if it
            # does not come within a moment.
            stale, broken = self.mirror.stale, self.mirror.broken
            changed = self.mirror.apply(frame)
            stats = self.watch.stats
            pending = getattr(self.mirror, "pending", None)
            if stats.in_window(t):
                stats.stale += self.mirror.stale - stale
                if pending and frame.get("version") in pending:
                    stats.early += 1  # came before the one it follows
            if pending and self.gap_timer is None:
                self.gap_timer = asyncio.get_running_loop().call_later(
                    GAP_WAIT_SECONDS, self.resync_ask
                )
            elif not pending and self.gap_timer is not None:
                self.gap_timer.cancel()
                self.gap_timer = None
            self.after_apply(changed, broken, t)
        elif kind == "heartbeat" and self.state is not None:
            # A quiet table (everyone else sat out) sends nothing else: look again at whether
            # to top up or sit in, as a player glancing at the page would.
            self.decide()
        elif kind == "error":
            stats = self.watch.stats
            stats.count(stats.errors, frame.get("code", "?"))
            key = self.sent_for.pop(frame.get("seq"), None)
            if key is not None:
                self.watch.action_refused(key)
            if len(stats.stall_notes) < 20:
                stats.stall_notes.append(f"{self.seed.username}: error {frame}")

    def resync_ask(self) -> None:
        """The missing version did not come: ask for the frames after the one shown."""
        self.gap_timer = None
        if self.mirror.pending:
            if self.watch.stats.in_window(time.perf_counter()):
                self.watch.stats.gaps += 1
            self.send(self.mirror.resync_frame())

    def after_apply(self, changed: bool, broken_before: int, t: float) -> None:
        if self.mirror.broken > broken_before:
            if self.watch.stats.in_window(t):
                self.watch.stats.snapshots += 1  # an update that did not fit: the whole state
            self.admin({"type": "snapshot"})
        if not changed:
            return
        self.state = self.mirror.state
        progress = progress_of(self.state)
        if progress is not None:
            self.watch.seen(self, progress, t)
        self.decide()

    def decide(self) -> None:
        state = self.state
        you = state.get("you") or {}
        seat = you.get("seat")
        if seat is None:
            buy_in = self.watch.seed.max_buy_in
            sit = {"type": "sit", "seat": self.seed.seat, "buy_in": buy_in, "post_big_blind": True}
            self.admin(sit)
            return
        mine = next((s for s in state.get("seats", []) if s.get("seat") == seat), {})
        hand = state.get("hand")
        live = hand is not None and hand.get("result") is None
        if live and hand.get("to_act") == seat and hand.get("legal_actions"):
            self.act(hand)
            return
        in_hand = live and any(s.get("seat") == seat for s in hand.get("seats", []))
        stack = mine.get("stack", 0)
        if not in_hand and stack < self.watch.seed.min_buy_in:
            # Short or busted (a busted player is sat out with "no_chips"): back to the maximum.
            self.admin({"type": "top_up", "amount": self.watch.seed.max_buy_in - stack})
        elif mine.get("status") == "sitting_out" or you.get("sitting_out"):
            self.admin({"type": "sit_in", "post_big_blind": True})

    def admin(self, frame: dict) -> None:
        """Seat management: a frame type is not repeated within a second (five for `sit`): its
        update may still be on the way while other players' changes bring newer states."""
        now = time.perf_counter()
        wait = 5.0 if frame["type"] == "sit" else 1.0
        if now - self.admin_sent.get(frame["type"], -10.0) < wait:
            return
        self.admin_sent[frame["type"]] = now
        self.send(frame)

    def act(self, hand: dict) -> None:
        from poker.engine.simulate import random_decision

        key = (hand["id"], hand["turn"])
        if key in self.acted:
            return
        self.acted.add(key)
        legal = hand["legal_actions"]
        span = legal.get("raise") or legal.get("bet")
        kind, to = random_decision(
            self.rng, legal.get("call") or 0, span["min"] if span else 0, span["max"] if span else 0
        )
        if kind == "fold" and legal.get("fold"):
            action, amount = "fold", None
        elif kind == "raise" and span:
            action, amount = ("raise" if legal.get("raise") else "bet"), to
        elif legal.get("check"):
            action, amount = "check", None
        elif legal.get("call"):
            action, amount = "call", None
        else:
            action, amount = "all_in", None
        if self.options.think_ms:
            asyncio.get_running_loop().call_later(
                self.options.think_ms / 1000, self._send_act, key, hand["turn"], action, amount
            )
        else:
            self._send_act(key, hand["turn"], action, amount)

    def _send_act(self, key: tuple[int, int], turn: int, action: str, amount: int | None) -> None:
        self.seq += 1
        self.sent_for[self.seq] = key
        if len(self.sent_for) > 64:
            self.sent_for.pop(next(iter(self.sent_for)))
        t0 = time.perf_counter()
        self.watch.action_sent(key, t0)
        self.send({"type": "act", "action": action, "amount": amount, "turn": turn,
                   "seq": self.seq})  # fmt: skip


async def connect(bot: Bot, port: int, table_id: int, tries: int = 3) -> None:
    """Open the bot's socket. A handshake the room drops (daphne closes a socket its consumer
    has not accepted in time) is tried again, up to `tries` times."""
    url = f"ws://127.0.0.1:{port}/ws/tables/{table_id}/"
    loop = asyncio.get_running_loop()
    for attempt in range(tries):
        if attempt:
            await asyncio.sleep(1)
            bot.opened = loop.create_future()
        factory = client_factory(
            url, f"http://127.0.0.1:{port}", f"sessionid={bot.seed.session_key}", bot
        )
        await loop.create_connection(factory, "127.0.0.1", port)
        try:
            await asyncio.wait_for(bot.opened, 40)
            return
        except ConnectionError:
            if attempt == tries - 1:
                raise


async def sample_lock_waits(stats: Stats, stop: asyncio.Event) -> None:
    """Twice a second: how many of the room's PostgreSQL sessions wait on a lock, and on what."""
    import psycopg

    query = (
        "SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 70) FROM pg_stat_activity"
        " WHERE datname = %s AND wait_event_type = 'Lock'"
    )
    async with await psycopg.AsyncConnection.connect(f"{PG_URL}/postgres", autocommit=True) as c:
        while not stop.is_set():
            rows = await (await c.execute(query, (DB_NAME,))).fetchall()
            if stats.in_window(time.perf_counter()):
                stats.lock_waits.append(len(rows))
                for (text,) in rows:
                    stats.count(stats.lock_queries, text)
            with suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), 0.5)


def trip_counters(layer: str) -> dict[str, int]:
    """Statements, transactions and rows the room's processes counted so far (bench/dbcount.py,
    flushed to Redis every half second; none for the embedded room, which has no Redis)."""
    import redis

    if layer == EMBEDDED:
        return {}
    client = redis.Redis.from_url(REDIS_BROKER)
    try:
        raw = client.hgetall("room-load:db")
    finally:
        client.close()
    return {key.decode(): int(value) for key, value in raw.items()}


def db_counters(layer: str) -> dict[str, int]:
    """The room database's commits and row counts so far (pg_stat_database), and its tables'
    lease epochs and versions (not read from the embedded room's private server)."""
    import psycopg

    if layer == EMBEDDED:
        return {}
    columns = ("xact_commit", "xact_rollback", "tup_fetched", "tup_inserted", "tup_updated")
    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        row = conn.execute(
            f"SELECT {', '.join(columns)} FROM pg_stat_database WHERE datname = %s", (DB_NAME,)
        ).fetchone()
    counters = dict(zip(columns, row, strict=True))
    # How often a table changed hands (a lease taken with a new epoch, poker/owner.py) against
    # its changes (versions): with every command at the owner, the first is near 0.
    with psycopg.connect(f"{PG_URL}/{DB_NAME}", autocommit=True) as conn:
        epochs, versions = conn.execute(
            "SELECT coalesce(sum(lease_epoch), 0), coalesce(sum(version), 0) FROM poker_table"
        ).fetchone()
    return {**counters, "lease_taken": int(epochs), "table_changes": int(versions)}


def owners_report(ports: list[int], layer: str) -> list[str]:
    """Each daphne's table owner as its /healthz tells it (poker/owner.py `owner_report`, the
    whole run so far), and the tables' leases by holder: owners spread by their leases."""
    import urllib.request

    lines = []
    for i, port in enumerate(ports, start=1):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as answer:
                owner = json.loads(answer.read()).get("owner", {})
        except Exception as error:
            lines.append(f"daphne-{i}: /healthz failed ({type(error).__name__})")
            continue
        served = sum(sum(results.values()) for results in owner.get("served", {}).values())
        lines.append(
            f"daphne-{i} {owner.get('role')}: leases {owner.get('leases', 0)} (renewed "
            f"{owner.get('renewed_seconds_ago')} s ago), its sockets' commands run here "
            f"{owner.get('run_here', 0)}, sent on {owner.get('sent', 0)}; served {served}"
        )
    if layer == EMBEDDED:
        return lines  # its one process holds every table (its /healthz above)
    import psycopg

    with psycopg.connect(f"{PG_URL}/{DB_NAME}", autocommit=True) as conn:
        holders = conn.execute(
            "SELECT lease_owner LIKE 'owner|%' AND lease_expires_at > now(), count(*) "
            "FROM poker_table GROUP BY 1 ORDER BY 1"
        ).fetchall()
        per_owner = conn.execute(
            "SELECT count(*) FROM poker_table WHERE lease_owner LIKE 'owner|%' "
            "AND lease_expires_at > now() GROUP BY lease_owner ORDER BY 1 DESC"
        ).fetchall()
    counts = {bool(live): n for live, n in holders}
    lines.append(
        f"tables held by a live owner {counts.get(True, 0)}, by none {counts.get(False, 0)}; "
        f"per owner {[n for (n,) in per_owner]}"
    )
    return lines


async def play(
    seeds: list[TableSeed], ports: list[int], options: Options, procs: Processes
) -> tuple[Stats, dict[str, float], float]:
    """Connect every bot, play warm-up + window, return stats and CPU % of one core by role."""
    stats = Stats()
    rng = random.Random(20260101)
    watches = []
    connecting = []
    for seed in seeds:
        watch = TableWatch(seed, stats)
        watches.append(watch)
        for i, bot_seed in enumerate(seed.bots):
            bot = Bot(bot_seed, watch, options, random.Random(rng.random()))
            watch.bots.append(bot)
            connecting.append(connect(bot, ports[i % len(ports)], seed.table_id))
    for batch in range(0, len(connecting), 24):
        await asyncio.gather(*connecting[batch : batch + 24])
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_lock_waits(stats, stop))
    start = time.perf_counter() + options.warmup
    stats.window = (start, start + options.seconds)
    try:
        await asyncio.sleep(options.warmup)
        cpu0, busy0, wall0 = cpu_sample(procs), machine_busy(), time.perf_counter()
        db0, trips0 = db_counters(options.layer), trip_counters(options.layer)
        if options.profile:
            profile_start(procs, options.seconds)
        end = stats.window[1]
        while (now := time.perf_counter()) < end:
            procs.check_alive()
            for watch in watches:
                _note_stall(stats, watch, now, end)
            await asyncio.sleep(min(0.5, max(0.0, end - now)))
        cpu1, busy1, wall1 = cpu_sample(procs), machine_busy(), time.perf_counter()
        db1 = db_counters(options.layer)
        stats.db = {key: db1[key] - db0[key] for key in db0}
        trips1 = trip_counters(options.layer)  # both ends lag the processes by up to half a second
        stats.trips = {key: trips1[key] - trips0.get(key, 0) for key in trips1}
        stats.owners = await asyncio.to_thread(owners_report, ports, options.layer)
        # Results of actions sent just before the end may still be on their way.
        await asyncio.sleep(1.0)
    finally:
        stop.set()
        await asyncio.gather(sampler, return_exceptions=True)
        await _disconnect([bot for watch in watches for bot in watch.bots])
    elapsed = wall1 - wall0
    cpu = cpu_by_role(cpu0, cpu1, elapsed)
    machine = 100 * (busy1[0] - busy0[0]) / max(1, busy1[1] - busy0[1])
    return stats, cpu, machine


def _note_stall(stats: Stats, watch: TableWatch, now: float, end: float) -> None:
    """A table with no change for 5 s inside the window is a stall (the first 40 noted)."""
    if now - watch.last_change <= 5 or watch.last_change >= end:
        return
    stats.stalls += 1
    watch.last_change = now
    if len(stats.stall_notes) < 40:
        state = watch.bots[0].state or {}
        hand = state.get("hand") or {}
        stats.stall_notes.append(
            f"table {watch.seed.table_id}: no progress for 5 s at "
            f"{watch.last_progress}, to_act={hand.get('to_act')} "
            f"seats={[s.get('status') for s in state.get('seats', [])]}"
        )


async def _disconnect(bots: list[Bot]) -> None:
    """Close every bot's socket, dropping those still closing after 3 s without the
    handshake."""
    for bot in bots:
        bot.closed = True
        if bot.protocol is not None:
            bot.protocol.sendClose(1000)
    deadline = time.perf_counter() + 3
    while any(bot.protocol for bot in bots) and time.perf_counter() < deadline:
        await asyncio.sleep(0.1)
    for bot in bots:
        if bot.protocol is not None:
            bot.protocol.dropConnection(abort=True)


# -- pgbench, the peer


def run_pgbench(seconds: float, clients: int, log_dir: Path) -> float:
    """TPS of a one-row UPDATE transaction on the same PostgreSQL, for the same duration."""
    pg_admin(f"DROP DATABASE IF EXISTS {PGBENCH_DB} WITH (FORCE)", f"CREATE DATABASE {PGBENCH_DB}")
    base = ["-h", "127.0.0.1", "-U", "postgres"]
    env = {k: v for k, v in os.environ.items() if k != "PGOPTIONS"}  # a diagnostic's, not ours
    subprocess.run(
        ["pgbench", *base, "-i", "-q", "-s", "1", PGBENCH_DB],
        check=True, capture_output=True, env=env,
    )  # fmt: skip
    script = log_dir / "one_row_update.sql"
    script.write_text(
        "\\set aid random(1, 100000 * :scale)\n"
        "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n"
    )
    out = subprocess.run(
        ["pgbench", *base, "-n", "-f", str(script), "-c", str(clients),
         "-j", str(min(clients, os.cpu_count() or 1)), "-T", str(int(seconds)), PGBENCH_DB],
        check=True, capture_output=True, text=True, env=env,
    ).stdout  # fmt: skip
    (log_dir / "pgbench.log").write_text(out)
    pg_admin(f"DROP DATABASE IF EXISTS {PGBENCH_DB} WITH (FORCE)")
    for line in out.splitlines():
        if line.startswith("tps ="):
            return float(line.split()[2])
    raise RuntimeError(f"no tps line in pgbench output:\n{out}")


# -- one run and the report


@dataclass
class Result:
    layer: str
    tables: int
    stats: Stats
    cpu: dict[str, float]
    machine: float
    log_errors: dict[str, int]
    log_dir: Path
    profile: list[str] = field(default_factory=list)

    @property
    def seconds(self) -> float:
        return self.stats.window[1] - self.stats.window[0]

    def pct(self, q: float, first: bool = False, end: bool = False, mid: bool = False) -> float:
        s = self.stats
        values = sorted(
            s.first_latencies
            if first
            else s.end_latencies
            if end
            else s.mid_latencies
            if mid
            else s.latencies
        )
        if not values:
            return float("nan")
        return 1000 * values[min(len(values) - 1, int(q / 100 * len(values)))]

    @property
    def actions_per_second(self) -> float:
        return self.stats.actions / self.seconds

    @property
    def hands_per_second(self) -> float:
        return self.stats.hands / self.seconds

    def lines(self) -> list[str]:
        s = self.stats
        top = sorted(s.lock_queries.items(), key=lambda kv: -kv[1])[:2]
        waits = (
            f"mean {statistics.fmean(s.lock_waits):.2f}, max {max(s.lock_waits)} {top or ''}"
            if s.lock_waits
            else "n/a"
        )
        cpu = ", ".join(f"{role} {value:.0f}%" for role, value in self.cpu.items())
        others = self.machine * (os.cpu_count() or 1) - sum(self.cpu.values())
        return [
            f"layer {self.layer:<6} tables {self.tables:>3}  "
            f"actions {self.actions_per_second:8.1f}/s  hands {self.hands_per_second:6.2f}/s  "
            f"latency p50 {self.pct(50):6.1f} ms  p95 {self.pct(95):6.1f} ms  "
            f"p99 {self.pct(99):6.1f} ms",
            f"    to the first player only: p50 {self.pct(50, True):.1f} ms, "
            f"p99 {self.pct(99, True):.1f} ms (the rest is the fan-out to the other five); "
            f"actions that ended a hand ({len(self.stats.end_latencies)}): "
            f"p50 {self.pct(50, end=True):.1f} ms, p99 {self.pct(99, end=True):.1f} ms; "
            f"the others p99 {self.pct(99, mid=True):.1f} ms",
            f"    sent {s.sent} in window, completed {s.actions}; errors {s.errors or 0}; "
            f"closes {s.closes or 0}; stalls {s.stalls}; frames early {s.early}, stale {s.stale}, "
            f"resyncs {s.gaps}, snapshots {s.snapshots}; "
            f"PG sessions waiting on locks {waits}",
            f"    CPU (% of one core): {cpu}; whole machine {self.machine:.0f}% of "
            f"{os.cpu_count()} cores (others: {others:.0f}% of one core)",
            "    PostgreSQL per completed action: "
            + ", ".join(f"{k} {v / max(1, s.actions):.1f}" for k, v in s.db.items()),
            "    round trips per completed action (statements + BEGIN/COMMIT, bench/dbcount.py): "
            + self.trips_text(),
            f"    frames received {s.frames:,}, {s.frame_bytes / max(1, s.frames):,.0f} bytes on "
            f"average; log errors {self.log_errors or 0}; logs in {self.log_dir}",
            *(f"    {line}" for line in s.owners),
            *self.profile,
        ]

    def trips_text(self) -> str:
        s, n = self.stats, max(1, self.stats.actions)
        parts = []
        for role in ("asgi", "celery"):
            statements = s.trips.get(f"{role}:statements", 0)
            transactions = s.trips.get(f"{role}:transactions", 0)
            rows = s.trips.get(f"{role}:rows", 0)
            parts.append(
                f"{role} {(statements + 2 * transactions) / n:.1f} ({statements / n:.1f} "
                f"statements, {transactions / n:.1f} transactions, {rows / n:.1f} rows returned)"
            )
        return "; ".join(parts)


# Where an ASGI process's samples are, by the first matching frame from the leaf up.
PROFILE_BUCKETS = (
    ("psycopg and its pool", ("psycopg/", "psycopg_pool/")),
    ("JSON", ("json/",)),
    ("building frames", ("poker/broadcast", "poker/selectors", "bench/mirror")),
    ("the engine", ("poker/engine/",)),
    ("Django ORM and SQL compiling", ("django/db/",)),
    ("our services (poker.services, cashier)", ("poker/services", "cashier/")),
    ("channel layer (channels_redis, redis)", ("channels_redis/", "redis/", "msgpack")),
    ("WebSocket server (daphne, twisted, autobahn)", ("daphne/", "twisted/", "autobahn/")),
    ("asgiref and channels (thread hops, consumers)", ("asgiref/", "channels/", "poker/consumers")),
    ("asyncio event loop", ("asyncio/",)),
    ("Python's thread pool and locks", ("concurrent/", "threading.py", "queue.py")),
)  # fmt: skip


def profile_start(procs: Processes, seconds: float) -> list[subprocess.Popen]:
    """py-spy (the bench extra: `pip install -e '.[bench]'`) on each ASGI process for the
    window, as raw collapsed stacks in the run's log directory; idle threads are not sampled."""
    spy = VENV_BIN / "py-spy"
    started = []
    for proc in procs.procs:
        if proc.role != "asgi" or not spy.exists():
            continue
        out = procs.log_dir / f"{proc.name}.pyspy.txt"
        started.append(
            subprocess.Popen(
                [str(spy), "record", "--pid", str(proc.popen.pid), "--duration",
                 str(int(seconds)), "--rate", "50", "--format", "raw", "--nonblocking",
                 "--output", str(out)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
        )  # fmt: skip
    return started


def profile_report(log_dir: Path) -> list[str]:
    """Share of the ASGI processes' CPU samples per bucket (PROFILE_BUCKETS, the first match
    from the leaf up), and the leaf functions with the most samples of their own."""
    deadline = time.monotonic() + 30
    files = sorted(log_dir.glob("*.pyspy.txt"))
    while not files and time.monotonic() < deadline:
        time.sleep(0.5)
        files = sorted(log_dir.glob("*.pyspy.txt"))
    buckets: dict[str, int] = {}
    leaves: dict[str, int] = {}
    total = 0
    for path in files:
        for line in path.read_text(errors="replace").splitlines():
            stack, _, count = line.rpartition(" ")
            if not count.isdigit():
                continue
            n = int(count)
            frames = stack.split(";")
            total += n
            leaf = frames[-1]
            leaves[leaf] = leaves.get(leaf, 0) + n
            for frame in reversed(frames):
                name = next(
                    (b for b, keys in PROFILE_BUCKETS if any(k in frame for k in keys)), None
                )
                if name:
                    buckets[name] = buckets.get(name, 0) + n
                    break
            else:
                buckets["other"] = buckets.get("other", 0) + n
    if not total:
        return ["    profile: no samples (is py-spy installed, and may it attach?)"]
    top = sorted(buckets.items(), key=lambda kv: -kv[1])
    lines = [
        f"    profile of the ASGI processes ({total:,} busy samples at 50/s): "
        + ", ".join(f"{name} {100 * n / total:.0f}%" for name, n in top)
    ]
    for leaf, n in sorted(leaves.items(), key=lambda kv: -kv[1])[:8]:
        lines.append(f"      {100 * n / total:4.1f}%  {leaf}")
    return lines


def scan_logs(log_dir: Path) -> dict[str, int]:
    found: dict[str, int] = {}
    for log in log_dir.glob("*.log"):
        text = log.read_text(errors="replace")
        for needle in ("Traceback", "ERROR", "CRITICAL", "deadlock"):
            if (n := text.count(needle)) > 0:
                found[f"{log.stem}:{needle}"] = n
    return found


def run_once(options: Options, tables: int, layer: str, log_root: Path) -> Result:
    options = Options(**{**options.__dict__, "tables": tables, "layer": layer})
    run_number = len(list(log_root.glob("run*"))) + 1
    log_dir = log_root / f"run{run_number:02d}-{layer}-{tables}"
    log_dir.mkdir(parents=True, exist_ok=True)
    fresh_database(layer)
    # The code may have moved on since the template was made (a shared checkout): catch up.
    # The embedded room starts from a new data folder, as a first `make run` does.
    migrate(None if layer == EMBEDDED else f"{PG_URL}/{DB_NAME}", log_dir / "migrate.log")
    seeds = seed_in_child(tables, log_dir, layer)
    procs = Processes(log_dir)
    try:
        ports = start_room(procs, options, log_dir)
        stats, cpu, machine = asyncio.run(play(seeds, ports, options, procs))
        log_errors = scan_logs(log_dir)  # before the shutdown, which logs warnings of its own
        profile = profile_report(log_dir) if options.profile else []
    finally:
        procs.stop_all()
    if stats.stall_notes:
        (log_dir / "bots.log").write_text("\n".join(stats.stall_notes) + "\n")
    return Result(layer, tables, stats, cpu, machine, log_errors, log_dir, profile)


def find_max(options: Options, layer: str, log_root: Path) -> tuple[int, list[Result]]:
    """Double the tables until p99 passes 100 ms, then bisect between the last two counts."""
    results: list[Result] = []

    def ok(n: int) -> bool:
        result = run_once(options, n, layer, log_root)
        results.append(result)
        print("\n".join(result.lines()), flush=True)
        return result.pct(99) <= P99_LIMIT_MS and not result.stats.stalls

    good, bad, n = 0, None, max(1, options.tables)
    while bad is None:
        if ok(n):
            good, n = n, n * 2
        else:
            bad = n
    while bad - good > max(1, good // 8):
        mid = (good + bad) // 2
        if ok(mid):
            good = mid
        else:
            bad = mid
    return good, results


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--tables", type=int, default=Options.tables)
    parser.add_argument("--seconds", type=float, default=Options.seconds)
    parser.add_argument("--warmup", type=float, default=Options.warmup)
    parser.add_argument(
        "--layer",
        choices=["core", "pubsub", "both", EMBEDDED, "all"],
        default="both",
        help=f"'{EMBEDDED}': make run's one-process room; 'all': core, pubsub and {EMBEDDED}",
    )
    parser.add_argument("--asgi", type=int, default=Options.asgi, help="daphne processes")
    parser.add_argument(
        "--owners", type=int, default=None, help="daphnes running table owners (default: all)"
    )
    parser.add_argument("--celery-concurrency", type=int, default=Options.celery_concurrency)
    parser.add_argument("--think-ms", type=float, default=Options.think_ms)
    parser.add_argument("--pgbench-clients", type=int, default=Options.pgbench_clients)
    parser.add_argument("--repeat", type=int, default=1, help="runs per layer, alternated")
    parser.add_argument("--find-max", action="store_true", help="most tables with p99 <= 100 ms")
    parser.add_argument(
        "--profile", action="store_true", help="py-spy on the ASGI processes in the window"
    )
    parser.add_argument("--seed-only", nargs=2, metavar=("TABLES", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.owners is not None and not 1 <= args.owners <= args.asgi:
        parser.error("--owners must be 1 to --asgi")
    if args.seed_only:
        from dataclasses import asdict

        import django

        django.setup()
        seeds = seed(int(args.seed_only[0]))
        Path(args.seed_only[1]).write_text(json.dumps([asdict(t) for t in seeds]))
        return 0
    options = Options(
        tables=args.tables, seconds=args.seconds, warmup=args.warmup, asgi=args.asgi,
        owners=args.owners, celery_concurrency=args.celery_concurrency, think_ms=args.think_ms,
        pgbench_clients=args.pgbench_clients, profile=args.profile,
    )  # fmt: skip
    layers = {"both": ["core", "pubsub"], "all": ["core", "pubsub", EMBEDDED]}.get(
        args.layer, [args.layer]
    )

    log_root = LOG_ROOT / time.strftime("%Y%m%d-%H%M%S")
    log_root.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(
        f"# {os.cpu_count()} cores; {options.asgi} daphne "
        f"({options.owners or options.asgi} running table owners), 1 celery worker "
        f"(concurrency {options.celery_concurrency}), beat; {options.seconds:.0f} s window after "
        f"{options.warmup:.0f} s warm-up; logs in {log_root}",
        flush=True,
    )
    prepare_template(log_root)
    try:
        if args.find_max:
            for layer in layers:
                best, _ = find_max(options, layer, log_root)
                print(f"layer {layer}: most tables with p99 <= {P99_LIMIT_MS:.0f} ms: {best}")
            return 0
        by_layer: dict[str, list[tuple[Result, float]]] = {layer: [] for layer in layers}
        for _ in range(args.repeat):
            for layer in layers:  # alternated, so a busy spell on the machine hits both
                result = run_once(options, options.tables, layer, log_root)
                tps = run_pgbench(options.seconds, options.pgbench_clients, log_root)
                by_layer[layer].append((result, tps))
                print("\n".join(result.lines()), flush=True)
                print(
                    f"    pgbench one-row UPDATE ({options.pgbench_clients} clients, right after):"
                    f" {tps:,.0f} TPS; ratio ours/pgbench {result.actions_per_second / tps:.4f}",
                    flush=True,
                )
        print(f"# median of the runs per layer, {options.tables} tables:")
        summary = {}
        for layer, runs in by_layer.items():
            failed = [r for r, _ in runs if not r.stats.actions]
            runs = [(r, t) for r, t in runs if r.stats.actions]
            if failed:
                print(f"{layer}: {len(failed)} run(s) completed no action, left out: see "
                      + ", ".join(str(r.log_dir) for r in failed))  # fmt: skip
            if not runs:
                continue
            med = {
                "actions": statistics.median(r.actions_per_second for r, _ in runs),
                "hands": statistics.median(r.hands_per_second for r, _ in runs),
                "p50": statistics.median(r.pct(50) for r, _ in runs),
                "p95": statistics.median(r.pct(95) for r, _ in runs),
                "p99": statistics.median(r.pct(99) for r, _ in runs),
                "tps": statistics.median(t for _, t in runs),
            }
            summary[layer] = med
            print(
                f"{layer:<6} actions {med['actions']:7.1f}/s  hands {med['hands']:5.2f}/s  "
                f"p50 {med['p50']:6.1f} ms  p95 {med['p95']:6.1f} ms  p99 {med['p99']:6.1f} ms  "
                f"pgbench {med['tps']:,.0f} TPS  ratio {med['actions'] / med['tps']:.4f}"
            )
        if len(summary) == 2:
            best = min(summary, key=lambda k: (summary[k]["p99"], -summary[k]["actions"]))
            print(f"better layer on this load: {best} (lower median p99, then more actions/s)")
        return 0
    finally:
        with suppress(Exception):
            pg_admin(
                f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)",
                f"DROP DATABASE IF EXISTS {TEMPLATE_DB} WITH (FORCE)",
            )


if __name__ == "__main__":
    sys.exit(main())
