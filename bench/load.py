"""Live tables under load: bots over real WebSockets against the production setup.

Run with ``.venv/bin/python -m bench.load`` (``--tables N --seconds S --layer
core|pubsub|fanout|both|pubsub-fanout|embedded|all``, ``--repeat R`` to alternate the layers R
times and print medians, ``--think-ms T`` for bots that wait before acting, ``--find-max`` to
search for the most tables with p99 under 100 ms, ``--slices K --pgbench-seconds P`` for the
peer's slices). Figures go to the "Live tables under load" section of docs/benchmarks.md.

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
   and served, and the tables' leases are counted by holder. ``--layer embedded`` runs
   ``manage.py runroom`` instead (make run's one process on its own PostgreSQL server).
2. **Seeding through the services.** N 6-max pot-limit Omaha tables ($0.50/$1, 10 s to act so
   that a turn outlasts pgbench's slice, ``next_hand_delay_seconds`` 0.2) and six bot users per
   table, each funded with ``cashier.services.wallet_deposit``; each bot gets a real session
   (``SessionStore``, as the login view makes) and connects with its ``sessionid`` cookie. Bots
   of one table are spread over the ASGI processes, so every broadcast crosses the channel
   layer between processes. Seeding runs in a child process: the bots' process loads no Django.
3. **Bots** are asyncio clients of the ``websockets`` package (no compression, no pings), one
   reading task each, and keep only what they decide on (bench/bot_mirror.py: whose turn, their
   legal actions, hand and turn, their seat's stack and status, whether the hand is over; frames
   applied in version order, a missing one asked for with ``resync`` after the page's 50 ms).
   Each sits with a 100 BB buy-in through the ``sit`` frame, and when the hand's ``to_act`` is
   its seat it acts at once (no think time unless ``--think-ms``) with
   ``poker.engine.simulate.random_decision`` on its ``legal_actions`` (the policy of
   bench/engine.py), sending the hand's ``turn`` and an incrementing ``seq``. Between hands a
   short or busted bot tops up to the maximum (re-buys if it was removed); a bot sat out is sat
   back in.
4. **Latency** of an action: from just before its frame is written to the moment the *last* of
   the table's six connected players has received an update that shows the hand past that turn
   (a later turn of the same hand, a later hand, or the hand's result). This is what a player
   waits for before the next player can act, and it includes the bot process's own receive
   work. p50/p95/p99 are over the actions sent inside the room's slices (after a warm-up).
   Actions/s counts actions sent in a room slice whose result reached every player, over the
   slices' time; hands/s counts hands whose result was seen in a slice.
5. **Peer: pgbench, in slices between the room's.** The window of S seconds is cut into
   ``--slices`` K room slices of S/K seconds. After each, the bots hold their frames (an act
   decided meanwhile is sent when they resume), the actions already sent finish (at most 2 s),
   and pgbench runs ``--pgbench-seconds`` P (3) on the same PostgreSQL, with a custom script of
   one transaction updating one row (``pgbench_accounts``, scale 1, made before the bots
   connect, random row), ``--pgbench-clients`` clients; then the bots resume. Room, pgbench,
   room, pgbench, ...: a busy spell of a shared machine falls on both, and the ratio (our
   actions/s over pgbench's mean TPS) compares like with like. P stays under the turn's 10 s
   (a held bot's turn must not time out). The embedded room's peer is the same pgbench on the
   machine's PostgreSQL (its own server has no pgbench database).
6. **Where the time goes.** Over the room slices only, each process's CPU seconds are read
   from /proc at the slice's start and after its drain: each daphne (or runroom), the Celery
   worker and beat, every postgres process of the machine (and of them the room's: the
   backends connected to its database, or the embedded room's whole server), the machine's
   redis-server, and the bots (this process's event-loop thread only, less its own reading of
   /proc; the lock sampler has a thread of its own). Each is printed in ms per completed action
   and as percent of one core, with the machine's busy share and load average. PostgreSQL
   sessions waiting on locks are sampled twice a second. ``--find-max`` doubles then bisects
   the table count until p99 passes 100 ms, and prints these figures for each step, which is
   how the limit is named.
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
import threading
import time
import traceback
from contextlib import suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from bench.bot_mirror import FINISHED, BotMirror
from poker.engine.simulate import random_decision

if TYPE_CHECKING:
    from websockets.asyncio.client import ClientConnection

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
    # The room's default: the pub/sub layer with local fan-out (config/channel_layer.py).
    "fanout": "config.channel_layer.FanoutChannelLayer",
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
    # The window is cut into `slices` room slices, each followed by `pgbench_seconds` of
    # pgbench with the bots holding their frames (shorter than a turn's 10 s to act).
    slices: int = 6
    pgbench_seconds: int = 3
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
            # Longer than the 5 s of a real table, so a turn outlasts pgbench's slice with the
            # bots holding their frames (it changes no cost: one timer per turn either way).
            action_seconds=10,
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
    """Seed in a child, so the bots' process (its CPU is measured) never loads Django."""
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


_COMMS: dict[int, str] = {}  # pid: its command name, read once (a pid is not reused in a run)


def _comm(pid: int) -> str:
    with suppress(OSError):
        _COMMS[pid] = Path(f"/proc/{pid}/comm").read_text().strip()
    return _COMMS.get(pid, "")


_CMDLINES: dict[int, str] = {}


def _cmdline(pid: int) -> str:
    if pid not in _CMDLINES:
        try:
            _CMDLINES[pid] = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            _CMDLINES[pid] = ""
    return _CMDLINES[pid]


def room_backends(layer: str) -> set[int]:
    """The pids of the PostgreSQL backends connected to the room's database (none read for the
    embedded room: its whole server is the room's)."""
    import psycopg

    if layer == EMBEDDED:
        return set()
    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s", (DB_NAME,))
        return {pid for (pid,) in rows.fetchall()}


@dataclass
class CpuSample:
    by_pid: dict[int, tuple[str, float]]  # pid: (process, CPU seconds so far)
    busy: int  # the whole machine's jiffies so far (/proc/stat): busy, and all
    total: int
    wall: float
    # The bots' thread's CPU seconds (this one: the event loop) as the sample began and ended,
    # so the sample's own reading of /proc is not counted as the bots'.
    own_start: float
    own_end: float


def cpu_sample(procs: Processes, layer: str) -> CpuSample:
    """{pid: (process, CPU seconds so far)}: each process group we started, by its name
    (daphne-1, ..., runroom, celery-worker, celery-beat), the bots (this process), the room's
    PostgreSQL processes (`postgres-room`: the backends of its database, or the embedded room's
    whole server) and the machine's others (`postgres-other`), and the machine's redis-server."""
    own_start = time.thread_time()
    groups = {proc.popen.pid: proc.name for proc in procs.procs}
    backends = room_backends(layer)
    # The embedded room's server runs detached from its process group: its postmaster is the
    # postgres whose command line names the room's data folder, the rest are its children.
    data_dir = str(embedded_data_dir()) if layer == EMBEDDED else None
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
        ppid, pgrp = int(fields[1]), int(fields[2])
        name = None
        if pid == me:
            continue  # the bots: their thread's time, below
        comm = _COMMS.get(pid) or _comm(pid)
        if comm in ("postgres", "postmaster"):
            ours = pid in backends or (data_dir and data_dir in _cmdline(ppid) + _cmdline(pid))
            name = "postgres-room" if ours else "postgres-other"
        elif pgrp in groups:
            name = groups[pgrp]
        elif comm.startswith("redis-server"):
            name = "redis"
        if name:
            sample[pid] = (name, seconds)
    busy, total = machine_busy()
    return CpuSample(sample, busy, total, time.perf_counter(), own_start, time.thread_time())


@dataclass
class CpuTally:
    """CPU seconds by process over the room slices (pgbench's slices left out)."""

    seconds: dict[str, float] = field(default_factory=dict)
    elapsed: float = 0.0
    busy: int = 0  # the whole machine's jiffies, busy and all
    total: int = 0

    def add(self, before: CpuSample, after: CpuSample) -> None:
        """Add one slice (a process that ended in it is not counted; one that started in it is
        counted whole)."""
        for pid, (name, total) in after.by_pid.items():
            start = before.by_pid.get(pid, (name, 0.0))[1]
            self.seconds[name] = self.seconds.get(name, 0.0) + max(0.0, total - start)
        self.seconds["bots"] = self.seconds.get("bots", 0.0) + after.own_start - before.own_end
        self.busy += after.busy - before.busy
        self.total += after.total - before.total
        self.elapsed += after.wall - before.wall

    def of(self, *prefixes: str) -> float:
        return sum(v for k, v in self.seconds.items() if k.startswith(prefixes))

    @property
    def machine(self) -> float:
        """The whole machine's busy share, percent of all its cores."""
        return 100 * self.busy / max(1, self.total)


def load_average() -> list[str]:
    return [f"{x:.1f}" for x in os.getloadavg()]


def machine_busy() -> tuple[int, int]:
    """(busy, total) jiffies of the whole machine, from /proc/stat."""
    parts = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = parts[3] + parts[4]
    return sum(parts) - idle, sum(parts)


# -- the WebSocket client (plain `websockets`, one reading task per bot)


async def connect(bot: Bot, port: int, table_id: int, tries: int = 3) -> None:
    """Open the bot's socket and start reading it. A handshake the room drops (daphne refuses
    a socket its consumer has not accepted in time) is tried again, up to `tries` times."""
    from websockets.asyncio.client import connect as ws_connect
    from websockets.exceptions import WebSocketException
    from websockets.typing import Origin

    url = f"ws://127.0.0.1:{port}/ws/tables/{table_id}/"
    for attempt in range(tries):
        if attempt:
            await asyncio.sleep(1)
        try:
            ws = await ws_connect(
                url,
                origin=Origin(f"http://127.0.0.1:{port}"),
                additional_headers={"Cookie": f"sessionid={bot.seed.session_key}"},
                # No compression, no pings, no frame size limit (as a plain page's socket);
                # a handshake may wait 30 s on a busy machine (daphne is told the same).
                compression=None,
                ping_interval=None,
                max_size=None,
                open_timeout=40,
                close_timeout=3,
            )
        except WebSocketException as error:
            if attempt == tries - 1:
                raise ConnectionError(f"handshake refused: {error}") from error
            continue
        bot.on_open(ws)
        bot.reader = asyncio.get_running_loop().create_task(bot.read(ws))
        return


# -- what one run measures


@dataclass
class Stats:
    window: tuple[float, float] = (0.0, 0.0)
    # The room's slices of the window (the bots play; between them pgbench runs and the bots
    # hold their frames). Empty: the whole window is the room's.
    slices: list[tuple[float, float]] = field(default_factory=list)
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
        if self.slices:
            return any(start <= t < end for start, end in self.slices)
        return self.window[0] <= t < self.window[1]

    def count(self, bucket: dict[str, int], key: str) -> None:
        bucket[key] = bucket.get(key, 0) + 1


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
        waiting = {bot.seed.user_id for bot in self.bots if bot.ws is not None}
        self.pending[key] = (t0, waiting)
        if self.stats.in_window(t0):
            self.stats.sent += 1

    def action_refused(self, key: tuple[int, int]) -> None:
        self.pending.pop(key, None)

    def seen(self, bot: Bot, progress: tuple[int, int], t: float) -> None:
        if self.last_progress is None or progress > self.last_progress:
            self.last_progress = progress
            self.last_change = t
        if progress[1] == FINISHED and progress[0] not in self.finished_hands:
            self.finished_hands.add(progress[0])
            if self.stats.in_window(t):
                self.stats.hands += 1
        if not self.pending:
            return
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
                    if progress == (key[0], FINISHED):  # this action ended the hand
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
        self.ws: ClientConnection | None = None  # the open socket
        self.reader: asyncio.Task | None = None
        self.seq = 0
        self.mirror = BotMirror()
        self.acted: set[tuple[int, int]] = set()
        self.sent_for: dict[int, tuple[int, int]] = {}  # seq -> (hand, turn) of an act
        self.admin_sent: dict[str, float] = {}  # frame type -> when last sent
        self.closed = False
        self.held = False  # pgbench's slice: decide and send nothing until `release`
        self.deferred: tuple[tuple[int, int], str, int | None] | None = None  # a thought-out act
        self.gap_timer: asyncio.TimerHandle | None = None  # waiting for a missing version

    # -- connection

    def on_open(self, ws: ClientConnection) -> None:
        self.ws = ws

    def on_close(self, code: int | None, reason: str | None) -> None:
        if self.ws is not None and not self.closed:
            self.watch.stats.count(self.watch.stats.closes, str(code))
        self.ws = None
        self.watch.bot_gone(self)

    async def read(self, ws: ClientConnection) -> None:
        """Hand every frame to `on_frame` until the socket closes."""
        from websockets.exceptions import ConnectionClosed

        stats = self.watch.stats
        try:
            while True:
                payload = await ws.recv(decode=False)
                stats.frames += 1
                stats.frame_bytes += len(payload)
                self.on_frame(json.loads(payload), time.perf_counter())
        except ConnectionClosed as closed:
            received = closed.rcvd
            if ws is self.ws:
                self.on_close(
                    received.code if received else 1006, received.reason if received else ""
                )
        except Exception:
            # A bug of the bot's, not the room's: counted, noted, and the socket dropped.
            stats.count(stats.errors, "bot_exception")
            if len(stats.stall_notes) < 40:
                stats.stall_notes.append(f"{self.seed.username}: {traceback.format_exc()}")
            ws.transport.abort()
            if ws is self.ws:
                self.on_close(1006, "bot exception")

    def send(self, frame: dict) -> None:
        ws = self.ws
        if ws is not None:
            task = asyncio.get_running_loop().create_task(
                ws.send(json.dumps(frame, separators=(",", ":")))
            )
            task.add_done_callback(_sent)

    def drop(self) -> None:
        """Cut the connection at once (no closing handshake)."""
        if self.ws is not None:
            self.ws.transport.abort()

    # -- frames

    def on_frame(self, frame: dict, t: float) -> None:
        kind = frame.get("type")
        mirror = self.mirror
        if kind in ("snapshot", "update", "private", "resync"):
            # Frame v is applied after v-1 (docs/protocol.md "Versions and resync"): one that
            # comes early waits for the missing one, which is asked for with `resync` if it
            # does not come within a moment.
            stale, broken = mirror.stale, mirror.broken
            changed = mirror.apply(frame)
            stats = self.watch.stats
            pending = mirror.pending
            if stats.in_window(t):
                stats.stale += mirror.stale - stale
                if pending and frame.get("version") in pending:
                    stats.early += 1  # came before the one it follows
            if pending and self.gap_timer is None:
                self.gap_timer = asyncio.get_running_loop().call_later(
                    mirror.gap_wait_seconds, self.resync_ask
                )
            elif not pending and self.gap_timer is not None:
                self.gap_timer.cancel()
                self.gap_timer = None
            self.after_apply(changed, broken, t)
        elif kind == "heartbeat" and mirror.shown:
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
        progress = self.mirror.progress()
        if progress is not None:
            self.watch.seen(self, progress, t)
        self.decide()

    def release(self) -> None:
        """pgbench's slice is over: decide on what came meanwhile."""
        self.held = False
        if self.deferred is not None:
            self._send_act(*self.deferred)
            self.deferred = None
        elif self.mirror.shown and self.ws is not None:
            self.decide()

    def decide(self) -> None:
        if self.held:
            return
        mirror = self.mirror
        seat = mirror.seat
        if seat is None:
            buy_in = self.watch.seed.max_buy_in
            sit = {"type": "sit", "seat": self.seed.seat, "buy_in": buy_in, "post_big_blind": True}
            self.admin(sit)
            return
        legal = mirror.legal_actions()
        if legal:
            self.act(legal)
            return
        in_hand = mirror.live and seat in mirror.dealt
        stack = mirror.stacks.get(seat, 0)
        if not in_hand and stack < self.watch.seed.min_buy_in:
            # Short or busted (a busted player is sat out with "no_chips"): back to the maximum.
            self.admin({"type": "top_up", "amount": self.watch.seed.max_buy_in - stack})
        elif mirror.status.get(seat) == "sitting_out" or mirror.you.get("sitting_out"):
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

    def act(self, legal: dict) -> None:
        """Act on the shown turn with the engine's random policy (bench/engine.py's)."""
        mirror = self.mirror
        assert mirror.hand_id is not None
        key = (mirror.hand_id, mirror.turn)
        if key in self.acted:
            return
        self.acted.add(key)
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
                self.options.think_ms / 1000, self._send_act, key, action, amount
            )
        else:
            self._send_act(key, action, amount)

    def _send_act(self, key: tuple[int, int], action: str, amount: int | None) -> None:
        if self.held:
            self.deferred = (key, action, amount)  # thought out while pgbench runs
            return
        self.seq += 1
        self.sent_for[self.seq] = key
        if len(self.sent_for) > 64:
            self.sent_for.pop(next(iter(self.sent_for)))
        t0 = time.perf_counter()
        self.watch.action_sent(key, t0)
        self.send({"type": "act", "action": action, "amount": amount, "turn": key[1],
                   "seq": self.seq})  # fmt: skip


def _sent(task: asyncio.Task) -> None:
    """A frame sent on a socket that closed meanwhile is lost, as a page's would be."""
    if not task.cancelled():
        task.exception()


def sample_lock_waits(stats: Stats, stop: threading.Event) -> None:
    """Twice a second: how many of the room's PostgreSQL sessions wait on a lock, and on what.
    In a thread of its own, so the bots' thread's CPU is the bots' alone."""
    import psycopg

    query = (
        "SELECT left(regexp_replace(query, '\\s+', ' ', 'g'), 70) FROM pg_stat_activity"
        " WHERE datname = %s AND wait_event_type = 'Lock'"
    )
    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        while not stop.is_set():
            rows = conn.execute(query, (DB_NAME,)).fetchall()
            if stats.in_window(time.perf_counter()):
                stats.lock_waits.append(len(rows))
                for (text,) in rows:
                    stats.count(stats.lock_queries, text)
            stop.wait(0.5)


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
    seeds: list[TableSeed], ports: list[int], options: Options, procs: Processes, log_dir: Path
) -> tuple[Stats, CpuTally, list[float]]:
    """Connect every bot, play the warm-up, then the window's room slices with a pgbench slice
    after each; return the stats, the room slices' CPU by process and pgbench's TPS by slice."""
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
    bots = [bot for watch in watches for bot in watch.bots]
    try:
        for batch in range(0, len(connecting), 24):
            await asyncio.gather(*connecting[batch : batch + 24])
    except BaseException:
        await _disconnect(bots)
        raise
    stop = threading.Event()
    sampler = threading.Thread(target=sample_lock_waits, args=(stats, stop), daemon=True)
    sampler.start()
    cpu = CpuTally()
    tps: list[float] = []
    room_seconds = options.seconds / options.slices
    try:
        await asyncio.sleep(options.warmup)
        trips0 = trip_counters(options.layer)
        if options.profile:
            profile_start(procs, options.seconds + options.slices * options.pgbench_seconds)
        for number in range(options.slices):
            await room_slice(stats, watches, procs, options.layer, cpu, room_seconds)
            log = log_dir / f"pgbench-{number + 1}.log"
            pgbench = (options.pgbench_seconds, options.pgbench_clients, log)
            tps.append(await asyncio.to_thread(pgbench_slice, *pgbench))
            resumed = time.perf_counter()
            for watch in watches:
                watch.last_change = max(watch.last_change, resumed)  # held is not stalled
            for bot in bots:
                bot.release()
        stats.window = (stats.slices[0][0], stats.slices[-1][1])
        # Both ends lag the processes by up to half a second, and count the pgbench slices'
        # background too (timers, lease renewals): a little more than the room slices'.
        trips1 = trip_counters(options.layer)
        stats.trips = {key: trips1[key] - trips0.get(key, 0) for key in trips1}
        stats.owners = await asyncio.to_thread(owners_report, ports, options.layer)
    finally:
        stop.set()
        sampler.join(5)
        await _disconnect(bots)
    return stats, cpu, tps


async def room_slice(
    stats: Stats,
    watches: list[TableWatch],
    procs: Processes,
    layer: str,
    cpu: CpuTally,
    seconds: float,
) -> None:
    """Let the bots play for `seconds`, then hold them, and count the slice's CPU and
    database work once the actions sent in it are done (on the room's time, not pgbench's)."""
    start = time.perf_counter()
    end = start + seconds
    stats.slices.append((start, end))
    db0 = db_counters(layer)
    before = cpu_sample(procs, layer)
    while (now := time.perf_counter()) < end:
        procs.check_alive()
        for watch in watches:
            _note_stall(stats, watch, now, end)
        await asyncio.sleep(min(0.5, max(0.0, end - now)))
    for watch in watches:
        for bot in watch.bots:
            bot.held = True
    drain = time.perf_counter() + 2
    while any(w.pending for w in watches) and time.perf_counter() < drain:
        await asyncio.sleep(0.01)
    cpu.add(before, cpu_sample(procs, layer))
    db1 = db_counters(layer)
    for key in db0:
        stats.db[key] = stats.db.get(key, 0) + db1[key] - db0[key]


def _note_stall(stats: Stats, watch: TableWatch, now: float, end: float) -> None:
    """A table with no change for 5 s inside the window is a stall (the first 40 noted)."""
    if now - watch.last_change <= 5 or watch.last_change >= end:
        return
    stats.stalls += 1
    watch.last_change = now
    if len(stats.stall_notes) < 40:
        mirror = watch.bots[0].mirror
        stats.stall_notes.append(
            f"table {watch.seed.table_id}: no progress for 5 s at "
            f"{watch.last_progress}, to_act={mirror.to_act} "
            f"seats={[mirror.status.get(s) for s in sorted(mirror.status)]}"
        )


async def _disconnect(bots: list[Bot]) -> None:
    """Close every bot's socket, dropping those still closing after 3 s without the
    handshake."""
    open_ = [bot.ws for bot in bots if bot.ws is not None]
    for bot in bots:
        bot.closed = True
    with suppress(TimeoutError):
        await asyncio.wait_for(
            asyncio.gather(*(ws.close() for ws in open_), return_exceptions=True), 3
        )
    for bot in bots:
        bot.drop()
        if bot.reader is not None:
            bot.reader.cancel()


# -- pgbench, the peer

PGBENCH_SCRIPT = (
    "\\set aid random(1, 100000 * :scale)\n"
    "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = :aid;\n"
)


def _pgbench_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "PGOPTIONS"}  # a diagnostic's, not ours


def pgbench_prepare(log_dir: Path) -> None:
    """pgbench's scale-1 database on the same PostgreSQL, made before the bots connect."""
    pg_admin(f"DROP DATABASE IF EXISTS {PGBENCH_DB} WITH (FORCE)", f"CREATE DATABASE {PGBENCH_DB}")
    subprocess.run(
        ["pgbench", "-h", "127.0.0.1", "-U", "postgres", "-i", "-q", "-s", "1", PGBENCH_DB],
        check=True, capture_output=True, env=_pgbench_env(),
    )  # fmt: skip
    (log_dir / "one_row_update.sql").write_text(PGBENCH_SCRIPT)


def pgbench_slice(seconds: int, clients: int, log_path: Path) -> float:
    """TPS of a one-row UPDATE transaction (random row) for `seconds`, the room held."""
    script = log_path.parent / "one_row_update.sql"
    out = subprocess.run(
        ["pgbench", "-h", "127.0.0.1", "-U", "postgres", "-n", "-f", str(script),
         "-c", str(clients), "-j", str(min(clients, os.cpu_count() or 1)),
         "-T", str(seconds), PGBENCH_DB],
        check=True, capture_output=True, text=True, env=_pgbench_env(),
    ).stdout  # fmt: skip
    log_path.write_text(out)
    for line in out.splitlines():
        if line.startswith("tps ="):
            return float(line.split()[2])
    raise RuntimeError(f"no tps line in pgbench output:\n{out}")


def pgbench_drop() -> None:
    pg_admin(f"DROP DATABASE IF EXISTS {PGBENCH_DB} WITH (FORCE)")


# -- one run and the report


@dataclass
class Result:
    layer: str
    tables: int
    stats: Stats
    cpu: CpuTally
    tps: list[float]  # pgbench's, one per slice
    log_errors: dict[str, int]
    log_dir: Path
    profile: list[str] = field(default_factory=list)
    pgbench_seconds: int = 3

    @property
    def seconds(self) -> float:
        """The room's time: its slices, pgbench's left out."""
        return sum(end - start for start, end in self.stats.slices)

    @property
    def pgbench_tps(self) -> float:
        return statistics.fmean(self.tps) if self.tps else float("nan")

    @property
    def ratio(self) -> float:
        return self.actions_per_second / self.pgbench_tps

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
            *self.cpu_lines(),
            f"    pgbench one-row UPDATE ({len(self.tps)} slices of {self.pgbench_seconds} s "
            f"between the room's): {self.pgbench_tps:,.0f} TPS (slices "
            f"{', '.join(f'{t:,.0f}' for t in self.tps)}); "
            f"ratio ours/pgbench {self.ratio:.4f}",
            *self.db_lines(),
            f"    frames received {s.frames:,}, {s.frame_bytes / max(1, s.frames):,.0f} bytes on "
            f"average; log errors {self.log_errors or 0}; logs in {self.log_dir}",
            *(f"    {line}" for line in s.owners),
            *self.profile,
        ]

    def cpu_lines(self) -> list[str]:
        """The room's CPU per completed action by process (/proc, room slices only), and as
        percent of one core."""
        cpu, n = self.cpu, max(1, self.stats.actions)

        def ms(seconds: float) -> str:
            return f"{1000 * seconds / n:.2f}"

        asgi = sorted(k for k in cpu.seconds if k.startswith(("daphne", "runroom")))
        celery = cpu.of("celery-worker") + cpu.of("celery-beat")
        room = cpu.of("daphne", "runroom", "celery", "postgres", "redis")
        own = cpu.of("daphne", "runroom", "celery", "postgres-room")  # the room's processes only
        if self.layer != EMBEDDED:
            own += cpu.of("redis")  # the machine's, but only the room uses this one much
        per_core = ", ".join(
            f"{name} {100 * value / max(cpu.elapsed, 1e-9):.0f}%"
            for name, value in sorted(cpu.seconds.items())
        )
        return [
            "    room CPU per completed action (ms, /proc, room slices): "
            + ", ".join(f"{name} {ms(cpu.of(name))}" for name in asgi)
            + f" (ASGI {ms(cpu.of('daphne', 'runroom'))}); "
            f"PostgreSQL {ms(cpu.of('postgres'))} (all of the machine's postgres processes; "
            f"the room's {ms(cpu.of('postgres-room'))}); Celery worker + beat "
            f"{ms(celery) if self.layer != EMBEDDED else '(threads of runroom)'}; "
            f"Redis {ms(cpu.of('redis'))} (the machine's redis-server); room total {ms(room)} "
            f"(with only the room's PostgreSQL processes {ms(own)})",
            f"    bots' own CPU per completed action: {ms(cpu.of('bots'))} ms (this process)",
            f"    CPU (% of one core): {per_core}; whole machine {cpu.machine:.0f}% of "
            f"{os.cpu_count()} cores; load average {' '.join(load_average())}",
        ]

    def db_lines(self) -> list[str]:
        if self.layer == EMBEDDED:
            return ["    PostgreSQL and round-trip counts: none (the embedded room's own server; "
                    "bench/dbcount.py runs in the production processes only)"]  # fmt: skip
        s = self.stats
        return [
            "    PostgreSQL per completed action: "
            + ", ".join(f"{k} {v / max(1, s.actions):.1f}" for k, v in s.db.items()),
            "    round trips per completed action (statements + BEGIN/COMMIT, bench/dbcount.py): "
            + self.trips_text(),
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
    ("channel layer (channels_redis, redis)",
     ("channels_redis/", "redis/", "msgpack", "config/channel_layer")),
    ("WebSocket server (daphne, twisted, autobahn)", ("daphne/", "twisted/", "autobahn/")),
    ("asgiref and channels (thread hops, consumers)", ("asgiref/", "channels/", "poker/consumers")),
    ("asyncio event loop", ("asyncio/",)),
    ("Python's thread pool and locks", ("concurrent/", "threading.py", "queue.py")),
)  # fmt: skip


def profile_start(procs: Processes, seconds: float) -> list[subprocess.Popen]:
    """py-spy (the bench extra: `pip install -e '.[bench]'`) on each ASGI process for the
    window, as raw collapsed stacks in the run's log directory; only the thread holding the GIL
    is sampled (`--gil`: waiting, in Python or in C with the GIL released, is not work), each
    sample with the process paused (`--nonblocking` missed four in five of them here)."""
    spy = VENV_BIN / "py-spy"
    started = []
    for proc in procs.procs:
        if proc.role != "asgi" or not spy.exists():
            continue
        out = procs.log_dir / f"{proc.name}.pyspy.txt"
        started.append(
            subprocess.Popen(
                [str(spy), "record", "--pid", str(proc.popen.pid), "--duration",
                 str(int(seconds)), "--rate", "50", "--format", "raw", "--gil",
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
        pgbench_prepare(log_dir)
        stats, cpu, tps = asyncio.run(play(seeds, ports, options, procs, log_dir))
        log_errors = scan_logs(log_dir)  # before the shutdown, which logs warnings of its own
        profile = profile_report(log_dir) if options.profile else []
    finally:
        procs.stop_all()
        with suppress(Exception):
            pgbench_drop()
    if stats.stall_notes:
        (log_dir / "bots.log").write_text("\n".join(stats.stall_notes) + "\n")
    return Result(
        layer, tables, stats, cpu, tps, log_errors, log_dir, profile, options.pgbench_seconds
    )


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
        choices=["core", "pubsub", "fanout", "both", "pubsub-fanout", EMBEDDED, "all"],
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
    parser.add_argument(
        "--slices", type=int, default=Options.slices, help="room slices of the window"
    )
    parser.add_argument(
        "--pgbench-seconds", type=int, default=Options.pgbench_seconds,
        help="pgbench's slice after each room slice (whole seconds, at most 6)",
    )  # fmt: skip
    parser.add_argument("--repeat", type=int, default=1, help="runs per layer, alternated")
    parser.add_argument("--find-max", action="store_true", help="most tables with p99 <= 100 ms")
    parser.add_argument(
        "--profile", action="store_true", help="py-spy on the ASGI processes in the window"
    )
    parser.add_argument("--seed-only", nargs=2, metavar=("TABLES", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.owners is not None and not 1 <= args.owners <= args.asgi:
        parser.error("--owners must be 1 to --asgi")
    if not 1 <= args.pgbench_seconds <= 6 or args.slices < 1:
        parser.error("--pgbench-seconds must be 1 to 6 (a turn's timer is 10 s), --slices >= 1")
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
        pgbench_clients=args.pgbench_clients, profile=args.profile, slices=args.slices,
        pgbench_seconds=args.pgbench_seconds,
    )  # fmt: skip
    layers = {
        "both": ["core", "pubsub"],
        "pubsub-fanout": ["pubsub", "fanout"],
        "all": ["core", "pubsub", EMBEDDED],
    }.get(args.layer, [args.layer])

    log_root = LOG_ROOT / time.strftime("%Y%m%d-%H%M%S")
    log_root.mkdir(parents=True, exist_ok=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    print(
        f"# {os.cpu_count()} cores; {options.asgi} daphne "
        f"({options.owners or options.asgi} running table owners), 1 celery worker "
        f"(concurrency {options.celery_concurrency}), beat; {options.seconds:.0f} s of room in "
        f"{options.slices} slices after {options.warmup:.0f} s warm-up, each followed by "
        f"{options.pgbench_seconds} s of pgbench; load average {' '.join(load_average())}; "
        f"logs in {log_root}",
        flush=True,
    )
    prepare_template(log_root)
    try:
        if args.find_max:
            for layer in layers:
                best, _ = find_max(options, layer, log_root)
                print(f"layer {layer}: most tables with p99 <= {P99_LIMIT_MS:.0f} ms: {best}")
            return 0
        by_layer: dict[str, list[Result]] = {layer: [] for layer in layers}
        for _ in range(args.repeat):
            for layer in layers:  # alternated, so a busy spell on the machine hits both
                result = run_once(options, options.tables, layer, log_root)
                by_layer[layer].append(result)
                print("\n".join(result.lines()), flush=True)
        print(f"# median of the runs per layer, {options.tables} tables:")
        summary = {}
        for layer, runs in by_layer.items():
            failed = [r for r in runs if not r.stats.actions]
            runs = [r for r in runs if r.stats.actions]
            if failed:
                print(f"{layer}: {len(failed)} run(s) completed no action, left out: see "
                      + ", ".join(str(r.log_dir) for r in failed))  # fmt: skip
            if not runs:
                continue
            med = {
                "actions": statistics.median(r.actions_per_second for r in runs),
                "hands": statistics.median(r.hands_per_second for r in runs),
                "p50": statistics.median(r.pct(50) for r in runs),
                "p95": statistics.median(r.pct(95) for r in runs),
                "p99": statistics.median(r.pct(99) for r in runs),
                "tps": statistics.median(r.pgbench_tps for r in runs),
                "ratio": statistics.median(r.ratio for r in runs),
            }
            summary[layer] = med
            print(
                f"{layer:<6} actions {med['actions']:7.1f}/s  hands {med['hands']:5.2f}/s  "
                f"p50 {med['p50']:6.1f} ms  p95 {med['p95']:6.1f} ms  p99 {med['p99']:6.1f} ms  "
                f"pgbench {med['tps']:,.0f} TPS  ratio {med['ratio']:.4f}"
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
