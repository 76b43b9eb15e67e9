"""Who is acting, for records written where no actor is passed in (model signals).

`AuditRequestMiddleware` keeps the current request in a context variable for the length of
the request (Django runs sync views in threads with the context copied, so it holds under
daphne too); `request_actor()` and `request_address()` read it. Outside a request (a task, a
shell) there is none and records name no actor.

The database records changes of staff power itself (audit migration 0008); `power_actor_set`
names who is making one (the `audit.actor` setting of the transaction) and `acting_on_powers`
names someone else (a service's staff member) for the changes made within it.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from contextvars import ContextVar

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
from django.db import connections
from django.http import HttpRequest

_current: ContextVar[HttpRequest | None] = ContextVar("audit_request", default=None)


class AuditRequestMiddleware:
    """Sync and async capable (like Django's own), so it adds no thread hop under daphne."""

    sync_capable = True
    async_capable = True

    def __init__(self, get_response) -> None:
        self.get_response = get_response
        if iscoroutinefunction(get_response):
            markcoroutinefunction(self)

    def __call__(self, request: HttpRequest):
        if iscoroutinefunction(self):
            return self.__acall__(request)
        token = _current.set(request)
        try:
            return self.get_response(request)
        finally:
            _current.reset(token)

    async def __acall__(self, request: HttpRequest):
        token = _current.set(request)
        try:
            return await self.get_response(request)
        finally:
            _current.reset(token)


def current_request() -> HttpRequest | None:
    return _current.get()


def request_actor():
    """The signed-in user of the current request, or None."""
    request = _current.get()
    user = getattr(request, "user", None)
    return user if user is not None and user.is_authenticated else None


def request_address(request: HttpRequest | None = None) -> str:
    request = request or _current.get()
    return (request.META.get("REMOTE_ADDR") or "") if request is not None else ""


def request_route(request: HttpRequest | None = None) -> str:
    """The URL name the request resolved to (namespace:name), or its path."""
    request = request or _current.get()
    if request is None:
        return ""
    match = getattr(request, "resolver_match", None)
    return match.view_name if match is not None else request.path


# -- who changes staff powers, for the database's power triggers (audit migration 0008)

_power_actor: ContextVar = ContextVar("audit_power_actor", default=None)


def power_actor_set(actor=None, *, using: str = "default") -> None:
    """Name `actor` (or the explicit `acting_on_powers` actor, else the request's user) to the
    database's power triggers for the rest of this transaction, or clear the name. Outside a
    transaction it does nothing: the change's own statement commits alone, and its record
    names no actor."""
    connection = connections[using]
    if not connection.in_atomic_block:
        return
    actor = actor or _power_actor.get() or request_actor()
    value = ""
    if actor is not None:
        value = json.dumps(
            {
                "id": actor.pk,
                "label": actor.get_username(),
                "kind": "staff" if actor.is_staff or actor.is_superuser else "player",
                "ip": request_address(),
                "route": request_route(),
            }
        )
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config('audit.actor', %s, true)", [value])


@contextmanager
def acting_on_powers(actor, *, using: str = "default"):
    """Inside a transaction: `actor` is who the power records of the changes made within
    name, queryset updates and raw SQL included (the database writes those records)."""
    token = _power_actor.set(actor)
    try:
        power_actor_set(actor, using=using)
        yield
    except BaseException:
        _power_actor.reset(token)  # the transaction is rolling back, and its setting with it
        raise
    _power_actor.reset(token)
    power_actor_set(using=using)
