"""How long `make run` takes to serve: the embedded room from a new data folder (initdb, the
server's start, migrate, the demo data, the first /healthz) and again on the data it left (the
server's start, migrate and the demo data finding nothing to do). The peer, in the same run: the
same `migrate` and `seed_demo` against the machine's own PostgreSQL, into a new database.

    .venv/bin/python -m bench.embedded_start [--repeat 3]
"""

import argparse
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_URL = os.environ.get("LOAD_PG_URL", "postgres://postgres@127.0.0.1:5432")
PEER_DB = "room_start_peer"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def embedded_env(data_dir: Path) -> dict[str, str]:
    keep = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
    env = {name: os.environ[name] for name in keep if name in os.environ}
    return env | {"DEBUG": "true", "EMBEDDED_PGDATA": str(data_dir), "LOG_LEVEL": "WARNING"}


def room_serving_seconds(data_dir: Path) -> float:
    """From `manage.py runroom` (as `make run` calls it) to its first /healthz answer; then the
    room is stopped as Ctrl-C would (SIGTERM: it stops its server)."""
    port = free_port()
    started = time.perf_counter()
    room = subprocess.Popen(
        [sys.executable, "manage.py", "runroom", f"127.0.0.1:{port}"],
        cwd=ROOT,
        env=embedded_env(data_dir),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        while True:
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1).close()
                return time.perf_counter() - started
            except OSError:
                if room.poll() is not None or time.perf_counter() - started > 300:
                    raise RuntimeError("runroom did not start") from None
                time.sleep(0.05)
    finally:
        room.terminate()
        room.wait(timeout=60)


def peer_seconds() -> float:
    """`migrate` and `seed_demo` into a new database of the machine's PostgreSQL."""
    import psycopg

    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {PEER_DB} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {PEER_DB}")
    env = embedded_env(Path("/nonexistent")) | {"DATABASE_URL": f"{PG_URL}/{PEER_DB}"}
    started = time.perf_counter()
    for command in (["migrate", "--noinput", "-v0"], ["seed_demo"]):
        subprocess.run(
            [sys.executable, "manage.py", *command],
            cwd=ROOT,
            env=env,
            check=True,
            stdout=subprocess.DEVNULL,
        )
    seconds = time.perf_counter() - started
    with psycopg.connect(f"{PG_URL}/postgres", autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {PEER_DB} WITH (FORCE)")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    fresh, reused, peer = [], [], []
    for _ in range(args.repeat):  # alternated, so a busy spell hits all three
        data_dir = Path(tempfile.mkdtemp(prefix="room-start-")) / "pg"
        try:
            fresh.append(room_serving_seconds(data_dir))
            reused.append(room_serving_seconds(data_dir))
        finally:
            shutil.rmtree(data_dir.parent, ignore_errors=True)
        peer.append(peer_seconds())
    median = statistics.median
    print(f"embedded room, new data folder: {median(fresh):.1f} s to serve (runs {fresh})")
    print(f"embedded room, its data reused: {median(reused):.1f} s to serve (runs {reused})")
    print(f"peer: migrate + seed_demo on the machine's PostgreSQL: {median(peer):.1f} s")
    print(
        f"ratio new/peer {median(fresh) / median(peer):.2f}, "
        f"reused/peer {median(reused) / median(peer):.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
