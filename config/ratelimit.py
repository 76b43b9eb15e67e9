"""Counting events per key in fixed time windows, in the cache every process shares.

The cache is Redis in production (settings.CACHES), so a limit holds across ASGI processes;
the embedded room's in-memory cache is enough there, as it is one process.
"""

from __future__ import annotations

import time

from django.core.cache import cache

# The counters' keys start with this (tests give each test its own, tests/conftest.py).
KEY_PREFIX = "ratelimit"


def rate_limit_hit(*, key: str, limit: int, window_seconds: int) -> bool:
    """Count one event under `key` in the current window; True while the count is within
    `limit`. Fixed windows: a burst across a window's edge may get up to twice the limit,
    which is fine for stopping loops, and costs one round trip (an atomic INCR)."""
    window = int(time.time() // window_seconds)
    slot = f"{KEY_PREFIX}:{key}:{window}"
    # add() sets the counter only if it is not there, so concurrent first hits do not reset it.
    cache.add(slot, 0, timeout=window_seconds * 2)
    try:
        count = cache.incr(slot)
    except ValueError:  # expired between add() and incr(): this is the window's first hit
        cache.add(slot, 1, timeout=window_seconds * 2)
        count = 1
    return count <= limit
