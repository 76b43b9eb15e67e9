"""Test-run defaults, loaded as a pytest plugin before Django reads its settings."""

import atexit
import os
import shutil
import tempfile

os.environ.setdefault("SECRET_KEY", "test-only-secret-key-" + "x" * 40)
os.environ.setdefault("DEBUG", "false")
# Tests speak plain HTTP to the test client; production keeps these on.
os.environ.setdefault("SECURE_SSL_REDIRECT", "false")
os.environ.setdefault("SECURE_COOKIES", "false")
# Each test run gets its own Celery queue, so a worker of another run never takes our tasks.
os.environ.setdefault("CELERY_QUEUE", f"room-test-{os.getpid()}")
# ...and its own cache keys: ids restart with each test database, and counters left in Redis
# by an earlier run (the table sockets' reconnect limit) must not count against this one.
os.environ.setdefault("CACHE_KEY_PREFIX", f"room-test-{os.getpid()}")
# ...and its own frame log (config/frame_log.py), for the same reason.
os.environ.setdefault("FRAME_LOG_PREFIX", f"room-test-{os.getpid()}")
# Lockout tests count failures from one address; keep the limit explicit.
os.environ.setdefault("AXES_FAILURE_LIMIT", "5")
# The cashier's concurrency tests run 12 threads at once, each on its own pooled connection.
os.environ.setdefault("DB_POOL_MAX_SIZE", "16")
os.environ.setdefault("POKER_HEARTBEAT_SECONDS", "1")
# Identity documents go to a folder of this run's own, removed when it ends (the workers
# inherit the first process's folder; that process removes it).
if "VERIFICATION_STORAGE_DIR" not in os.environ:
    os.environ["VERIFICATION_STORAGE_DIR"] = tempfile.mkdtemp(prefix="room-test-documents-")
    atexit.register(shutil.rmtree, os.environ["VERIFICATION_STORAGE_DIR"], ignore_errors=True)

# Under pytest-xdist each worker process runs its own tests against its own test database
# (pytest-django adds the worker's id to its name), and here gets its own Redis database too:
# table ids restart in every test database, so two workers sharing one Redis would hear each
# other's table groups, and a test that flushes the channel layer would flush the other's.
_worker = os.environ.get("PYTEST_XDIST_WORKER", "")
# Each run's and each worker's own channel names: the pub/sub layer's PUBLISH ignores the Redis
# database a worker is given below, so workers (whose tables and players have the same ids)
# would hear each other's tables. (The workers inherit the environment of the run's first
# process, so its pid names the run and the worker's id is added.)
os.environ.setdefault("CHANNEL_LAYER_PREFIX", f"room-test-{os.getpid()}")
if _worker:
    os.environ["CHANNEL_LAYER_PREFIX"] += f"-{_worker}"
if _worker.startswith("gw") and os.environ.get("REDIS_URL"):
    from urllib.parse import urlsplit, urlunsplit

    _url = urlsplit(os.environ["REDIS_URL"])
    _database = int(_url.path.strip("/") or 0) + int(_worker[2:])
    if _database > 15:
        raise RuntimeError(f"{_worker} would need Redis database {_database}; Redis has 0-15")
    os.environ["REDIS_URL"] = urlunsplit(_url._replace(path=f"/{_database}"))
