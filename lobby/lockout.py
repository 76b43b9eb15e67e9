"""What a locked-out login attempt gets back: JSON for the API, a page for browsers."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

LOCKED_MESSAGE = "Too many failed logins: this account is locked for a while. Try again later."


def lockout_response(
    request: HttpRequest, credentials: dict | None, *args, **kwargs
) -> HttpResponse:
    cooloff_minutes = round(settings.AXES_COOLOFF_TIME * 60)
    if request.path.startswith("/api/"):
        return JsonResponse(
            {"detail": LOCKED_MESSAGE, "cooloff_minutes": cooloff_minutes}, status=429
        )
    return render(
        request, "accounts/locked_out.html", {"cooloff_minutes": cooloff_minutes}, status=429
    )
