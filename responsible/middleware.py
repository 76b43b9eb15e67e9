"""Send a logged-in player who has not accepted the current terms and fair-play policy to the
page that asks for it, from any room page.

Pages only (GET and HEAD): what they would do is refused by the services anyway (a seat, a
buy-in, a wager, a deposit: `rules.check_play`, code `terms_not_accepted`), and the API, the
admin, log-in and log-out, the language selector and the documents themselves stay open.
"""

from urllib.parse import urlencode

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse

from responsible.rules import terms_accepted

OPEN_PREFIXES = (
    "/responsible/terms/",
    "/responsible/fair-play/",
    "/accounts/login/",
    "/accounts/logout/",
    "/admin/",
    "/api/",
    "/static/",
    "/i18n/",
    "/jsi18n/",
    "/healthz",
    "/favicon.ico",
)


class TermsAcceptanceMiddleware:
    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if (
            request.method in ("GET", "HEAD")
            and request.user.is_authenticated
            and not request.path.startswith(OPEN_PREFIXES)
            and not terms_accepted(player=request.user)
        ):
            query = urlencode({"next": request.get_full_path()})
            return redirect(f"{reverse('responsible:terms_accept')}?{query}")
        return self.get_response(request)
