"""The database pool: a burst of requests never takes more PostgreSQL connections than a process
is configured for, and a request or socket that finds none free in time is refused clearly."""

import asyncio
import threading
import time

import psycopg
import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings
from django.db import connection
from django.test import Client
from django.urls import reverse

from config.asgi import application
from config.db_pool import BUSY_MESSAGE, CLOSE_TRY_AGAIN_LATER, UNAVAILABLE_MESSAGE
from tests.conftest import _database_url_of_test_db
from tests.factories import make_player, session_headers_for

pytestmark = pytest.mark.django_db(transaction=True)

POOL_MAX = 4
# All sent at once: a hundred requests in flight are 25 times what the pool holds, so it is
# saturated from the first millisecond whatever their number (300 more proved nothing more).
HEALTH_REQUESTS = 60
LOBBY_REQUESTS = 20  # the lobby page reads the tables
SIGNED_IN_REQUESTS = 20  # the login page reads the session and the user, then redirects


async def _get(port: int, path: str, cookie: str = "") -> int:
    """One plain HTTP/1.1 GET on its own connection; the response's status code."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
    if cookie:
        head += f"Cookie: {cookie}\r\n"
    writer.write(f"{head}\r\n".encode())
    await writer.drain()
    status_line = await reader.readline()
    await reader.read()
    writer.close()
    return int(status_line.split()[1])


async def _burst(port: int, cookie: str) -> list[int]:
    requests = (
        [_get(port, "/healthz") for _ in range(HEALTH_REQUESTS)]
        + [_get(port, "/") for _ in range(LOBBY_REQUESTS)]
        + [_get(port, "/accounts/login/", cookie) for _ in range(SIGNED_IN_REQUESTS)]
    )
    return await asyncio.wait_for(asyncio.gather(*requests), timeout=45)


class ConnectionCounter:
    """Samples, from its own connection, how many PostgreSQL sessions carry one
    application_name, until stopped."""

    def __init__(self, application_name: str) -> None:
        self.application_name = application_name
        self.counts: list[int] = []
        self._stop = threading.Event()
        db = connection.settings_dict
        self._conninfo = {
            "host": db.get("HOST") or "127.0.0.1",
            "port": db.get("PORT") or 5432,
            "user": db["USER"],
            "dbname": db["NAME"],
        }
        self._thread = threading.Thread(target=self._sample, daemon=True)

    def _sample(self) -> None:
        with psycopg.connect(**self._conninfo, autocommit=True) as sampler:
            while not self._stop.is_set():
                row = sampler.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                    [self.application_name],
                ).fetchone()
                self.counts.append(row[0])
                self._stop.wait(0.02)

    def __enter__(self) -> "ConnectionCounter":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)


def test_a_burst_of_requests_never_takes_more_connections_than_the_pool_allows(
    asgi_server_factory,
):
    player = make_player("burst")
    signed_in = Client()
    signed_in.force_login(player, backend="django.contrib.auth.backends.ModelBackend")
    cookie = (
        f"{settings.SESSION_COOKIE_NAME}={signed_in.cookies[settings.SESSION_COOKIE_NAME].value}"
    )
    name = f"pool-test-{time.monotonic_ns()}"
    base_url = asgi_server_factory(
        env={
            # The process's sessions carry this name, so they can be told from everyone else's.
            "DATABASE_URL": f"{_database_url_of_test_db()}?application_name={name}",
            "DB_POOL_MIN_SIZE": "1",
            "DB_POOL_MAX_SIZE": str(POOL_MAX),
            "DB_POOL_TIMEOUT": "30",  # long enough for every request of the burst to be served
        }
    )
    port = int(base_url.rsplit(":", 1)[1])

    with ConnectionCounter(name) as during:
        statuses = asyncio.run(_burst(port, cookie))
    with ConnectionCounter(name) as after:
        time.sleep(0.3)  # about fifteen samples of the pool at rest

    assert statuses == [200] * (HEALTH_REQUESTS + LOBBY_REQUESTS) + [302] * SIGNED_IN_REQUESTS
    assert len(during.counts) > 10
    assert 2 <= max(during.counts) <= POOL_MAX, during.counts
    assert 1 <= max(after.counts) <= POOL_MAX, after.counts


def test_pages_and_the_api_answer_503_when_no_connection_comes_free_in_time(
    client, pooled_connections_taken
):
    connection.close()  # this thread's too: the requests below wait for the pool like any other
    with pooled_connections_taken(timeout=0.3):
        started = time.monotonic()
        page = client.get(reverse("lobby:home"))
        waited = time.monotonic() - started
        api = client.get(reverse("cashier-api:wallet"), HTTP_AUTHORIZATION="Token " + "0" * 40)
        health = client.get(reverse("healthz"))

    assert page.status_code == 503
    assert page["Retry-After"] == "5"
    assert "The room is busy" in page.content.decode()
    assert 0.3 <= waited < 5
    assert api.status_code == 503
    assert api["Retry-After"] == "5"
    assert api.json() == {"code": "busy", "message": BUSY_MESSAGE}
    assert health.status_code == 503
    assert health.json()["down"] == ["database"]
    # Connections free again: the same page is served.
    assert client.get(reverse("lobby:home")).status_code == 200


async def test_a_socket_that_finds_no_connection_free_is_closed_to_try_again_later(
    pooled_connections_taken,
):
    player = await database_sync_to_async(make_player)("sockets")
    headers = await database_sync_to_async(session_headers_for)(player)
    with pooled_connections_taken(timeout=0.3):
        refused = WebsocketCommunicator(application, "/ws/lobby/", headers)
        assert await refused.connect(timeout=10) == (False, CLOSE_TRY_AGAIN_LATER)

    welcomed = WebsocketCommunicator(application, "/ws/lobby/", headers)
    connected, _ = await welcomed.connect(timeout=10)
    assert connected
    assert (await welcomed.receive_json_from())["type"] == "welcome"
    await welcomed.disconnect()


def _cut_off_this_threads_connection() -> None:
    """What a PostgreSQL restart does to a request in flight: the server ends its session."""
    connection.ensure_connection()
    pid = connection.connection.info.backend_pid
    db = connection.settings_dict
    with psycopg.connect(
        host=db.get("HOST") or "127.0.0.1",
        port=db.get("PORT") or 5432,
        user=db["USER"],
        dbname=db["NAME"],
        autocommit=True,
    ) as other:
        other.execute("SELECT pg_terminate_backend(%s)", [pid])


@pytest.mark.parametrize("path", ["lobby:home", "cashier-api:wallet"])
def test_a_request_whose_database_connection_is_cut_off_answers_503_to_try_again(client, path):
    _cut_off_this_threads_connection()
    try:
        response = client.get(reverse(path), HTTP_AUTHORIZATION="Token " + "0" * 40)
    finally:
        connection.close()  # the broken connection goes back to the pool, which drops it
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    if path.startswith("cashier-api"):
        assert response.json() == {"code": "unavailable", "message": UNAVAILABLE_MESSAGE}
    else:
        assert "Try again in a few seconds" in response.content.decode()
    # The next request gets a fresh connection.
    assert client.get(reverse("lobby:home")).status_code == 200
