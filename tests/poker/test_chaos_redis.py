"""A Celery worker started as docs/operations.md starts it survives Redis restarting in its
first seconds (celery/kombu#582) and takes tasks afterwards."""

import os
import shutil
import signal
import subprocess
import sys
import time
from contextlib import suppress

import pytest
from celery import Celery

from tests.conftest import REPO_ROOT, _free_port

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
    env = {
        **os.environ,
        "DATABASE_URL": live_database_url,
        "REDIS_URL": redis_url,
        "CELERY_BROKER_URL": redis_url,
        "CELERY_RESULT_BACKEND": redis_url,
        "CACHE_REDIS_URL": redis_url,
        "CHANNEL_REDIS_URL": redis_url,
        "CELERY_QUEUE": "room-restart",
    }
    command = [sys.executable, "-m", "celery", "-A", "config", "worker", "--loglevel", "DEBUG",
               "--queues", "room-restart", "--concurrency", "2"]  # fmt: skip
    with open(log_path, "w") as log:
        worker = subprocess.Popen(
            command, cwd=REPO_ROOT, env=env, stdout=log, stderr=log, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 60
        while "ready." not in log_path.read_text():
            assert worker.poll() is None and time.monotonic() < deadline, log_path.read_text()
            time.sleep(0.1)
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
        time.sleep(8)  # reconnecting takes a few retries
        assert worker.poll() is None, f"the worker exited:\n{log_path.read_text()[-4000:]}"
        assert "Unrecoverable error" not in log_path.read_text()
        # And it consumes again: a task sent now runs.
        # Not the process's current app: tests after this one in the process would send their
        # tasks to this private Redis, stopped below.
        with Celery("restart-check", broker=redis_url, set_as_current=False) as sender:
            sender.send_task(
                "lobby.record_worker_heartbeat", args=["after-restart"], queue="room-restart"
            )
        deadline = time.monotonic() + 30
        while "lobby.record_worker_heartbeat" not in log_path.read_text().split("ready.")[-1]:
            assert time.monotonic() < deadline, log_path.read_text()[-4000:]
            time.sleep(0.2)
        assert worker.poll() is None
    finally:
        with suppress(ProcessLookupError):
            os.killpg(worker.pid, signal.SIGTERM)
        try:
            worker.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(worker.pid, signal.SIGKILL)
            worker.wait()
        _redis_stop(port)
