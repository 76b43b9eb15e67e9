"""What the room accepts from outside, checked in one place: amounts, idempotency keys, ids in
query strings and JSON documents.

Every edge (REST API, cashier page, table socket) and every service that takes these values
calls the functions here, so one rule and one error code hold across the room. Each function
returns the clean value or raises a `Refused` (by default `BadInput`; a service passes its own
kind, e.g. `CashierError`, so its callers keep catching one class). Nothing here touches the
database: a refused value never gets as far as a query.
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

from django.core.exceptions import BadRequest
from django.utils.translation import gettext as _

from config.errors import Refused
from config.money import dollars

# A sane ceiling for one amount: one billion dollars in cents.
MAX_CENTS = 10**11
# Idempotency keys are stored in a 100-character column (cashier.Entry.idempotency_key).
MAX_KEY_LENGTH = 100
# Ids are PostgreSQL bigints.
MAX_ID = 2**63 - 1
# Deeper JSON than this is no request of ours (our deepest body is 2 levels).
MAX_JSON_DEPTH = 32

BAD_AMOUNT = "bad_amount"
MISSING_KEY = "missing_idempotency_key"
BAD_KEY = "bad_idempotency_key"
BAD_PARAMETER = "bad_parameter"
BAD_JSON = "bad_json"

# ASCII digits only: str.isdigit() is also true for "²" and other digits int() refuses.
_DIGITS = re.compile(r"[0-9]+")
_SHOWN = 40


class BadInput(Refused):
    """A value from outside that is not what it must be; nothing was done with it."""


def shown(value: Any) -> str:
    """The value for a message, cut short: a 5,000-digit string must not come back whole."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _digits(text: str, *, most: int) -> int | None:
    """A whole number written in at most `most` ASCII digits (surrounding spaces allowed)."""
    text = text.strip()
    if not text or len(text) > most or not _DIGITS.fullmatch(text):
        return None
    return int(text)


def parse_cents(
    value: Any,
    *,
    field: str = "amount",
    text: bool = False,
    minimum: int = 1,
    maximum: int = MAX_CENTS,
    error: type[Refused] = BadInput,
) -> int:
    """An amount of money in whole cents from `minimum` to `maximum` (1 to 10^11 by default).

    JSON gives integers; with `text` a string of ASCII digits (an HTML form, a query string) is
    read too. Booleans (an int in Python), floats, other strings and anything else are refused
    with `bad_amount`, so one code means "not an amount" everywhere.
    """
    amount: int | None = None
    if isinstance(value, int) and not isinstance(value, bool):
        amount = value
    elif text and isinstance(value, str):
        amount = _digits(value, most=len(str(MAX_CENTS)))
    if amount is None:
        raise error(
            BAD_AMOUNT,
            _("The %(field)s must be a whole number of cents, not %(shown)s.")
            % {"field": field, "shown": shown(value)},
        )
    if amount < minimum:
        limit = (
            _("more than zero")
            if minimum == 1
            else _("at least %(cents)s cents") % {"cents": format(minimum, ",")}
        )
        raise error(
            BAD_AMOUNT,
            _("The %(field)s must be %(limit)s, not %(shown)s.")
            % {"field": field, "limit": limit, "shown": shown(value)},
        )
    if amount > maximum:
        raise error(
            BAD_AMOUNT,
            _("The %(field)s may be at most %(maximum)s cents (%(dollars)s).")
            % {"field": field, "maximum": format(maximum, ","), "dollars": dollars(maximum)},
        )
    return amount


def parse_idempotency_key(
    value: Any,
    *,
    field: str = "idempotency key",
    min_length: int = 1,
    max_length: int = MAX_KEY_LENGTH,
    error: type[Refused] = BadInput,
) -> str:
    """A client's idempotency key: printable text of `min_length` to `max_length` characters.

    Missing or blank is `missing_idempotency_key`; anything else wrong (not a string, too short
    or long, a NUL byte PostgreSQL would refuse, other control characters, lone surrogates that
    cannot be stored as UTF-8) is `bad_idempotency_key`.
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        raise error(
            MISSING_KEY,
            _("Every deposit, withdrawal, buy-in and top-up needs an idempotency key."),
        )
    if not isinstance(value, str):
        raise error(
            BAD_KEY,
            _("The %(field)s must be a string, not %(shown)s.")
            % {"field": field, "shown": shown(value)},
        )
    if not min_length <= len(value) <= max_length:
        raise error(
            BAD_KEY,
            _("The %(field)s must be %(min_length)s to %(max_length)s characters long.")
            % {"field": field, "min_length": min_length, "max_length": max_length},
        )
    if not value.isprintable():
        raise error(
            BAD_KEY,
            _("The %(field)s may hold only printable characters (no control characters).")
            % {"field": field},
        )
    return value


# The longest reason a staff decision keeps (adjustments, cancellations, documents, withdrawals).
STAFF_REASON_MAX_CHARS = 1000


def parse_staff_reason(value: Any, *, error: type[Refused] = BadInput) -> str:
    """The reason a staff member gives for a decision: some text, at most
    `STAFF_REASON_MAX_CHARS` characters, stripped (`reason_required`, `reason_too_long`)."""
    if not isinstance(value, str) or not value.strip():
        raise error("reason_required", _("Say why: a reason is required."))
    if len(value) > STAFF_REASON_MAX_CHARS:
        raise error("reason_too_long", _("A reason is at most 1,000 characters."))
    return value.strip()


def parse_query_id(value: str | None, *, name: str, error: type[Refused] = BadInput) -> int | None:
    """An id from a query string (`?account=12`), or None when absent or empty."""
    if value is None or value == "":
        return None
    number = _digits(value, most=len(str(MAX_ID)))
    if number is None or not 1 <= number <= MAX_ID:
        raise error(
            BAD_PARAMETER,
            _("'%(name)s' must be an id (a whole number), not %(shown)s.")
            % {"name": name, "shown": shown(value)},
        )
    return number


# The last day has a next day (day ranges end at the next midnight).
_LAST_DAY = date(9998, 12, 31)


def parse_query_date(value: str | None, *, name: str) -> date | None:
    """A UTC day from a query string (`?from=2026-01-31`), or None when absent or empty."""
    if value is None or value == "":
        return None
    try:
        day = date.fromisoformat(value)
    except ValueError:
        day = None
    if day is None or day > _LAST_DAY:
        raise BadInput(
            BAD_PARAMETER,
            _("'%(name)s' must be a date like 2026-01-31, not %(shown)s.")
            % {"name": name, "shown": shown(value)},
        )
    return day


def parse_query_range(params, *, first: str = "from", last: str = "to") -> tuple:
    """Two UTC days from a query string (`?from=&to=`), each None when absent; a range that
    ends before it starts is refused (400) the same way by every export."""
    start = parse_query_date(params.get(first), name=first)
    end = parse_query_date(params.get(last), name=last)
    if start is not None and end is not None and start > end:
        raise BadInput(
            BAD_PARAMETER,
            _("'%(first)s' must not be after '%(last)s'.") % {"first": first, "last": last},
        )
    return start, end


def parse_query_page(value: str | None, *, name: str = "page") -> int | None:
    """A page number from a query string: a whole number from 1 (None when absent)."""
    if value is None or value == "":
        return None
    number = _digits(value, most=9)
    if number is None or number < 1:
        raise BadInput(
            BAD_PARAMETER,
            _("'%(name)s' must be a page number from 1, not %(shown)s.")
            % {"name": name, "shown": shown(value)},
        )
    return number


def _too_deep(document: Any, limit: int) -> bool:
    """Whether lists and objects nest deeper than `limit` (walked without recursion)."""
    stack = [(document, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            item = list(item.values())
        elif not isinstance(item, list):
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in item if isinstance(child, dict | list))
    return False


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json_object(
    text: str | bytes, *, what: str = "body", max_depth: int = MAX_JSON_DEPTH
) -> dict:
    """One JSON object, nested at most `max_depth` deep; refused with `bad_json` otherwise.

    NaN and Infinity (which Python's json reads) are not JSON; a document so deep that the
    parser itself gives up (RecursionError) is refused like any other too-deep one.
    """
    try:
        document = json.loads(text, parse_constant=_no_constant)
    except RecursionError as exc:
        raise BadInput(BAD_JSON, _depth_message(what, max_depth)) from exc
    except ValueError as exc:  # JSONDecodeError, bad UTF-8, over-long integers
        raise BadInput(BAD_JSON, _("The %(what)s is not valid JSON.") % {"what": what}) from exc
    if not isinstance(document, dict):
        raise BadInput(BAD_JSON, _("The %(what)s must be a JSON object ({...}).") % {"what": what})
    if _too_deep(document, max_depth):
        raise BadInput(BAD_JSON, _depth_message(what, max_depth))
    return document


def _depth_message(what: str, max_depth: int) -> str:
    return _("The %(what)s nests deeper than %(depth)s levels.") % {
        "what": what,
        "depth": max_depth,
    }


class NulBytesRefusedMiddleware:
    """A query string with a NUL byte, in a name or a value, is a bad request (400) for every
    page: PostgreSQL stores no NUL in any text, so a filter or search carrying one (the admin's
    changelists take them from the URL) would otherwise end in a server error."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        for name, values in request.GET.lists():
            if "\x00" in name or any("\x00" in value for value in values):
                raise BadRequest("a NUL byte in the query string")
        return self.get_response(request)
