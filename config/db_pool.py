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

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.deprecation import MiddlewareMixin
from psycopg_pool import PoolTimeout

from config.errors import Refused

log = logging.getLogger(__name__)

RETRY_AFTER_SECONDS = 5
CLOSE_TRY_AGAIN_LATER = 1013
BUSY_CODE = "busy"
BUSY_MESSAGE = "The room is busy right now; nothing changed. Try again in a few seconds."


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
    """A view that found no free database connection in time answers 503 with Retry-After: a
    JSON `{"code", "message"}` under /api/ (or when JSON is asked for), a short page otherwise
    (no template: rendering the site's layout would need the database for the user)."""

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not pool_exhausted(exception):
            return None
        log.warning(
            "no free database connection within the pool timeout: %s %s",
            request.method,
            request.path,
        )
        if request.path.startswith("/api/") or "json" in request.headers.get("Accept", ""):
            response = JsonResponse({"code": BUSY_CODE, "message": BUSY_MESSAGE}, status=503)
        else:
            response = HttpResponse(
                "<!doctype html><html lang=en><meta charset=utf-8><title>Busy</title>"
                f"<h1>The room is busy</h1><p>{html.escape(BUSY_MESSAGE)}</p></html>",
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
