"""Four eyes on staff requests: whoever asked for a change (an adjustment, a cancellation)
cannot be the one who decides it. The request is locked while it is decided, so two staff
deciding at once wait for each other and the second finds it decided."""

from collections.abc import Callable
from typing import TypeVar

from django.db.models import Model

from config.errors import Refused

Request = TypeVar("Request", bound=Model)


def request_pending_lock(
    model: type[Request],
    request: Request | int,
    *,
    decided_by,
    error: type[Refused],
    unknown: tuple[str, str],
    already_decided: Callable[[Request], str],
    asked_yourself: str,
) -> Request:
    """The request (a row or its id) locked, still pending, and not decided by who asked.
    `unknown` is the refusal's (code, message) when there is no such request."""
    request_id = getattr(request, "pk", request)
    locked = model._default_manager.select_for_update().filter(pk=request_id).first()
    if locked is None:
        raise error(*unknown)
    if locked.status != "pending":  # type: ignore[attr-defined]
        raise error("already_decided", already_decided(locked))
    if locked.requested_by_id == decided_by.pk:  # type: ignore[attr-defined]
        raise error("four_eyes", asked_yourself)
    return locked
