"""Faults at live tables: kill -9 of the Celery worker and of ASGI processes while bots play,
then every hand must be over and the books must balance; plus malformed socket frames.

Run with ``.venv/bin/python -m bench.chaos`` (``--hands 1000 --baseline-hands 200 --seed S
--frames 20000``). Figures go to the "Faults" section of docs/benchmarks.md. The CI-sized
forms are tests/poker/test_chaos.py (a few dozen hands with kills), test_chaos_owner.py
(an owner killed) and
tests/poker/test_frame_fuzz.py (a few thousand frames); they run the same code as this file
(`chaos_seed`, `chaos_play`, `books_check` here, bench/frame_fuzz.py for frames).

Method
------
1. **The room as in production, on a scratch database**: ``--asgi`` daphne processes serving
   config.asgi on their own ports and one Celery worker (solo pool) with an embedded beat,
   each in its own process group, on PostgreSQL and Redis, with the sweep every second
   (``POKER_SWEEP_SECONDS``) and a short stuck-hand limit (``POKER_STUCK_HAND_SECONDS``).
   Tables are pot-limit Omaha with 2 s to act and 1 s of disconnection grace, so a turn
   lost with a process costs seconds, not minutes.
2. **Bots** are bench/load.py's (the `websockets` client, the random policy, top-ups and
   sitting back in), spread over the ASGI processes. When their socket drops they
   reconnect to any ASGI port after a short jittered wait, as the table page does.
3. **Without faults, then with them, alternated** ``--rounds`` times (so that a busy spell on
   a shared machine hits both): the bots play a share of ``--baseline-hands`` hands with
   nothing killed (the peer: hands/s without faults, same processes, same run), then a share
   of ``--hands`` hands during which, every few seconds (uniform in ``--kill-every``), one
   process gets SIGKILL (with its process group): the first two kills are one worker and one
   ASGI process in a seeded order, then a seeded choice (a worker one time in three). It
   stays down a seeded 0-1.5 s and is started again; the next kill waits until it is ready.
   The seed is printed; the same seed gives the same schedule of kills (not the same moments
   in the hands, which depend on timing).
4. **Wind-down.** Kills stop, every bot sits out and plays its current hand out; the run
   waits until no hand runs and every seat sits out. Meanwhile and after, a hand whose turn is
   overdue by more than the stuck limit plus 30 s is a failure.
5. **The books** (`books_check`, with Django): no hand still running; every finished hand has
   its one settlement entry and no cancelled hand has one; no table stack left marked as in a
   hand; ``cashier.verify.ledger_verify`` clean; and the money held (wallets, table stacks,
   rake) equal to what was deposited.
6. **Frames** (bench/frame_fuzz.py): ``--frames`` malformed or out-of-turn frames over the
   table socket (Channels' communicator on the Redis layer) at a table with a hand running;
   each must get an error frame (never ``server_error``) and change nothing. The peer is a
   ``ping`` round trip on the same socket.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
from contextlib import suppress
from dataclasses import asdict, dataclass, field
from pathlib import Path

from bench.load import Bot, BotSeed, Options, Processes, Stats, TableSeed, TableWatch, connect

ROOT = Path(__file__).resolve().parent.parent
PG_URL = os.environ.get("LOAD_PG_URL", "postgres://postgres@127.0.0.1:5432")
DB_NAME = "room_chaos"
TEMPLATE_DB = "room_chaos_tpl"
LOG_ROOT = Path(tempfile.gettempdir()) / "room-chaos"
WALLET = 10_000_000  # cents per bot: enough for every re-buy of a long run
# A turn overdue by more than the stuck limit plus this is a hand the room failed to move.
OVERDUE_MARGIN_SECONDS = 30
TABLE_SETTINGS = {
    "action_seconds": 2,
    "countdown_seconds": 1,
    "disconnect_grace_seconds": 1,
    "next_hand_delay_seconds": 0.3,
}


@dataclass
class ChaosSpec:
    """One fault run; JSON-serialisable, so a test can hand it to a child process."""

    database_url: str
    tables: list[dict]  # TableSeed as dicts (bench/load.py), from `chaos_seed`
    log_dir: str
    hands: int = 40  # hands to end while processes are being killed...
    min_kills: int = 0  # ...and kills to have made by then
    baseline_hands: int = 0  # hands to end with nothing killed (the peer)
    rounds: int = 1  # the two phases alternate this many times, so a busy spell hits both
    seed: int = 1
    asgi: int = 2
    kill_every: tuple[float, float] = (3.0, 7.0)
    down: tuple[float, float] = (0.0, 1.5)
    sweep_seconds: float = 1.0
    stuck_seconds: int = 10
    timeout: float = 240.0  # for each phase
    queue: str = "room-chaos"
    env: dict[str, str] = field(default_factory=dict)  # on top of os.environ for the room
    # "any": the worker and ASGI processes in a seeded order; "owners": the ASGI process that
    # owns a table with a hand running (poker/owner.py), timing how soon the table moves again.
    kill: str = "any"
    # Sit & Go tables (bench/sng.py): the bots only play (no seat, top-up or sit-out frames),
    # and a fault run (`play_in_child`) is bench/sng.py's `sng_fault_play`: `min_kills`
    # owners killed mid-hand, one table after the other, then the bots shove to the end.
    tournament: bool = False
    # The Celery worker's pool: 0 is the solo pool (one process: a kill -9 hits every task it
    # holds at once), N a prefork pool of N processes, as docs/operations.md runs it.
    worker_concurrency: int = 0

    @classmethod
    def from_json(cls, text: str) -> ChaosSpec:
        data = json.loads(text)
        data["kill_every"] = tuple(data["kill_every"])
        data["down"] = tuple(data["down"])
        return cls(**data)


# -- seeding and the books (these need Django; the play itself does not)


def chaos_seed(*, tables: int, bots: int, prefix: str = "chaos") -> list[TableSeed]:
    """Pot-limit Omaha tables with fast timers and `bots` funded players each, logged in."""
    from bench.load import session_key_for
    from tests.factories import make_funded_player, make_table

    seeds = []
    for t in range(1, tables + 1):
        table = make_table(name=f"{prefix} {t}", **TABLE_SETTINGS)
        players = []
        for s in range(1, bots + 1):
            player = make_funded_player(f"{prefix}-{t}-{s}", cents=WALLET)
            players.append(BotSeed(player.pk, player.username, session_key_for(player), s))
        seeds.append(TableSeed(table.pk, table.min_buy_in, table.max_buy_in, players))
    return seeds


@dataclass
class Books:
    """What `books_check` found; `problems` empty means the faults lost nothing."""

    finished: int = 0
    cancelled: int = 0
    running: int = 0
    cancel_codes: dict[str, int] = field(default_factory=dict)
    marked_stacks: int = 0
    ledger_entries: int = 0
    deposited: int = 0
    held: int = 0
    longest_pause_seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


def books_check(*, table_ids: list[int], player_ids: list[int], deposited: int) -> Books:
    """After a fault run: every hand over, settled once or cancelled with nothing posted, no
    stack marked in a hand, the ledger verified and every cent deposited still held."""
    from django.db.models import Count, Sum

    from cashier.models import Account, Entry
    from cashier.verify import ledger_verify
    from poker.models import Hand, HandIncident

    books = Books(deposited=deposited)
    hands = Hand.objects.filter(table_id__in=table_ids)
    by_status = dict(hands.order_by().values_list("status").annotate(n=Count("id")))
    books.finished = by_status.get(Hand.Status.FINISHED, 0)
    books.cancelled = by_status.get(Hand.Status.CANCELLED, 0)
    books.running = by_status.get(Hand.Status.RUNNING, 0)
    for hand_id, turn, deadline in hands.filter(status=Hand.Status.RUNNING).values_list(
        "pk", "turn", "deadline"
    ):
        books.problems.append(f"hand {hand_id} is still running (turn {turn}, deadline {deadline})")
    books.cancel_codes = dict(
        HandIncident.objects.filter(table_id__in=table_ids)
        .order_by()
        .values_list("code")
        .annotate(n=Count("id"))
    )
    settled = set(
        Entry.objects.filter(
            reason=Entry.Reason.HAND_SETTLEMENT, hand_id__in=hands.values("pk")
        ).values_list("hand_id", flat=True)
    )
    finished = set(hands.filter(status=Hand.Status.FINISHED).values_list("pk", flat=True))
    cancelled = set(hands.filter(status=Hand.Status.CANCELLED).values_list("pk", flat=True))
    for hand_id in sorted(finished - settled):
        books.problems.append(f"finished hand {hand_id} has no settlement entry")
    for hand_id in sorted(cancelled & settled):
        books.problems.append(f"cancelled hand {hand_id} was settled")
    marked = Account.objects.filter(in_hand_id__isnull=False)
    books.marked_stacks = marked.count()
    for account in marked.order_by("pk")[:10]:
        books.problems.append(f"{account} is still marked in hand {account.in_hand_id}")
    report = ledger_verify()
    books.ledger_entries = report.entries
    books.problems += [f"ledger: {problem}" for problem in report.problems]
    held = (
        Account.objects.filter(
            kind__in=[Account.Kind.WALLET, Account.Kind.TABLE_STACK], owner_id__in=player_ids
        ).aggregate(t=Sum("balance"))["t"]
        or 0
    )
    held += (
        Account.objects.filter(kind=Account.Kind.TABLE_RAKE, table_id__in=table_ids).aggregate(
            t=Sum("balance")
        )["t"]
        or 0
    )
    books.held = held
    if held != deposited:
        books.problems.append(
            f"players and rake hold {held} cents but {deposited} were deposited "
            f"({held - deposited:+d})"
        )
    for table_id in table_ids:
        ends = sorted(
            hands.filter(table_id=table_id, ended_at__isnull=False).values_list(
                "ended_at", flat=True
            )
        )
        for before, after in itertools.pairwise(ends):
            books.longest_pause_seconds = max(
                books.longest_pause_seconds, (after - before).total_seconds()
            )
    return books


# -- the room's processes


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _tail(path: Path) -> str:
    return path.read_text(errors="replace")[-3000:] if path.exists() else ""


class Room:
    """ASGI processes and a Celery worker with beat, each startable and killable by role."""

    def __init__(self, spec: ChaosSpec) -> None:
        self.spec = spec
        self.log_dir = Path(spec.log_dir)
        self.procs = Processes(self.log_dir)
        self.ports = [_free_port() for _ in range(spec.asgi)]
        self.live: dict[str, object] = {}  # role name -> load.Proc
        self.starts = 0
        self.ready_seconds: list[float] = []
        self.env = {
            **os.environ,
            "DATABASE_URL": spec.database_url,
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "CELERY_QUEUE": spec.queue,
            "POKER_SWEEP_SECONDS": str(spec.sweep_seconds),
            "POKER_STUCK_HAND_SECONDS": str(spec.stuck_seconds),
            # A channel layer of the room's own: the owners of another room on the same
            # database (a test suite's daphne) are not on it, so none of them takes this
            # room's tables (poker.owner.on_this_layer), nor hears its frames.
            "CHANNEL_LAYER_PREFIX": f"{os.environ.get('CHANNEL_LAYER_PREFIX', 'asgi')}-"
            f"room{os.getpid()}",
            "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(ROOT),
            **spec.env,
        }

    @property
    def names(self) -> list[str]:
        return ["worker"] + [f"asgi-{i + 1}" for i in range(self.spec.asgi)]

    def _argv(self, name: str) -> list[str]:
        if name == "worker":
            concurrency = self.spec.worker_concurrency
            pool = ["--pool", "prefork", "--concurrency", str(concurrency)] if concurrency else [
                "--pool", "solo"]  # fmt: skip
            return [
                sys.executable, "-m", "celery", "-A", "config", "worker",
                *pool, "--loglevel", "INFO", "--queues", self.spec.queue,
                "--hostname", f"chaos{self.starts}-{os.getpid()}@%h",
                "--without-mingle", "--without-gossip",
                "--beat", "--schedule", str(self.log_dir / f"beat-{self.starts}"),
            ]  # fmt: skip
        port = self.ports[int(name.split("-")[1]) - 1]
        # A handshake may wait on a busy machine (300 bots connecting while 50 Sit & Gos play):
        # daphne's default 5 s would drop it; the bots wait 40 s (bench/load.py `connect`).
        return [
            sys.executable, "-m", "daphne", "-b", "127.0.0.1", "-p", str(port),
            "--websocket_connect_timeout", "30", "config.asgi:application",
        ]  # fmt: skip

    async def start(self, name: str) -> None:
        """Start `name` and wait until it serves (a port answers; the worker logs "ready.")."""
        self.starts += 1
        started = time.perf_counter()
        proc = self.procs.start(name, f"{name}-{self.starts}", self._argv(name), self.env)
        with open(self.log_dir / "pids", "a") as pids:  # for a parent's cleanup
            pids.write(f"{proc.popen.pid}\n")
        self.live[name] = proc
        deadline = time.monotonic() + 90
        while True:
            if proc.popen.poll() is not None:
                raise RuntimeError(f"{proc.name} exited at start:\n{_tail(proc.log)}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"{proc.name} not ready in 90 s:\n{_tail(proc.log)}")
            if await self._ready(name, proc):
                break
            await asyncio.sleep(0.2)
        self.ready_seconds.append(time.perf_counter() - started)

    async def _ready(self, name: str, proc) -> bool:
        if name == "worker":
            return "ready." in proc.log.read_text(errors="replace")
        port = self.ports[int(name.split("-")[1]) - 1]
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            return False
        writer.close()
        return True

    def kill(self, name: str) -> None:
        """SIGKILL to the process and its group: no shutdown, no goodbye to anyone."""
        proc = self.live.pop(name)
        with suppress(ProcessLookupError):
            os.killpg(proc.popen.pid, signal.SIGKILL)
        proc.popen.wait()
        self.procs.procs.remove(proc)

    def dead(self) -> list[str]:
        return [name for name, proc in self.live.items() if proc.popen.poll() is not None]

    def stop_all(self) -> None:
        self.procs.stop_all()
        self.live.clear()


# -- bots that come back


class ChaosBot(Bot):
    """bench/load.py's bot, reconnecting when its socket drops, and able to wind down."""

    def __init__(self, seed: BotSeed, watch: TableWatch, room: Room, rng: random.Random):
        super().__init__(seed, watch, Options(), rng)
        self.room = room
        self.winding_down = False
        self.shove = False  # at a Sit & Go: raise the most (then call) on every turn
        self.reconnects = 0
        self.reconnecting = False

    def on_open(self, ws) -> None:
        # An act sent just before a server died may be lost: the turn may be played again
        # (the server's turn and seq checks make a duplicate harmless).
        self.acted.clear()
        super().on_open(ws)

    def on_frame(self, frame: dict, t: float) -> None:
        # An act refused (e.g. `duplicate_seq`: one resent around a kill came after the
        # other) is not the turn played: the turn may be tried again with the next frame.
        if frame.get("type") == "error" and (key := self.sent_for.get(frame.get("seq"))):
            self.acted.discard(key)
        super().on_frame(frame, t)
        # A snapshot after a reconnect may show the very state shown before (an act lost
        # with a killed process changed nothing): decide on it all the same.
        if frame.get("type") == "snapshot" and self.mirror.shown and self.ws is not None:
            self.decide()

    def on_close(self, code: int | None, reason: str | None) -> None:
        was_open = self.ws is not None
        super().on_close(code, reason)
        # 4409: a newer socket of this bot took over; it is the live one. 4404: the table is
        # gone or closed (a finished Sit & Go's, after `table_closed`): nothing to come back to.
        if was_open and code not in (4404, 4409) and not self.closed and not self.reconnecting:
            # 4429: too many reconnects in the server's window; wait a good part of it.
            first = 30.0 if code == 4429 else 0.25
            asyncio.get_running_loop().create_task(self.reconnect(first))

    async def reconnect(self, delay: float) -> None:
        self.reconnecting = True
        try:
            while not self.closed:
                await asyncio.sleep(delay * (0.5 + self.rng.random()))
                try:
                    port = self.rng.choice(self.room.ports)
                    await connect(self, port, self.watch.seed.table_id)
                    self.reconnects += 1
                    return
                except (OSError, ConnectionError, TimeoutError):
                    delay = min(delay * 2, 4.0)
        finally:
            self.reconnecting = False

    def decide(self) -> None:
        if self.room.spec.tournament:
            self._play_only()
            return
        if not self.winding_down:
            super().decide()
            return
        mirror = self.mirror
        seat = mirror.seat
        if seat is None:
            return
        if mirror.live and mirror.to_act == seat:
            if legal := mirror.legal_actions():
                self.act(legal)
            return
        if not mirror.you.get("sitting_out"):
            self.admin({"type": "sit_out"})

    def _play_only(self) -> None:
        """At a Sit & Go: act on its turn, sit back in after a timed-out turn sat it out."""
        mirror = self.mirror
        if mirror.seat is None:
            return  # out of the Sit & Go (or not seated yet): it only watches
        if legal := mirror.legal_actions():
            if self.shove:
                self._shove(legal)
            else:
                self.act(legal)
        elif mirror.you.get("sitting_out"):
            self.admin({"type": "sit_in", "post_big_blind": False})

    def _shove(self, legal: dict) -> None:
        """The biggest raise or bet open, else a call, else a check: the stacks go in within
        a few turns, so a Sit & Go ends in a few hands."""
        assert self.mirror.hand_id is not None
        key = (self.mirror.hand_id, self.mirror.turn)
        if key in self.acted:
            return
        self.acted.add(key)
        if span := legal.get("raise") or legal.get("bet"):
            action, amount = ("raise" if legal.get("raise") else "bet"), span["max"]
        elif legal.get("call"):
            action, amount = "call", None
        else:
            action, amount = "check", None
        self._send_act(key, action, amount)


# -- the run


def hand_counts(db, table_ids: list[int]) -> dict[str, int]:
    rows = db.execute(
        "SELECT status, count(*) FROM poker_hand WHERE table_id = ANY(%s) GROUP BY status",
        (table_ids,),
    ).fetchall()
    counts = {"running": 0, "finished": 0, "cancelled": 0, **dict(rows)}
    counts["ended"] = counts["finished"] + counts["cancelled"]
    return counts


def overdue_hands(db, table_ids: list[int], seconds: float) -> list[tuple[int, float]]:
    """Running hands whose turn deadline passed more than `seconds` ago: (id, seconds over)."""
    return db.execute(
        "SELECT id, extract(epoch FROM now() - deadline)::float FROM poker_hand"
        " WHERE table_id = ANY(%s) AND status = 'running'"
        " AND deadline < now() - make_interval(secs => %s)",
        (table_ids, seconds),
    ).fetchall()


def idle_and_sat_out(db, table_ids: list[int]) -> bool:
    running = db.execute(
        "SELECT count(*) FROM poker_hand WHERE table_id = ANY(%s) AND status = 'running'",
        (table_ids,),
    ).fetchone()[0]
    playing = db.execute(
        "SELECT count(*) FROM poker_seat WHERE table_id = ANY(%s) AND status <> 'sitting_out'",
        (table_ids,),
    ).fetchone()[0]
    return running == 0 and playing == 0


async def fault_loop(
    room: Room, rng: random.Random, stop: asyncio.Event, kills: list, first: list[str]
) -> None:
    """Kill one process every few seconds (seeded), keep it down a moment, start it again;
    the first two kills are of the kinds in `first`."""
    asgi = [name for name in room.names if name.startswith("asgi")]
    if room.spec.kill == "owners":
        await owner_kill_loop(room, rng, stop, kills)
        return
    while not stop.is_set():
        wait = rng.uniform(*room.spec.kill_every)
        kind = first[len(kills)] if len(kills) < 2 else rng.choice(["worker", "asgi", "asgi"])
        name = "worker" if kind == "worker" else rng.choice(asgi)
        down = rng.uniform(*room.spec.down)
        with suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), wait)
        if stop.is_set():
            return
        at = time.perf_counter()
        room.kill(name)
        await asyncio.sleep(down)
        await room.start(name)
        kills.append({"process": name, "down_seconds": round(time.perf_counter() - at, 2)})
        print(f"kill -9 {name}: back after {kills[-1]['down_seconds']} s", flush=True)


def owners_mid_hand(db, table_ids: list[int]) -> list[tuple[int, int, int]]:
    """(table, the owner's pid, the table's version) of each table with a hand running whose
    lease a live owner holds (`owner|<host>:<pid>|<channel>`, poker/owner.py)."""
    rows = db.execute(
        "SELECT t.id, t.lease_owner, t.version FROM poker_table t WHERE t.id = ANY(%s) "
        "AND t.lease_owner LIKE 'owner|%%' AND t.lease_expires_at > now() AND EXISTS "
        "(SELECT 1 FROM poker_hand h WHERE h.table_id = t.id AND h.status = 'running')",
        (table_ids,),
    ).fetchall()
    return [(table, int(holder.split("|")[1].rsplit(":", 1)[1]), v) for table, holder, v in rows]


async def owner_kill_loop(room: Room, rng: random.Random, stop: asyncio.Event, kills: list) -> None:
    """Every few seconds, kill -9 the ASGI process owning a table mid-hand, start it again
    after a moment, and time how soon another process changes the table (it took the lapsed
    lease and rebuilt the table from the database): `resume_seconds`."""
    import psycopg

    table_ids = [t["table_id"] for t in room.spec.tables]
    with psycopg.connect(room.spec.database_url, autocommit=True) as db:
        while not stop.is_set():
            with suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), rng.uniform(*room.spec.kill_every))
            if stop.is_set():
                return
            pids = {proc.popen.pid: name for name, proc in room.live.items()}
            owned = [row for row in owners_mid_hand(db, table_ids) if row[1] in pids]
            if not owned:
                continue
            table_id, pid, _ = rng.choice(owned)
            name, at = pids[pid], time.perf_counter()
            room.kill(name)
            version = db.execute(
                "SELECT version FROM poker_table WHERE id = %s", (table_id,)
            ).fetchone()[0]
            restart = asyncio.create_task(_start_after(room, name, rng.uniform(*room.spec.down)))
            resume = None
            while time.perf_counter() - at < 60:
                now = db.execute(
                    "SELECT version FROM poker_table WHERE id = %s", (table_id,)
                ).fetchone()[0]
                if now > version:
                    resume = round(time.perf_counter() - at, 2)
                    break
                await asyncio.sleep(0.05)
            await restart
            kills.append(
                {
                    "process": name,
                    "owner_of": table_id,
                    "resume_seconds": resume,
                    "down_seconds": round(time.perf_counter() - at, 2),
                }
            )
            print(
                f"kill -9 {name}, owner of table {table_id}: resumed after {resume} s", flush=True
            )


async def _start_after(room: Room, name: str, seconds: float) -> None:
    await asyncio.sleep(seconds)
    await room.start(name)


async def until_hands(
    db,
    spec: ChaosSpec,
    target: int,
    room: Room,
    note: list[str],
    faults=None,
    kills=(),
    min_kills=0,
) -> bool:
    """Wait until `target` hands at the tables have ended and `min_kills` were made; note
    overdue hands on the way."""
    table_ids = [t["table_id"] for t in spec.tables]
    deadline = time.monotonic() + spec.timeout
    while time.monotonic() < deadline:
        if hand_counts(db, table_ids)["ended"] >= target and len(kills) >= min_kills:
            return True
        if faults is not None and faults.done():
            faults.result()  # a process that would not start again: the run has failed
        _note_overdue(db, spec, note)
        if dead := [n for n in room.dead() if n in room.live]:
            raise RuntimeError(f"{dead} exited by themselves; logs in {spec.log_dir}")
        await asyncio.sleep(0.5)
    return False


def _note_overdue(db, spec: ChaosSpec, note: list[str]) -> None:
    table_ids = [t["table_id"] for t in spec.tables]
    limit = spec.stuck_seconds + OVERDUE_MARGIN_SECONDS
    for hand_id, over in overdue_hands(db, table_ids, limit):
        line = f"hand {hand_id} overdue by {over:.0f} s (limit {limit} s)"
        if not any(n.startswith(f"hand {hand_id} ") for n in note):
            note.append(line)


async def chaos_play(spec: ChaosSpec) -> dict:
    """Start the room, let the bots play the phases without and with faults, wind down, stop
    everything. Returns the figures (the books are checked afterwards, with Django)."""
    import psycopg

    rng = random.Random(spec.seed)
    room = Room(spec)
    stats = Stats(window=(0.0, float("inf")))
    bots: list[ChaosBot] = []
    overdue: list[str] = []
    kills: list[dict] = []
    result: dict = {"seed": spec.seed, "log_dir": spec.log_dir}
    db = psycopg.connect(spec.database_url, autocommit=True)
    try:
        await asyncio.gather(*(room.start(name) for name in room.names))
        await seat_bots(spec, room, stats, rng, bots)
        played = await _play_phases(db, spec, room, overdue, kills)
        if spec.baseline_hands:
            result["baseline"] = _phase(*played["baseline"])
        result["faults"] = {**_phase(*played["faults"]), "kills": kills}
        result["wind_down"] = await _wind_down(db, spec, bots, overdue)
    finally:
        room_close(bots, room, db)
    result["overdue"] = overdue
    result["bots"] = {
        "reconnects": sum(bot.reconnects for bot in bots),
        "closes": stats.closes,
        "errors": stats.errors,
        "frames": stats.frames,
    }
    result["ready_seconds"] = round(sum(room.ready_seconds) / len(room.ready_seconds), 2)
    result["log_tracebacks"] = log_tracebacks(spec.log_dir)
    return result


def room_close(bots: list[ChaosBot], room: Room, db) -> None:
    """The end of a run, whatever happened: the bots' sockets dropped for good, the room's
    processes stopped, the bench's database connection closed."""
    for bot in bots:
        bot.closed = True
        bot.drop()
    room.stop_all()
    db.close()


def log_tracebacks(log_dir: str) -> dict[str, int]:
    """The room's logs that hold a traceback, with how many (a clean run has none)."""
    return {
        log.stem: n
        for log in Path(log_dir).glob("*.log")
        if (n := log.read_text(errors="replace").count("Traceback"))
    }


async def seat_bots(
    spec: ChaosSpec, room: Room, stats: Stats, rng: random.Random, bots: list[ChaosBot]
) -> None:
    """Connect each table's bots (appended to `bots` as they connect, so a failure part way
    still closes those connected)."""
    for t in spec.tables:
        seed = TableSeed(**{**t, "bots": [BotSeed(**b) for b in t["bots"]]})
        watch = TableWatch(seed, stats)
        for i, bot_seed in enumerate(seed.bots):
            bot = ChaosBot(bot_seed, watch, room, random.Random(rng.random()))
            watch.bots.append(bot)
            bots.append(bot)
            await connect(bot, room.ports[i % len(room.ports)], seed.table_id)


async def _play_phases(
    db, spec: ChaosSpec, room: Room, overdue: list[str], kills: list[dict]
) -> dict[str, list]:
    """Each round: a share of the baseline hands without faults, then a share of the hands
    with processes killed. Returns {phase: [hands, seconds, every target reached]}."""
    table_ids = [t["table_id"] for t in spec.tables]
    fault_rng = random.Random(spec.seed)
    first = ["worker", "asgi"]
    fault_rng.shuffle(first)
    played: dict[str, list] = {"baseline": [0, 0.0, True], "faults": [0, 0.0, True]}
    for r in range(spec.rounds):

        def share(total: int, r: int = r) -> int:
            return total * (r + 1) // spec.rounds - total * r // spec.rounds

        for phase in ("baseline", "faults"):
            if phase == "baseline" and not spec.baseline_hands:
                continue
            start, began = hand_counts(db, table_ids)["ended"], time.perf_counter()
            if phase == "baseline":
                target = start + share(spec.baseline_hands)
                reached = await until_hands(db, spec, target, room, overdue)
            else:
                stop = asyncio.Event()
                loop = fault_loop(room, fault_rng, stop, kills, first)
                faults = asyncio.create_task(loop)
                try:
                    reached = await until_hands(
                        db, spec, start + share(spec.hands), room, overdue, faults, kills,
                        min_kills=spec.min_kills * (r + 1) // spec.rounds,
                    )  # fmt: skip
                finally:
                    stop.set()
                    await faults
            totals = played[phase]
            totals[0] += hand_counts(db, table_ids)["ended"] - start
            totals[1] += time.perf_counter() - began
            totals[2] = totals[2] and reached
    return played


async def _wind_down(db, spec: ChaosSpec, bots: list[ChaosBot], overdue: list[str]) -> dict:
    """Everyone sits out and plays the hand in progress out; ok when every table is idle with
    its players sat out before the deadline."""
    table_ids = [t["table_id"] for t in spec.tables]
    began = time.perf_counter()
    for bot in bots:
        bot.winding_down = True
    settled = False
    deadline = time.monotonic() + spec.stuck_seconds + OVERDUE_MARGIN_SECONDS + 30
    while time.monotonic() < deadline:
        _note_overdue(db, spec, overdue)
        if idle_and_sat_out(db, table_ids):
            settled = True
            break
        for bot in bots:
            if bot.mirror.shown and bot.ws is not None:
                bot.decide()
        await asyncio.sleep(0.5)
    return {"seconds": round(time.perf_counter() - began, 1), "ok": settled}


def _phase(hands: int, seconds: float, reached: bool) -> dict:
    return {
        "hands": hands,
        "seconds": round(seconds, 1),
        "hands_per_second": round(hands / seconds, 3) if seconds else 0.0,
        "reached": reached,
    }


def play_in_child(spec: ChaosSpec, *, timeout: float) -> dict:
    """Run `chaos_play` in a child process (`--play`): its bots' event loop stays out of the
    test's process, which has Django and daphne's Twisted set up. On a timeout the child
    is stopped, and every room process it had started is killed by its id."""
    log_dir = Path(spec.log_dir)
    log_dir.mkdir(parents=True, exist_ok=True)
    spec_path, out_path = log_dir / "spec.json", log_dir / "result.json"
    spec_path.write_text(json.dumps(asdict(spec)))
    with open(log_dir / "play.log", "w") as log:
        child = subprocess.Popen(
            [sys.executable, "-m", "bench.chaos", "--play", str(spec_path), str(out_path)],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    try:
        child.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        child.terminate()  # its `finally` stops the room
        try:
            child.wait(timeout=20)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
    finally:
        _kill_listed(log_dir / "pids", queue=spec.queue)
    if child.returncode != 0 or not out_path.exists():
        raise RuntimeError(
            f"the chaos run failed (exit {child.returncode}, seed {spec.seed}, logs in "
            f"{log_dir}):\n{_tail(log_dir / 'play.log')}"
        )
    return json.loads(out_path.read_text())


def _kill_listed(pids: Path, *, queue: str) -> None:
    """Kill the process groups a run started and left behind, by their ids: only those still
    running with this run's environment (its own Celery queue), never a process that took a
    freed id since."""
    if not pids.exists():
        return
    marker = f"CELERY_QUEUE={queue}".encode()
    for line in pids.read_text().split():
        try:
            if marker in Path(f"/proc/{line}/environ").read_bytes().split(b"\0"):
                os.killpg(int(line), signal.SIGKILL)
        except (OSError, ProcessLookupError):
            continue


# -- the long form


def _room_env(database_url: str, redis_url: str) -> dict[str, str]:
    import secrets

    return {
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "SECRET_KEY": secrets.token_urlsafe(48),
        "DEBUG": "false",
        "SECURE_SSL_REDIRECT": "false",
        "SECURE_COOKIES": "false",
        "ALLOWED_HOSTS": "*",
        "LOG_LEVEL": "WARNING",
        "CACHE_KEY_PREFIX": f"room-chaos-{os.getpid()}",
        # PUBLISH ignores Redis's database number: a prefix of its own, so other rooms on the
        # same Redis server (test runs, benches) do not hear this one's tables.
        "CHANNEL_LAYER_PREFIX": f"room-chaos-{os.getpid()}",
    }


def _django_child(args: list[str], env: dict[str, str], log: Path) -> None:
    with open(log, "w") as out:
        subprocess.run(
            [sys.executable, "-m", "bench.chaos", *args],
            cwd=ROOT,
            env={
                **os.environ,
                "DJANGO_SETTINGS_MODULE": "config.settings",
                **env,
                "PYTHONPATH": str(ROOT),
            },
            stdout=out, stderr=subprocess.STDOUT, check=True,
        )  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--hands", type=int, default=1000, help="hands to end under faults")
    parser.add_argument("--baseline-hands", type=int, default=200, help="hands without faults")
    parser.add_argument("--rounds", type=int, default=4, help="alternations of the two phases")
    parser.add_argument("--tables", type=int, default=2)
    parser.add_argument("--bots", type=int, default=4, help="bots per table")
    parser.add_argument("--asgi", type=int, default=2, help="daphne processes")
    parser.add_argument("--seed", type=int, default=None, help="of the kills (random if unset)")
    parser.add_argument("--kill-every", type=float, nargs=2, default=(3.0, 7.0))
    parser.add_argument("--frames", type=int, default=20_000, help="malformed frames to send")
    parser.add_argument(
        "--kill",
        choices=["any", "owners"],
        default="any",
        help="owners: kill the ASGI process owning a table mid-hand, timing the resume",
    )
    parser.add_argument(
        "--redis-url", default=os.environ.get("CHAOS_REDIS_URL", "redis://127.0.0.1:6379/7")
    )
    parser.add_argument("--play", nargs=2, metavar=("SPEC", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--seed-only", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--check-only", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--fuzz-only", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if args.play:
        spec = ChaosSpec.from_json(Path(args.play[0]).read_text())
        print(f"chaos seed {spec.seed}; logs in {spec.log_dir}", flush=True)
        if spec.tournament:
            from bench.sng import sng_fault_play

            result = asyncio.run(sng_fault_play(spec))
        else:
            result = asyncio.run(chaos_play(spec))
        Path(args.play[1]).write_text(json.dumps(result))
        return 0
    if args.seed_only or args.check_only or args.fuzz_only:
        return _django_part(args)
    return _long_form(args)


def _django_part(args) -> int:
    """The pieces that need Django, each run in a child of the long form."""
    import django

    django.setup()
    if args.seed_only:
        tables, bots, out = args.seed_only
        seeds = chaos_seed(tables=int(tables), bots=int(bots))
        Path(out).write_text(json.dumps([asdict(t) for t in seeds]))
    elif args.check_only:
        spec = ChaosSpec.from_json(Path(args.check_only[0]).read_text())
        players = [b["user_id"] for t in spec.tables for b in t["bots"]]
        books = books_check(
            table_ids=[t["table_id"] for t in spec.tables],
            player_ids=players,
            deposited=WALLET * len(players),
        )
        Path(args.check_only[1]).write_text(json.dumps(asdict(books)))
    else:
        from bench.frame_fuzz import fuzz_run

        frames, seed, out = args.fuzz_only
        report = asyncio.run(fuzz_run(count=int(frames), seed=int(seed), prefix="chaos-fuzz"))
        Path(out).write_text(json.dumps(asdict(report)))
    return 0


def _long_form(args) -> int:
    from bench.load import migrate, pg_admin

    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(10**9)
    log_dir = LOG_ROOT / time.strftime("%Y%m%d-%H%M%S")
    log_dir.mkdir(parents=True, exist_ok=True)
    database_url = f"{PG_URL}/{DB_NAME}"
    env = _room_env(database_url, args.redis_url)
    print(
        f"# chaos seed {seed}; {os.cpu_count()} cores; {args.tables} tables x {args.bots} bots; "
        f"{args.asgi} daphne, 1 celery worker (solo) with beat; logs in {log_dir}",
        flush=True,
    )
    began = time.perf_counter()
    try:
        pg_admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)", f"CREATE DATABASE {DB_NAME}")
        import redis

        redis.Redis.from_url(args.redis_url).flushdb()
        migrate(database_url, log_dir / "migrate.log")
        seeds_path = log_dir / "seeds.json"
        _django_child(
            ["--seed-only", str(args.tables), str(args.bots), str(seeds_path)],
            env,
            log_dir / "seed.log",
        )
        spec = ChaosSpec(
            database_url=database_url,
            tables=json.loads(seeds_path.read_text()),
            log_dir=str(log_dir),
            hands=args.hands,
            baseline_hands=args.baseline_hands,
            rounds=args.rounds,
            seed=seed,
            asgi=args.asgi,
            kill_every=tuple(args.kill_every),
            timeout=max(600.0, args.hands * 3.0),
            env=env,
            kill=args.kill,
        )
        result = asyncio.run(chaos_play(spec))
        spec_path, books_path = log_dir / "spec.json", log_dir / "books.json"
        spec_path.write_text(json.dumps(asdict(spec)))
        _django_child(["--check-only", str(spec_path), str(books_path)], env, log_dir / "check.log")
        books = json.loads(books_path.read_text())
        fuzz_path = log_dir / "fuzz.json"
        fuzz_began = time.perf_counter()
        _django_child(
            ["--fuzz-only", str(args.frames), str(seed), str(fuzz_path)], env, log_dir / "fuzz.log"
        )
        fuzz = json.loads(fuzz_path.read_text())
        fuzz["wall_seconds"] = time.perf_counter() - fuzz_began
    finally:
        with suppress(Exception):
            pg_admin(f"DROP DATABASE IF EXISTS {DB_NAME} WITH (FORCE)")
    print("\n".join(report_lines(result, books, fuzz, time.perf_counter() - began)))
    ok = not books["problems"] and not result["overdue"] and not fuzz["failures"]
    return 0 if ok else 1


def report_lines(result: dict, books: dict, fuzz: dict, seconds: float) -> list[str]:
    base, faulted = result.get("baseline"), result["faults"]
    kills = faulted["kills"]
    frames_rate = fuzz["sent"] / fuzz["seconds"]
    by_process: dict[str, int] = {}
    for kill in kills:
        kind = "worker" if kill["process"] == "worker" else "asgi"
        by_process[kind] = by_process.get(kind, 0) + 1
    lines = [
        f"hands without faults {base['hands']:5d} in {base['seconds']:7.1f} s  "
        f"{base['hands_per_second']:.3f} hands/s"
        if base
        else "no baseline phase",
        f"hands under faults   {faulted['hands']:5d} in {faulted['seconds']:7.1f} s  "
        f"{faulted['hands_per_second']:.3f} hands/s"
        + (
            f"  ratio faults/no faults {faulted['hands_per_second'] / base['hands_per_second']:.2f}"
            if base and base["hands_per_second"]
            else ""
        ),
        f"kills {len(kills)} ({', '.join(f'{k} {n}' for k, n in sorted(by_process.items()))}); "
        f"mean down time {sum(k['down_seconds'] for k in kills) / max(1, len(kills)):.1f} s "
        f"(start to ready {result['ready_seconds']:.1f} s); bot reconnects "
        f"{result['bots']['reconnects']}",
        *(
            [
                "owners killed mid-hand: play resumed after "
                + ", ".join(f"{k['resume_seconds']}" for k in kills)
                + " s (the lapsed lease taken, the table rebuilt from the database)"
            ]
            if any("resume_seconds" in k for k in kills)
            else []
        ),
        f"hands finished {books['finished']}, cancelled {books['cancelled']} "
        f"{books['cancel_codes'] or ''}, still running {books['running']}; longest pause "
        f"between hand ends at a table {books['longest_pause_seconds']:.1f} s; wind-down "
        f"{result['wind_down']['seconds']} s",
        f"ledger verified: {'yes' if not books['problems'] else 'NO'} "
        f"({books['ledger_entries']} entries; held {books['held']:,} of {books['deposited']:,} "
        f"cents deposited; stacks marked in a hand {books['marked_stacks']})",
        f"bot errors {result['bots']['errors'] or 0}; closes {result['bots']['closes'] or 0}; "
        f"overdue hands {result['overdue'] or 0}; tracebacks in logs "
        f"{result['log_tracebacks'] or 0}",
        f"frames fuzzed {fuzz['sent']:,} in {fuzz['seconds']:.1f} s ({frames_rate:,.0f}/s; "
        f"ping round trips {fuzz['ping_per_second']:,.0f}/s, ratio "
        f"{frames_rate / fuzz['ping_per_second']:.2f}); "
        f"failures {len(fuzz['failures'])}; codes {fuzz['codes']}",
        f"total time {seconds:.0f} s",
    ]
    for problem in books["problems"][:20]:
        lines.append(f"  books: {problem}")
    for failure in fuzz["failures"][:20]:
        lines.append(f"  frame: {failure}")
    return lines


if __name__ == "__main__":
    sys.exit(main())
