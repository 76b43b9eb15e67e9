"""Rates measured over forked client processes, each reporting its count on a queue: the one
harness of the ledger, audit and Showdown service benches."""

from __future__ import annotations

import multiprocessing
import sys
import time
from collections.abc import Callable, Sequence


def forked_rate(
    target: Callable[..., None], worker_args: Sequence[tuple], *, seconds: float, what: str
) -> float:
    """Run `target(*args, queue)` in one forked process per `worker_args`; each puts its count
    on the queue. Returns the counts' sum per second of wall time (at least `seconds`)."""
    from django.db import connection, connections

    connections.close_all()
    connection.close_pool()  # a forked child must not inherit the pool's open sockets
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    workers = [context.Process(target=target, args=(*args, queue)) for args in worker_args]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    total = sum(queue.get() for _ in workers)
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - started
    if any(worker.exitcode for worker in workers):
        sys.exit(f"a {what} failed")
    return total / max(elapsed, seconds)
