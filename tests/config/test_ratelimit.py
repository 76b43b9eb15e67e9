"""Fixed-window counters in the shared cache (Redis when REDIS_URL is set)."""

import uuid

import pytest
from django.conf import settings

from config import ratelimit
from config.ratelimit import rate_limit_hit


@pytest.fixture
def clock(monkeypatch):
    """A clock the test moves (the cache itself stays real)."""
    now = [1_200_000.0]  # the start of a 60-second window
    monkeypatch.setattr(ratelimit.time, "time", lambda: now[0])
    return now


def test_the_cache_is_shared_between_processes_in_production():
    backend = settings.CACHES["default"]["BACKEND"]
    if settings.EMBEDDED:
        assert backend.endswith("LocMemCache")
    else:
        assert backend == "django.core.cache.backends.redis.RedisCache"


def test_hits_within_the_limit_pass_and_the_rest_do_not(clock):
    key, other = f"test-{uuid.uuid4()}", f"test-{uuid.uuid4()}"
    hits = [rate_limit_hit(key=key, limit=3, window_seconds=60) for _ in range(5)]
    assert hits == [True, True, True, False, False]
    assert rate_limit_hit(key=other, limit=3, window_seconds=60)


def test_a_new_window_starts_a_new_count(clock):
    key = f"test-{uuid.uuid4()}"
    assert rate_limit_hit(key=key, limit=1, window_seconds=60)
    clock[0] += 59
    assert not rate_limit_hit(key=key, limit=1, window_seconds=60)
    clock[0] += 60
    assert rate_limit_hit(key=key, limit=1, window_seconds=60)
