"""Who is acting, for records written where no actor is passed in (model signals).

`AuditRequestMiddleware` keeps the current request in a context variable for the length of
the request (Django runs sync views in threads with the context copied, so it holds under
daphne too); `request_actor()` and `request_address()` read it. Outside a request (a task, a
shell) there is none and records name no actor.
"""

from __future__ import annotations

from contextvars import ContextVar

from asgiref.sync import iscoroutinefunction, markcoroutinefunction
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
