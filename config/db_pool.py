"""When every pooled database connection is busy: a clear, bounded refusal instead of a crash.

Each process lends at most `DB_POOL_MAX_SIZE` PostgreSQL connections (config/settings.py). A
caller that gets none within `DB_POOL_TIMEOUT` seconds receives psycopg_pool's `PoolTimeout`,
which Django wraps in its own `OperationalError`. It is raised when the request or socket call
first touches the database, before anything was written, so nothing changed: pages and the API
answer 503 with `Retry-After` (`PoolExhaustedMiddleware`); a socket's frame gets an error frame
(`DatabaseBusy`, a kind of `Refused`, raised through `refuse_when_pool_exhausted`), and a socket
whose handshake or consumer hits it is closed with 1013, "try again later"
(`SocketsClosedWhenBusy`).
"""

import contextlib
import html
import logging
from collections.abc import Iterator

import psycopg
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin
from psycopg_pool import PoolTimeout

from config.errors import Refused

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
CLOSE_TRY_AGAIN_LATER = 1013
BUSY_CODE = "busy"
BUSY_MESSAGE = "The room is busy right now; nothing changed. Try again in a few seconds."
UNAVAILABLE_CODE = "unavailable"
UNAVAILABLE_MESSAGE = (
    "The room lost its database connection for a moment. Try again in a few seconds; "
    "a payment sent with the same idempotency key is never taken twice."
)
# SQLSTATE classes of a session the server ended or never let start: 08 connection exception,
# 57P admin / crash shutdown and "cannot connect now" (a restart in progress).
_CONNECTION_LOST_STATES = ("08", "57P")


class DatabaseBusy(Refused):
    """No database connection came free within the pool's timeout; nothing was done."""

    def __init__(self) -> None:
        super().__init__(BUSY_CODE, BUSY_MESSAGE)


def pool_exhausted(error: BaseException) -> bool:
    """Is this (or what it wraps) the pool giving up on finding a free connection?"""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, PoolTimeout | DatabaseBusy):
            return True
        seen = seen.__cause__
    return False


def connection_lost(error: BaseException) -> bool:
    """Is this (or what it wraps) the database session ending under the caller, as a PostgreSQL
    restart or failover does to requests in flight? The server rolls back the open transaction."""
    seen: BaseException | None = error
    while seen is not None:
        if isinstance(seen, psycopg.InterfaceError):  # "the connection is closed"
            return True
        if isinstance(seen, psycopg.OperationalError):
            sqlstate = seen.sqlstate
            # None: the client library found the socket closed, with no answer from the server.
            if sqlstate is None or sqlstate.startswith(_CONNECTION_LOST_STATES):
                return True
        seen = seen.__cause__
    return False


@contextlib.contextmanager
def refuse_when_pool_exhausted() -> Iterator[None]:
    """Turn a pool timeout inside the block into `DatabaseBusy`; other errors pass unchanged."""
    try:
        yield
    except DatabaseBusy:
        raise
    except Exception as error:
        if not pool_exhausted(error):
            raise
        log.warning("no free database connection within the pool timeout")
        raise DatabaseBusy() from error


class PoolExhaustedMiddleware(MiddlewareMixin):
    """A view that found no free database connection in time, or whose connection the server
    cut off (a PostgreSQL restart), answers 503 with Retry-After: a JSON `{"code", "message"}`
    under /api/ (or when JSON is asked for), a short page otherwise (no template: rendering the
    site's layout would need the database for the user). The pool drops the broken connection
    when it comes back, and checks each one it lends, so the retry gets a working one."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if pool_exhausted(exception):
            log.warning(
                "no free database connection within the pool timeout: %s %s",
                request.method,
                request.path,
            )
            code, title, heading, message = BUSY_CODE, "Busy", "The room is busy", BUSY_MESSAGE
        elif connection_lost(exception):
            log.warning(
                "the database connection was lost during %s %s: %s",
                request.method,
                request.path,
                exception,
            )
            code, title, heading = UNAVAILABLE_CODE, "Unavailable", "Try again in a moment"
            message = UNAVAILABLE_MESSAGE
        else:
            return None
        if request.path.startswith("/api/") or "json" in request.headers.get("Accept", ""):
            response = JsonResponse({"code": code, "message": message}, status=503)
        else:
            response = HttpResponse(
                f"<!doctype html><html lang=en><meta charset=utf-8><title>{title}</title>"
                f"<h1>{heading}</h1><p>{html.escape(message)}</p></html>",
                status=503,
            )
        response["Retry-After"] = str(RETRY_AFTER_SECONDS)
        return response


class SocketsClosedWhenBusy:
    """ASGI middleware for sockets: the session and user lookup of the handshake and the
    consumer's own calls need the database; finding no free connection closes the socket with
    1013 instead of crashing the application (a handshake refused this way reaches a browser
    as 1006). Either way the page reconnects as after any drop."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        try:
            await self.app(scope, receive, send)
        except Exception as error:
            if not pool_exhausted(error):
                raise
            log.warning("no free database connection within the pool timeout: socket closed")
            await send({"type": "websocket.close", "code": CLOSE_TRY_AGAIN_LATER})
