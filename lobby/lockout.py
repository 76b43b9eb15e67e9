"""What a locked-out login attempt gets back: JSON for the API, a page for browsers.

Both say what is locked (this username from this address) and until when, read from the
failures django-axes recorded, so the time shown is when the lock really lifts.
"""

import math
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_client_username, get_cool_off, get_failure_limit
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import ngettext

# The length of the username column of axes' AccessAttempt, AccessLog and AccessFailureLog.
RECORDED_USERNAME_LENGTH = 255


def recorded_username(request: HttpRequest, credentials: dict | None = None) -> str | None:
    """AXES_USERNAME_CALLABLE: the username as axes would read it (the credentials, else the
    posted form), cut to the length its tables store; the same cut on every lookup keeps the
    lockout working for such a name."""
    field = settings.AXES_USERNAME_FORM_FIELD
    if credentials:
        username = credentials.get(field)
    else:
        username = getattr(request, "data", request.POST).get(field)
    if not isinstance(username, str):
        return username
    return username[:RECORDED_USERNAME_LENGTH]


def lock_lifts_at(
    records: Iterable[tuple[datetime, int]], *, limit: int, cool_off: timedelta
) -> datetime | None:
    """When a lock over these failure records lifts, or None if they do not lock.

    Each record is (time of its latest failure, failures counted in it) and drops out
    `cool_off` after that time; the lock holds while the records still in force reach `limit`.
    """
    records = sorted(records)
    remaining = sum(failures for _, failures in records)
    if remaining < limit:
        return None
    for attempt_time, failures in records:
        remaining -= failures
        if remaining < limit:
            return attempt_time + cool_off
    return None


def _request_lock_lifts_at(request: HttpRequest, credentials: dict | None) -> datetime:
    """When this request's lock lifts: the latest of its lockout groups (one here, username and
    address together), from the records axes counts right now."""
    cool_off = get_cool_off(request)
    limit = get_failure_limit(request, credentials)
    handler = AxesProxyHandler.get_implementation()
    lifts = [
        lock_lifts_at(attempts.values_list("attempt_time", "failures_since_start"),
                      limit=limit, cool_off=cool_off)
        for attempts in handler.get_user_attempts(request, credentials)
    ]  # fmt: skip
    lifts = [lift for lift in lifts if lift is not None]
    # The records were read after axes decided; should they have just cooled off, the lock is
    # at its end, not its start.
    return max(lifts, default=request.axes_attempt_time)


def lockout_response(request: HttpRequest, *args, **kwargs) -> HttpResponse:
    """AXES_LOCKOUT_CALLABLE. axes passes (request, response, credentials) from the sync
    middleware and (request, credentials) from the async one; the request carries what we need."""
    credentials = getattr(request, "axes_credentials", None)
    username = get_client_username(request, credentials) or ""
    ip_address = request.axes_ip_address
    now = timezone.now()
    lifts_at = max(_request_lock_lifts_at(request, credentials), now)
    seconds = math.ceil((lifts_at - now).total_seconds())
    minutes = max(1, math.ceil(seconds / 60))
    until = lifts_at.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    message = ngettext(
        'Too many failed logins: "%(username)s" is locked from %(ip)s until %(until)s '
        "(in %(minutes)d minute). Other players, and logins from other addresses, are not "
        "affected.",
        'Too many failed logins: "%(username)s" is locked from %(ip)s until %(until)s '
        "(in %(minutes)d minutes). Other players, and logins from other addresses, are not "
        "affected.",
        minutes,
    ) % {"username": username, "ip": ip_address, "until": until, "minutes": minutes}
    if request.path.startswith("/api/"):
        response = JsonResponse(
            {
                "detail": message,
                "username": username,
                "ip_address": ip_address,
                "locked_until": lifts_at.isoformat(),
                "retry_after_seconds": seconds,
            },
            status=429,
        )
    else:
        response = render(
            request,
            "accounts/locked_out.html",
            {
                "username": username,
                "ip_address": ip_address,
                "locked_until": until,
                "locked_until_iso": lifts_at.isoformat(),
                "minutes": minutes,
            },
            status=429,
        )
    response["Retry-After"] = str(seconds)
    return response
