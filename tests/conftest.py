"""Fixtures shared by every app's tests: players, logged-in clients, a real Celery worker."""

import contextlib
import copy
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import hypothesis
import pytest
from django.conf import settings
from django.db import connection
from django.test import Client

from tests.cashier.app_role import app_role  # noqa: F401 (a fixture the ledger's and the audit log's tests share)
from tests.factories import (
    channel_layer_addresses,
    lobby_listening,
    make_player,
    make_table,
)

REPO_ROOT = Path(__file__).resolve().parent.parent

# Hypothesis's timing checks (a 200 ms deadline per example, "input generation is slow") measure
# the machine, not the code: on two busy cores they failed tests whose properties held. Every
# property test runs under this profile; a test's own @settings still sets its examples.
hypothesis.settings.register_profile(
    "room", deadline=None, suppress_health_check=[hypothesis.HealthCheck.too_slow]
)
hypothesis.settings.load_profile("room")


def pytest_configure(config):
    """Passwords hash quickly in the test processes (tests/passwords.py); the production
    hasher stays second, to verify hashes made the production way. `make durations` records
    the files' times (PYTEST_DURATIONS_OUT), in the controlling process only."""
    # Popped: a test that runs pytest in a subprocess must not write the record too.
    record = os.environ.pop("PYTEST_DURATIONS_OUT", None)
    if record and not hasattr(config, "workerinput"):
        config.pluginmanager.register(DurationsRecorder(Path(record)), "room-durations")
    from django.test.utils import override_settings

    override_settings(
        PASSWORD_HASHERS=[
            "tests.passwords.QuickPBKDF2PasswordHasher",
            *settings.PASSWORD_HASHERS,
        ]
    ).enable()
    _flush_by_delete()


# Tables whose rows Django's post_migrate makes again, the same, after every flush; the flush
# by DELETE keeps them, so post_migrate finds them there and writes nothing.
FLUSH_KEEPS = frozenset({"django_content_type", "auth_permission"})

# A schema of each test database holding a copy of every row the data migrations left (the
# paytables, the Showdown tables, the staff roles and their permissions, the audit chain's
# head), made before any test ran (`django_db_setup` below); the flush by DELETE puts them back.
MIGRATED_ROWS = "test_migrated_rows"

# What this process's flushes found: the tables copied in MIGRATED_ROWS, and whether the last
# flush was the DELETE that put them back (else a TRUNCATE, and post_migrate and
# `migration_data_reload` must make them again).
_flushing = {"copied": frozenset(), "restored": False}


def _flush_by_delete() -> None:
    """A transactional test ends with Django's flush, a TRUNCATE of every table: on PostgreSQL
    that makes new files for ~50 tables and their indexes, 1-2 s a test on a busy machine, and
    post_migrate then inserts the content types and permissions again in ~30 commits. The few
    rows a test leaves go faster with DELETE (~10 ms), after taking TRUNCATE's lock and with
    the tables' triggers off (the ledger's and the audit log's immutability triggers, and the
    foreign keys, which TRUNCATE skips too); in the same transaction the data migrations' rows
    come back from MIGRATED_ROWS, so nothing is left to reload and post_migrate (~200 ms of
    queries that find every content type and permission there) is skipped. That needs a
    superuser, as the tests' PostgreSQL role is; otherwise, or when a test resets sequences,
    the flush stays Django's TRUNCATE, followed by post_migrate and `migration_data_reload`."""
    from django.core.management.commands import flush
    from django.db.backends.postgresql.operations import DatabaseOperations

    truncate = DatabaseOperations.sql_flush

    def sql_flush(self, style, tables, *, reset_sequences=False, allow_cascade=False):
        _flushing["restored"] = False
        if not tables or reset_sequences or not _superuser(self.connection):
            # post_migrate makes the content types and permissions anew, with new ids: the
            # copied roles' permissions would name the old ones. The reload serves from now on.
            if tables:
                _flushing["copied"] = frozenset()
            return truncate(
                self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
            )
        kept = sorted(table for table in tables if table not in FLUSH_KEEPS)
        emptied = [self.quote_name(table) for table in kept]
        restored = [table for table in kept if table in _flushing["copied"]]
        _flushing["restored"] = bool(_flushing["copied"])
        return [
            "SET LOCAL session_replication_role = replica",
            # TRUNCATE's lock: a server or worker still writing commits first, then goes too.
            f"LOCK TABLE {', '.join(emptied)} IN ACCESS EXCLUSIVE MODE",
            *(f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(table)}" for table in emptied),
            *(
                f"INSERT INTO {self.quote_name(table)} "
                f"SELECT * FROM {MIGRATED_ROWS}.{self.quote_name(table)}"
                for table in restored
            ),
        ]

    emit_post_migrate_signal = flush.emit_post_migrate_signal

    def post_migrate_unless_restored(*args, **kwargs):
        if not _flushing["restored"]:
            emit_post_migrate_signal(*args, **kwargs)

    DatabaseOperations.sql_flush = sql_flush
    DatabaseOperations.execute_sql_flush = _flush_again_after_a_deadlock(
        DatabaseOperations.execute_sql_flush
    )
    flush.emit_post_migrate_signal = post_migrate_unless_restored


def _migrated_rows_copy() -> None:
    """Copy every row of the migrated database into MIGRATED_ROWS (PostgreSQL, as a superuser:
    where the flush is the DELETE that puts them back)."""
    if not _superuser(connection):
        return
    schema = MIGRATED_ROWS
    copied = set()
    with connection.cursor() as cursor:
        cursor.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
        cursor.execute(f"CREATE SCHEMA {schema}")
        for table in connection.introspection.django_table_names(only_existing=True):
            if table in FLUSH_KEEPS:
                continue
            name = connection.ops.quote_name(table)
            cursor.execute(f"SELECT EXISTS (SELECT FROM {name})")
            if cursor.fetchone()[0]:
                cursor.execute(f"CREATE TABLE {schema}.{name} AS TABLE {name}")
                copied.add(table)
    _flushing["copied"] = frozenset(copied)


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """pytest-django's test database (migrated, or a clone of the migrated one), with a copy
    of the rows its data migrations left, made before any test runs (see `_flush_by_delete`)."""
    with django_db_blocker.unblock():
        _migrated_rows_copy()


FLUSH_TRIES = 5

# How long a test's own daphne or Celery worker may take to start: importing Django and the
# room takes 2-3 s on a quiet machine and over 30 s on two cores under a load of 15; a process
# that exits stops the wait at once.
PROCESS_START_SECONDS = 180


def _flush_again_after_a_deadlock(execute_sql_flush):
    """A server or worker of the test may still be in a transaction when the test ends (a
    closed page's goodbye, a timer): it holds one table and may then ask for another that the
    flush's lock already took. PostgreSQL breaks that deadlock by failing one of the two; when
    it fails the flush, the flush runs again once the other has finished, instead of the test
    watching the database for a quiet moment first."""
    from django.db.utils import OperationalError
    from psycopg import errors

    def execute(self, sql_list):
        for attempt in range(1, FLUSH_TRIES + 1):
            try:
                return execute_sql_flush(self, sql_list)
            except OperationalError as error:
                if attempt == FLUSH_TRIES or not isinstance(
                    error.__cause__, errors.DeadlockDetected
                ):
                    raise

    return execute


def _superuser(connection) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_setting('is_superuser') = 'on'")
        return cursor.fetchone()[0]


@pytest.fixture
def auditor(db):
    """An API client of a member of the auditors group (the ledger's, audit log's and hands'
    exports)."""
    from django.contrib.auth.models import Group
    from rest_framework.test import APIClient

    user = make_player("audrey")
    # get_or_create: a transactional test before this one may have flushed the migration's group
    user.groups.add(Group.objects.get_or_create(name="auditors")[0])
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def player(db):
    return make_player("alice")


@pytest.fixture
def other_player(db):
    return make_player("bob")


@pytest.fixture
def table(db):
    """A pot-limit Omaha $0.50/$1 table (buy-in $50 to $100)."""
    return make_table()


@pytest.fixture
def player_client(client, player):
    client.force_login(player, backend="django.contrib.auth.backends.ModelBackend")
    return client


# Under pytest-xdist every worker would build its own test database by running all the
# migrations (the paytables' data migration included). Instead, as Django's own parallel runner
# does, the controlling process migrates one test database and clones it for each worker
# (PostgreSQL's CREATE DATABASE ... TEMPLATE); a worker keeps the clone it finds and drops it at
# the end. A worker with no clone (one xdist started to replace a crashed one) builds its
# database as usual.
CLONED_DATABASE = "room_cloned_test_database"


def _xdist_workers(config) -> int:
    """How many workers this (controlling) process starts; 0 when it runs the tests itself."""
    if hasattr(config, "workerinput") or config.getoption("dist", "no") == "no":
        return 0
    return len(config.getoption("tx") or [])


# How long each test file took in a whole run (seconds, all its tests' setup, call and
# teardown), written by `make durations`. Only the order the files are handed out in reads it:
# a stale or missing figure makes a run longer, never wrong.
DURATIONS = Path(__file__).with_name("durations.json")
# A file the record does not know yet (new since it was written) counts this much per test.
UNRECORDED_SECONDS_PER_TEST = 1.0


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    """The order pytest-xdist hands out the test files in (`--dist loadfile` with
    `--no-loadscope-reorder`, Makefile): the longest first, by the recorded durations. A long
    file handed out last would end the run alone on one worker while the others sit idle; the
    short ones at the end fill the workers up evenly. Last of the hooks, after pytest-django's
    own order (tests in transactions before the others), which each file keeps."""
    recorded = json.loads(DURATIONS.read_text()) if DURATIONS.exists() else {}
    files: dict[str, list] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)

    def seconds(path: str) -> float:
        return recorded.get(path, UNRECORDED_SECONDS_PER_TEST * len(files[path]))

    items[:] = [item for path in sorted(files, key=seconds, reverse=True) for item in files[path]]


class DurationsRecorder:
    """`make durations`: adds up each file's time in the controlling process (which sees every
    worker's reports) and writes tests/durations.json at the end of the run."""

    def __init__(self, path: Path):
        self.path = path
        self.seconds: dict[str, float] = {}

    def pytest_runtest_logreport(self, report):
        path = report.nodeid.split("::", 1)[0]
        self.seconds[path] = self.seconds.get(path, 0.0) + report.duration

    def pytest_sessionfinish(self, session):
        ordered = dict(sorted(self.seconds.items(), key=lambda row: row[1], reverse=True))
        rounded = {path: round(seconds, 1) for path, seconds in ordered.items()}
        self.path.write_text(json.dumps(rounded, indent=1) + "\n")


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    """Migrate one test database and clone it once per worker, before xdist starts them."""
    config = session.config
    workers = _xdist_workers(config)
    if not workers:
        return
    from pytest_django.plugin import blocking_manager_key

    collecting = _rewritten_tests_cache(config)
    with config.stash[blocking_manager_key].unblock():
        config.room_template_name = connection.settings_dict["NAME"]
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        for number in range(workers):
            connection.creation.clone_test_db(suffix=f"gw{number}", verbosity=0)
    if collecting is not None:
        collecting.wait()


def _rewritten_tests_cache(config) -> subprocess.Popen | None:
    """Every worker imports every test module, and pytest rewrites each module's asserts first
    (about 10 s of CPU a process, 4,500 asserts) unless it finds them rewritten in
    `__pycache__`. On a new checkout none are, and the workers would all rewrite the same
    modules at once on two cores; so one collection in a child process writes them while this
    process migrates the database, and the workers start from the cache. Where Python may not
    write bytecode (PYTHONDONTWRITEBYTECODE, as the Makefile's test target lifts) nothing can
    be cached and nothing is started."""
    if sys.dont_write_bytecode:
        return None
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:xdist"]
    command += ["-p", "no:cacheprovider", *config.args]
    return subprocess.Popen(
        command, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )


@pytest.hookimpl(optionalhook=True)  # an xdist hook: pytest -p no:xdist runs without it
def pytest_configure_node(node):
    """Tell each worker that its database is a clone waiting for it."""
    node.workerinput[CLONED_DATABASE] = hasattr(node.config, "room_template_name")


def pytest_sessionfinish(session):
    config = session.config
    if not hasattr(config, "room_template_name"):
        return
    from pytest_django.plugin import blocking_manager_key

    with config.stash[blocking_manager_key].unblock():
        _test_database_drop(connection.settings_dict["NAME"])


@pytest.fixture(scope="session")
def django_db_keepdb(request, django_db_blocker):
    """A worker keeps its cloned database (Django migrates nothing: it is all applied) and
    drops it itself once the session's other fixtures are done with it."""
    cloned = getattr(request.config, "workerinput", {}).get(CLONED_DATABASE, False)
    if not cloned:
        yield request.config.getvalue("reuse_db") and not request.config.getvalue("create_db")
        return
    yield True
    with django_db_blocker.unblock():
        _test_database_drop(connection.settings_dict["NAME"])


def _test_database_drop(name: str) -> None:
    """Drop a test database even while a connection is still open on it: a socket's database
    thread or a Celery worker or daphne of the session may not have closed theirs yet, and a
    plain DROP DATABASE then fails the session's last test ("being accessed by other users")."""
    connection.close()
    with connection._nodb_cursor() as cursor:
        cursor.execute(f"DROP DATABASE IF EXISTS {connection.ops.quote_name(name)} WITH (FORCE)")


def _database_url_of_test_db() -> str:
    db = connection.settings_dict
    if db["ENGINE"] != "django.db.backends.postgresql":
        pytest.skip("a real Celery worker needs the PostgreSQL test database")
    host, port = db.get("HOST") or "127.0.0.1", db.get("PORT") or 5432
    return f"postgres://{db['USER']}@{host}:{port}/{db['NAME']}"


def spawn_celery_worker(
    *,
    database_url: str,
    queue: str,
    log_path: Path,
    name: str = "test",
    beat: bool = False,
    env: dict | None = None,
) -> subprocess.Popen:
    """Start a real `celery worker` (optionally with an embedded beat) on `queue` and wait
    until it is ready. The caller stops it."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "CELERY_QUEUE": queue,
        **(env or {}),
    }
    command = [
        sys.executable, "-m", "celery", "-A", "config", "worker",
        "--pool", "solo", "--concurrency", "1", "--loglevel", "INFO",
        "--queues", queue,
        "--hostname", f"{name}-{os.getpid()}@%h",
        "--without-mingle", "--without-gossip",
    ]  # fmt: skip
    if beat:
        command += ["--beat", "--schedule", str(log_path.with_suffix(".beat"))]
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=log, stderr=log)
    deadline = time.monotonic() + PROCESS_START_SECONDS
    while "ready." not in log_path.read_text():
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"the Celery worker did not start:\n{log_path.read_text()[-3000:]}")
        time.sleep(0.2)
    process.log_path = log_path
    return process


@pytest.fixture(scope="session")
def celery_worker_process(django_db_setup, django_db_blocker, tmp_path_factory):
    """A real `celery worker` process on the Redis broker, using the test database.

    Tests that use it must commit their data (`transactional_db`) so the worker sees it.
    """
    if settings.CELERY_BROKER_URL.startswith("memory://"):
        pytest.skip("a real Celery worker needs REDIS_URL (the Redis broker)")
    with django_db_blocker.unblock():
        database_url = _database_url_of_test_db()
    log_path = tmp_path_factory.mktemp("celery") / "worker.log"
    process = spawn_celery_worker(
        database_url=database_url, queue=settings.CELERY_TASK_DEFAULT_QUEUE, log_path=log_path
    )
    process.log_path = log_path
    yield process
    _stop(process)


def _stop(process: subprocess.Popen) -> None:
    """Ask a server process to stop; kill it if it has not within 15 seconds."""
    process.terminate()
    try:
        process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def asgi_server(django_db_setup, django_db_blocker, tmp_path_factory):
    """The room served by a real `daphne` process (pages, static files, WebSockets) on a free
    port, using the test database and the Redis channel layer. Yields its base URL.

    Tests that use it must commit their data (`transactional_db`) so the server sees it; add
    `celery_worker_process` when timers or the next hand matter.
    """
    if settings.EMBEDDED:
        pytest.skip("a separate ASGI server needs REDIS_URL (the Redis channel layer)")
    with django_db_blocker.unblock():
        database_url = _database_url_of_test_db()
    log_path = tmp_path_factory.mktemp("daphne") / "daphne.log"
    process, base_url = spawn_daphne(database_url=database_url, log_path=log_path)
    yield base_url
    _stop(process)


@pytest.fixture(scope="session")
def asgi_server_quick_runout(django_db_setup, django_db_blocker, tmp_path_factory):
    """Another daphne like `asgi_server`, its pauses for an all-in runout and a showdown a tenth
    as long (POKER_SHOWDOWN_PAUSE_SCALE; the table page turns the streets over at that pace):
    for a browser test that watches what a runout shows, not how long it takes. Pass it to
    `signed_in_page(..., base_url=)`."""
    if settings.EMBEDDED:
        pytest.skip("a separate ASGI server needs REDIS_URL (the Redis channel layer)")
    with django_db_blocker.unblock():
        database_url = _database_url_of_test_db()
    log_path = tmp_path_factory.mktemp("daphne-quick") / "daphne.log"
    process, base_url = spawn_daphne(
        database_url=database_url, log_path=log_path, env={"POKER_SHOWDOWN_PAUSE_SCALE": "0.1"}
    )
    yield base_url
    _stop(process)


def spawn_daphne(
    *, database_url: str, log_path: Path, env: dict | None = None
) -> tuple[subprocess.Popen, str]:
    """Start a real `daphne` (the documented command line, no proxy flags) serving
    tests.live_asgi on a free port of 127.0.0.1, with `env` on top of ours, and wait until it
    answers. Returns the process and its base URL; the caller stops it."""
    port = _free_port()
    env = {**os.environ, "DATABASE_URL": database_url, **(env or {})}
    command = [
        sys.executable,
        "-m",
        "daphne",
        "--bind",
        "127.0.0.1",
        "--port",
        str(port),
        "tests.live_asgi:application",
    ]
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=log, stderr=log)
    base_url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + PROCESS_START_SECONDS
    while True:
        try:
            with urllib.request.urlopen(f"{base_url}/accounts/login/", timeout=2):
                break
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"daphne did not start:\n{log_path.read_text()[-3000:]}")
            time.sleep(0.2)
    process.log_path = log_path
    return process, base_url


@pytest.fixture
def asgi_server_factory(transactional_db, tmp_path):
    """`asgi_server_factory(env={...})`: another real daphne, like `asgi_server` but with its
    own settings from `env` (e.g. TRUSTED_PROXIES); yields its base URL. Stopped afterwards."""
    if settings.EMBEDDED:
        pytest.skip("a separate ASGI server needs REDIS_URL (the Redis channel layer)")
    database_url = _database_url_of_test_db()
    started: list[subprocess.Popen] = []

    def start(*, env: dict | None = None) -> str:
        log_path = tmp_path / f"daphne-{len(started)}.log"
        process, base_url = spawn_daphne(database_url=database_url, log_path=log_path, env=env)
        started.append(process)
        return base_url

    yield start
    for process in started:
        _stop(process)


@pytest.fixture
def channel_layer_of_its_own(settings) -> str:
    """A channel layer of the test's own (its prefix, returned): the suite's daphne
    (`asgi_server`) is a live owner announced in this database, and on a shared layer it would
    be chosen for the test's tables (poker.owner.owner_for); on another layer it is not
    (`on_this_layer`)."""
    layers = copy.deepcopy(settings.CHANNEL_LAYERS)
    config = layers["default"].setdefault("CONFIG", {})
    config["prefix"] = f"{config.get('prefix', 'asgi')}-owner-test"
    settings.CHANNEL_LAYERS = layers
    return config["prefix"]


@pytest.fixture
async def owner_routing(settings, channel_layer_of_its_own):
    """Table owners on (poker/owner.py) with a short lease; what this process remembers of
    who holds which table is forgotten before and after, and its owner stopped (the poker and
    live Showdown owner tests)."""
    from config import leases
    from poker import owner

    if settings.EMBEDDED:
        pytest.skip("owners route over the Redis channel layer (REDIS_URL)")
    settings.POKER_OWNER_ROUTING = True
    settings.POKER_TABLE_LEASE_SECONDS = 1.5
    owner._holders.clear()
    owner._owners_seen = ([], 0.0)
    # An owner an earlier test started on a loop that has closed since (a socket's test
    # without this fixture) left its name as this process's lease name: not an owner now.
    if owner.owner_channel() is None:
        leases.owner_identity_set(None)
    yield
    await owner.owner_stop()
    owner._holders.clear()
    owner._owners_seen = ([], 0.0)


@pytest.fixture(autouse=True)
def default_language():
    """Each test starts in the room's default language: Django's test client leaves the last
    request's language active in the thread (LocaleMiddleware activates, nothing deactivates),
    so a page visited in Japanese would otherwise turn the next test's messages Japanese."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


@pytest.fixture(autouse=True)
def fresh_rate_limits(monkeypatch):
    """Each test counts rate limits afresh: the counters live in the shared cache (Redis) for
    an hour or more, so the same login page or address posted by earlier tests or runs would
    otherwise count against this one. Servers a test starts keep the usual keys."""
    import uuid

    from config import ratelimit

    monkeypatch.setattr(ratelimit, "KEY_PREFIX", f"ratelimit-test-{uuid.uuid4().hex}")


@pytest.fixture(autouse=True)
def no_table_owner_in_the_test_process(settings):
    """The test process is one process with a new event loop per test: its sockets
    (Channels' communicator) run every command where it arrives. The daphne processes the
    tests start run table owners (poker/owner.py), and tests/poker/test_owner.py routes
    between them."""
    settings.POKER_OWNER_ROUTING = False


@pytest.fixture(autouse=True)
def fresh_channel_layer():
    """A new channel-layer instance per test: each async test has its own event loop, and
    channels-redis's locks and pools belong to the loop that made them."""
    from channels.layers import channel_layers

    channel_layers.backends.clear()
    yield
    channel_layers.backends.clear()


@pytest.fixture
def lobby_hears(django_capture_on_commit_callbacks):
    """`lobby_hears(change)`: make the change (a function), commit it as far as its
    after-commit sends go, and return what lobby pages heard of it (`LobbyEars.heard()`).
    The timers the changes set wait in a queue of the test's own, dropped after it (no
    worker of a later test finds them)."""
    import uuid

    from django.test import override_settings

    if not channel_layer_addresses():
        pytest.skip("listens on the Redis channel layer (REDIS_URL)")
    queue = f"lobby-test-{uuid.uuid4().hex[:8]}"
    with lobby_listening() as ears, override_settings(CELERY_TASK_DEFAULT_QUEUE=queue):

        def hears(change) -> list[dict]:
            with django_capture_on_commit_callbacks(execute=True):
                change()
            return ears.heard()

        yield hears
    if settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
        import redis

        client = redis.Redis.from_url(settings.CELERY_BROKER_URL)
        client.delete(queue)
        client.close()


@pytest.fixture
def celery_worker_factory(transactional_db, tmp_path):
    """Start extra real workers (e.g. to kill one with SIGKILL); all are stopped afterwards."""
    if settings.CELERY_BROKER_URL.startswith("memory://"):
        pytest.skip("a real Celery worker needs REDIS_URL (the Redis broker)")
    database_url = _database_url_of_test_db()
    started: list[subprocess.Popen] = []

    def start(*, queue: str, name: str, beat: bool = False, env: dict | None = None):
        process = spawn_celery_worker(
            database_url=database_url,
            queue=queue,
            log_path=tmp_path / f"{name}.log",
            name=name,
            beat=beat,
            env=env,
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            _stop(process)


# Debian's headless build of Chromium (package chromium-headless-shell, what Playwright itself
# runs headless), about a fifth less CPU than the full browser in headless mode; the full one
# where only it is installed.
CHROMIUM = next(
    (
        path
        for path in ("/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium")
        if Path(path).exists()
    ),
    "/usr/bin/chromium",
)


@pytest.fixture(scope="session")
def chromium_process():
    """One Playwright driver and one Chromium per test process, started by the first browser
    module that asks (`chromium`) and stopped when the session ends: a driver start and a
    browser launch cost a second or so each module (30 modules), the pages' browser contexts
    keep the modules apart. Returns a function giving the browser and the driver's event loop,
    which it launches again should it have gone (a crash)."""
    if not Path(CHROMIUM).exists():
        pytest.skip("Debian's chromium is not installed")
    sync_api = pytest.importorskip("playwright.sync_api")
    import asyncio

    started: dict = {}

    def browser_and_loop():
        if "playwright" not in started:
            started["playwright"] = sync_api.sync_playwright().start()
            # Between its calls Playwright's sync API marks its loop as this thread's running
            # one: noted here, and unmarked while no browser module runs (`chromium`).
            started["loop"] = asyncio.get_running_loop()
        if "browser" not in started or not started["browser"].is_connected():
            playwright = started["playwright"]
            started["browser"] = playwright.chromium.launch(executable_path=CHROMIUM, headless=True)
        return started["browser"], started["loop"]

    yield browser_and_loop
    if "playwright" in started:
        asyncio._set_running_loop(started["loop"])
        try:
            if started["browser"].is_connected():
                started["browser"].close()
            started["playwright"].stop()
        finally:
            asyncio._set_running_loop(None)


@pytest.fixture(scope="module")
def chromium(chromium_process):
    """Debian's Chromium, headless, through Playwright (`.ci/chromium` installs it).

    Playwright's sync API keeps an event loop open in this thread, which Django takes for async
    code; the tests' own database calls are plain synchronous ones, so they are let through.
    Module scope: while that loop runs, pytest-asyncio cannot run async tests in this thread,
    so when the test module ends the loop is marked as not running (Playwright's own marker,
    `asyncio._set_running_loop`, which it sets again after each call) and every browser
    context a test left open is closed, before other modules' socket tests. The driver and the
    browser stay for the next browser module (`chromium_process`).
    """
    import asyncio

    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        browser, loop = chromium_process()
        asyncio._set_running_loop(loop)  # as the module's own driver had it, all along
        try:
            yield browser
        finally:
            asyncio._set_running_loop(loop)
            try:
                for context in browser.contexts if browser.is_connected() else []:
                    context.close()
            finally:
                asyncio._set_running_loop(None)
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def signed_in_page(chromium, asgi_server):
    """`signed_in_page(player, viewport)`: a page on `asgi_server` (or on `base_url`, another
    server's), in its own browser context carrying the player's session cookie. `page.errors`
    collects uncaught script errors. Close the pages (`page.context.close()`) before the test
    ends."""

    def open_page(player, viewport: dict, base_url: str | None = None):
        server = base_url or asgi_server
        client = Client()
        client.force_login(player, backend="django.contrib.auth.backends.ModelBackend")
        context = chromium.new_context(viewport=viewport, base_url=server)
        context.add_cookies(
            [
                {
                    "name": settings.SESSION_COOKIE_NAME,
                    "value": client.cookies[settings.SESSION_COOKIE_NAME].value,
                    "url": server,
                }
            ]
        )
        # What a page waits for comes in a second or two; the bound is for two busy cores (a
        # countdown's timeout waited more than 15 s at load 16). A passing test never waits it.
        context.set_default_timeout(30_000)
        page = context.new_page()
        page.errors = []
        page.on("pageerror", lambda error: page.errors.append(str(error)))
        return page

    return open_page


@pytest.fixture
def pooled_connections_taken(transactional_db):
    """`with pooled_connections_taken():` lends out every connection of this process's database
    pool and makes a wait for one give up after `timeout` seconds, so views, sockets and services
    here meet the real `PoolTimeout` of an exhausted pool. Inside, only connections a thread
    already holds work (this thread's does)."""
    from psycopg_pool import PoolTimeout

    connection.ensure_connection()  # opens the pool, and this thread keeps its connection
    pool = connection.pool
    if pool is None:
        pytest.skip("needs PostgreSQL's connection pool")

    @contextlib.contextmanager
    def take(timeout: float = 0.3):
        held = []
        configured = pool.timeout
        try:
            while True:
                try:
                    held.append(pool.getconn(timeout=1))
                except PoolTimeout:
                    break
            pool.timeout = timeout
            yield
        finally:
            pool.timeout = configured
            for taken in held:
                pool.putconn(taken)

    return take


@pytest.fixture
def live_database_url(transactional_db) -> str:
    """The test database's URL, for server processes a test starts and kills itself (the fault
    runs of bench/chaos.py); the test's data must be committed, hence `transactional_db`."""
    return _database_url_of_test_db()


def _flushes_the_database(item) -> bool:
    """Whether the test ends with Django's flush (a transactional test: its data is committed)."""
    marker = item.get_closest_marker("django_db")
    if marker and (marker.kwargs.get("transaction") or marker.kwargs.get("reset_sequences")):
        return True
    return "transactional_db" in getattr(item, "fixturenames", ())


# What the data migrations stored, read from the migrated database before the first flush of
# this process (see `pytest_runtest_setup`): the paytables' figures (which take the engine's
# calculator ~7 s to compute again) and the staff roles' permissions.
_migrated: dict = {}


def migration_data_capture() -> None:
    """Note the paytables' figures and the staff roles' permissions as the migrations left
    them, once per process, if they are all there."""
    from django.contrib.auth.models import Group

    from poker.engine.showdown_paytables import PAYTABLES
    from showdown.models import Paytable

    if "figures" not in _migrated:
        figures = {
            line["name"]: line
            for line in Paytable.objects.values("name", "edge", "edge_pct", "hit_rate_pct")
        }
        if all(table.name in figures for table in PAYTABLES):
            _migrated["figures"] = figures
    if "roles" not in _migrated:
        # by name: a TRUNCATE (a test resetting sequences) makes the permissions anew
        roles = {
            group.name: sorted(
                (p.content_type.app_label, p.codename) for p in group.permissions.all()
            )
            for group in Group.objects.filter(name__in=_role_names()).prefetch_related(
                "permissions__content_type"
            )
        }
        if len(roles) == len(_role_names()) and all(roles.values()):
            _migrated["roles"] = roles


def _role_names() -> list[str]:
    from importlib import import_module

    return list(import_module("staff.migrations.0002_roles").ROLES)


def _paytable_figures() -> dict:
    if "figures" not in _migrated:
        from poker.engine.showdown_math import report
        from poker.engine.showdown_paytables import PAYTABLES

        _migrated["figures"] = {line["name"]: line for line in report(PAYTABLES)["paytables"]}
    return _migrated["figures"]


def migration_data_load() -> None:
    """Load again the paytables and Showdown tables showdown's data migration loads, the
    auditors group, and the staff roles as their migrations left them. The roles' permission
    rows go in without m2m signals, as in the migrations (whose historical models no receiver
    hears): the migrated database holds no audit record of them, and neither does this. (A
    flush keeps the permissions themselves: FLUSH_KEEPS.) When the roles were not captured,
    `make_staff` makes them inside its test."""
    from importlib import import_module
    from unittest import mock

    from django.apps import apps
    from django.contrib.auth.models import Group, Permission

    import poker.engine.showdown_math

    figures = _paytable_figures()  # from the migrated database or computed, before the patch

    def cached_report(paytables):
        return {"paytables": list(figures.values())}

    with mock.patch.object(poker.engine.showdown_math, "report", cached_report):
        import_module("showdown.migrations.0002_paytables_and_tables").load(apps, None)
    import_module("cashier.migrations.0003_auditors_group").create_group(apps, None)
    pks = {
        (p.content_type.app_label, p.codename): p.pk
        for p in Permission.objects.select_related("content_type")
    }
    for name, permissions in _migrated.get("roles", {}).items():
        group, _ = Group.objects.get_or_create(name=name)
        if not group.permissions.exists():
            Group.permissions.through.objects.bulk_create(
                Group.permissions.through(group=group, permission_id=pks[key])
                for key in permissions
            )


def migration_data_reload() -> None:
    """`migration_data_load` on a connection of its own, in a thread of its own: the test that
    just ended may have left a socket's database thread still finishing on this thread's
    connection, and a command sent beside it breaks the connection for every later test."""
    failure: list[BaseException] = []

    def load() -> None:
        try:
            migration_data_load()
        except BaseException as error:  # handed to the caller's thread
            failure.append(error)
        finally:
            connection.close()

    loader = threading.Thread(target=load, name="migration-data-reload")
    loader.start()
    loader.join()
    if failure:
        raise failure[0]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_setup(item):
    """Before the first flush of this process, note what the data migrations stored."""
    outcome = yield
    if (
        outcome.excinfo
        or _migrated.keys() >= {"figures", "roles"}
        or not _flushes_the_database(item)
    ):
        return
    from pytest_django.plugin import blocking_manager_key

    with item.config.stash[blocking_manager_key].unblock():
        migration_data_capture()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_teardown(item, nextitem):
    """A transactional test ends with a flush that empties every table, the rows the data
    migrations loaded included. Tests that run after it in the same process (pytest-xdist
    shares files among processes in no fixed order) expect those rows: load them again, unless
    the flush put them back itself (`_flush_by_delete`)."""
    _flushing["restored"] = False
    yield
    if nextitem is None or not _flushes_the_database(item) or _flushing["restored"]:
        return
    from pytest_django.plugin import blocking_manager_key

    with item.config.stash[blocking_manager_key].unblock():
        migration_data_reload()


@pytest.fixture(autouse=True)
def fresh_table_memory():
    """Each test starts with no table in the process's memory (poker/services/unit.py): a
    table id and version of an earlier test's database must not be recalled in this one."""
    from poker.services.unit import memory_forget

    memory_forget()
    yield
    memory_forget()
