"""Serve the whole room from one process: the ASGI server, a Celery worker and Celery beat.

This is the embedded default (no outside services): the database is the room's own PostgreSQL
server, started by the first use of the database (config/embedded_postgres.py) and stopped
when this process exits; the in-memory Celery broker only works inside one process, so the
worker and beat run here as threads beside the web server. In production each of these is its
own process (docs/operations.md). The tables' owner runs here as in every production ASGI
process (poker/owner.py, started by the first table socket): the worker thread's timeouts are
sent to it.
"""

import logging
import os
import signal
import sys
import threading

from celery.beat import EmbeddedService
from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError
from django.db import connections

from config.celery import app as celery_app
from config.embedded_postgres import embedded_server_stop

log = logging.getLogger(__name__)


def start_embedded_worker() -> threading.Thread:
    """A solo-pool worker in a daemon thread: timers and sweeps run as they do in production."""
    # Not two lines per timer and per sweep (every 2 s); failures still show.
    for name in ("celery.app.trace", "celery.worker.strategy"):
        logging.getLogger(name).setLevel(logging.WARNING)
    worker = celery_app.WorkController(
        hostname="embedded@room",
        pool_cls="solo",
        concurrency=1,
        loglevel="WARNING",
        queues=[settings.CELERY_TASK_DEFAULT_QUEUE],
        without_heartbeat=True,
        without_mingle=True,
        without_gossip=True,
    )
    thread = threading.Thread(target=worker.start, name="celery-worker", daemon=True)
    thread.start()
    return thread


def start_embedded_beat() -> EmbeddedService:
    """Beat in a thread with an in-memory schedule (nothing to persist for an embedded room)."""
    logging.getLogger("celery.beat").setLevel(logging.WARNING)
    beat = EmbeddedService(celery_app, thread=True, scheduler_cls="celery.beat:Scheduler")
    beat.start()
    return beat


class Command(BaseCommand):
    help = "Serve the room with an embedded Celery worker and beat (no outside services)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("addrport", nargs="?", default="127.0.0.1:8000")
        parser.add_argument(
            "--no-setup",
            action="store_true",
            help="Serve as the database is: no migrate, no demo data.",
        )

    def handle(self, *args, addrport: str, no_setup: bool, **options) -> None:
        if not settings.CELERY_BROKER_URL.startswith("memory://"):
            raise CommandError(
                "runroom is the embedded mode; with REDIS_URL set, run the ASGI server, "
                "a Celery worker and Celery beat as separate processes (docs/operations.md)."
            )
        # A SIGTERM (a supervisor, `kill`) ends the room as Ctrl-C does, so the embedded
        # database server is stopped on the way out rather than left running.
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        if not no_setup:
            # One server start for all of it: migrate, the demo data, then the room.
            call_command("migrate", interactive=False, verbosity=0)
            call_command("seed_demo")
            # Give this thread's connection back before serving (the server's own threads
            # borrow theirs from the pool).
            connections.close_all()
        start_embedded_worker()
        beat = start_embedded_beat()
        self.stdout.write(self.style.SUCCESS(f"The room is open at http://{addrport}/"))
        try:
            call_command("runserver", addrport, use_reloader=False)
        finally:
            room_close(beat)


def room_close(beat: EmbeddedService) -> None:
    """The web server has stopped: stop beat and the database server, then leave at once.
    Everything the room did is in its database already; the worker's and the tables' threads
    may still be running a timer or a heartbeat, and the interpreter's exit would wait on
    them (and the database server with it) for as long as they keep going."""
    beat.stop()
    embedded_server_stop()
    logging.shutdown()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
