"""A Celery worker started as docs/operations.md starts it survives Redis restarting in its
first seconds (celery/kombu#582) and takes tasks afterwards, and survives Redis killed while it
holds pending turn timers (config/broker.py)."""

import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import suppress
from datetime import datetime, timedelta

import pytest
from celery import Celery
from django.db.models import F
from django.utils import timezone

from poker import services
from poker.engine.hand import Hand as EngineHand
from poker.models import Hand, Table
from tests.conftest import REPO_ROOT, _free_port
from tests.factories import make_seated_player, make_table

pytestmark = pytest.mark.chaos


def _redis_start(port: int, workdir) -> None:
    """A private, throw-away Redis on `port` (never the shared one: others use it)."""
    subprocess.run(
        ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
         "--appendonly", "no", "--daemonize", "yes", "--dir", str(workdir),
         "--pidfile", str(workdir / f"redis-{port}.pid"),
         "--logfile", str(workdir / f"redis-{port}.log")],
        check=True,
    )  # fmt: skip
    deadline = time.monotonic() + 10
    while (
        subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).stdout
        != b"PONG\n"
    ):
        assert time.monotonic() < deadline, "the private Redis did not start"
        time.sleep(0.05)


def _redis_stop(port: int) -> None:
    subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True)


def _redis_kill(port: int, workdir) -> None:
    """kill -9 the private Redis (its data goes with it: it saves nothing)."""
    os.kill(int((workdir / f"redis-{port}.pid").read_text()), signal.SIGKILL)
    deadline = time.monotonic() + 10
    while (
        subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).returncode == 0
    ):
        assert time.monotonic() < deadline, "the private Redis did not die"
        time.sleep(0.05)


def _worker_start(*, redis_url: str, database_url: str, queue: str, log_path, loglevel: str):
    """A worker as docs/operations.md starts it (prefork, the room's own settings) on the
    private Redis, once it is ready."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "CELERY_RESULT_BACKEND": redis_url,
        "CACHE_REDIS_URL": redis_url,
        "CHANNEL_REDIS_URL": redis_url,
        "FRAME_LOG_REDIS_URL": redis_url,
        "CELERY_QUEUE": queue,
    }
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", loglevel,
               "--queues", queue, "--concurrency", "2"]  # fmt: skip
    with open(log_path, "w") as log:
        worker = subprocess.Popen(
            command, cwd=REPO_ROOT, env=env, stdout=log, stderr=log, start_new_session=True
        )
    _until(lambda: "ready." in log_path.read_text(), worker, log_path, seconds=60)
    return worker


def _until(condition, worker, log_path, *, seconds: float) -> None:
    """Wait for `condition` while the worker lives."""
    deadline = time.monotonic() + seconds
    while not condition():
        assert worker.poll() is None, f"the worker exited:\n{log_path.read_text()[-4000:]}"
        assert time.monotonic() < deadline, log_path.read_text()[-4000:]
        time.sleep(0.1)


def _worker_stop(worker) -> None:
    with suppress(ProcessLookupError):
        os.killpg(worker.pid, signal.SIGTERM)
    try:
        worker.wait(timeout=15)
    except subprocess.TimeoutExpired:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait()


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(240)
def test_a_worker_survives_redis_restarting_soon_after_it_started(live_database_url, tmp_path):
    """The probe's case: Redis restarted a few seconds after the worker came up. The worker runs
    as docs/operations.md starts it (prefork, the room's own defaults), on a Redis this test
    starts on a free port and restarts; it must still be running and take tasks afterwards."""
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server to start a private Redis")
    port = _free_port()
    redis_url = f"redis://127.0.0.1:{port}/0"
    _redis_start(port, tmp_path)
    log_path = tmp_path / "worker.log"
    worker = _worker_start(
        redis_url=redis_url,
        database_url=live_database_url,
        queue="room-restart",
        log_path=log_path,
        loglevel="DEBUG",
    )
    try:
        # The cause (celery/kombu#582): gossip's restart on a lost connection; the room's
        # workers run neither it nor mingle, whatever the command line says.
        started = log_path.read_text()
        assert "Starting Gossip" not in started and "Starting Mingle" not in started
        # Restarts at several moments of the worker's first seconds, as the probe's tries.
        for pause, down in ((0.5, 1.0), (2.0, 0.3), (3.0, 2.0), (1.0, 0.5)):
            time.sleep(pause)
            _redis_stop(port)
            time.sleep(down)
            _redis_start(port, tmp_path)
        restarted = time.monotonic()
        # It consumes again: a task sent now runs (once it has reconnected: a few retries).
        # Not the process's current app: tests after this one in the process would send their
        # tasks to this private Redis, stopped below.
        with Celery("restart-check", broker=redis_url, set_as_current=False) as sender:
            sender.send_task(
                "lobby.record_worker_heartbeat", args=["after-restart"], queue="room-restart"
            )
        _until(
            lambda: "lobby.record_worker_heartbeat" in log_path.read_text().split("ready.")[-1],
            worker,
            log_path,
            seconds=30,
        )
        # And it is still running 8 s after the last restart, however soon the task ran.
        time.sleep(max(0.0, restarted + 8 - time.monotonic()))
        assert worker.poll() is None, f"the worker exited:\n{log_path.read_text()[-4000:]}"
        assert "Unrecoverable error" not in log_path.read_text()
    finally:
        _worker_stop(worker)
        _redis_stop(port)


@pytest.mark.worker
@pytest.mark.django_db(transaction=True)
@pytest.mark.timeout(120)
def test_a_worker_holding_turn_timers_survives_redis_killed_and_a_due_timeout_fires(
    live_database_url, tmp_path
):
    """A live room's worker always holds turn timers: tasks due later, received and not yet
    acknowledged. Redis killed with kill -9 under it and started again must not end it (kombu's
    channel closed twice, the second time restoring those messages through a transport with no
    client: config/broker.py); it reconnects, and a turn's timeout sent once it is back folds
    the player at a real table."""
    if shutil.which("redis-server") is None:
        pytest.skip("needs redis-server to start a private Redis")
    # Turns of an hour: the timers this process sends to the suite's own broker never come due.
    table = make_table(action_seconds=3600, next_hand_delay_seconds=3600)
    make_seated_player(table, "ann", 1)
    make_seated_player(table, "ben", 2)
    Table.objects.filter(pk=table.pk).update(next_hand_at=None)
    hand = services.table_hand_start(table=table)
    slow = EngineHand.from_dict(hand.state).to_act

    port = _free_port()
    redis_url = f"redis://127.0.0.1:{port}/0"
    _redis_start(port, tmp_path)
    log_path = tmp_path / "worker.log"
    worker = _worker_start(
        redis_url=redis_url,
        database_url=live_database_url,
        queue="room-timers",
        log_path=log_path,
        loglevel="INFO",
    )
    sender = Celery("timers-check", broker=redis_url, set_as_current=False)

    def send_turn_timeout(*, due: datetime) -> None:
        """The hand's turn timer as config.timeouts sends it, to the private Redis."""
        sender.send_task(
            "room.timeout",
            args=["poker.turn", table.pk, hand.pk, hand.turn, due.timestamp()],
            eta=due,
            queue="room-timers",
        )

    try:
        # The worker takes timers due later at once and holds them unacknowledged.
        send_turn_timeout(due=hand.deadline)
        for _ in range(3):
            send_turn_timeout(due=timezone.now() + timedelta(minutes=10))
        _until(
            lambda: log_path.read_text().count("Task room.timeout") >= 4,
            worker,
            log_path,
            seconds=20,
        )
        _redis_kill(port, tmp_path)
        time.sleep(1.0)
        _redis_start(port, tmp_path)
        _until(
            lambda: log_path.read_text().count("Connected to") >= 2, worker, log_path, seconds=30
        )
        assert "Unrecoverable error" not in log_path.read_text()

        # The turn is over (its deadline moved into the past rather than waited for), and its
        # timeout, sent again as the room's sweep finds it, folds the player who did not act.
        Hand.objects.filter(pk=hand.pk).update(
            action_started_at=F("action_started_at") - timedelta(hours=2),
            deadline=F("deadline") - timedelta(hours=2),
        )
        send_turn_timeout(due=timezone.now())
        _until(
            lambda: Hand.objects.filter(pk=hand.pk, status=Hand.Status.FINISHED).exists(),
            worker,
            log_path,
            seconds=30,
        )
        hand.refresh_from_db()
        actions = [e for e in hand.state["events"] if e["type"] == "action"]
        assert actions == [{"type": "action", "seat": slow, "action": "fold"}]
        assert worker.poll() is None
    finally:
        sender.close()
        _worker_stop(worker)
        _redis_stop(port)
