"""Answers meant for one player are never stored by a browser's or a shared cache.

A page or API answer for a signed-in player (their wallet, hands, notices) cached by a proxy,
or kept in a shared computer's browser cache after they log out, would show it to the next
person. Every answer to a request that carries credentials (the session cookie or an
`Authorization` header), that sets a cookie, or that comes from the REST API, gets
`Cache-Control: private, no-store`. Deciding by the request's credentials rather than by its
user needs no database, so the 503 of a database outage is marked too.
"""

from django.conf import settings
from django.utils.cache import patch_cache_control


def answers_one_player(request, response) -> bool:
    return (
        request.path.startswith("/api/")
        or settings.SESSION_COOKIE_NAME in request.COOKIES
        or "HTTP_AUTHORIZATION" in request.META
        or bool(response.cookies)
    )


class PrivateAnswersMiddleware:
    """`Cache-Control: private, no-store` on every answer for one player (see above)."""

    def __init__(self, get_response) -> None:
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if answers_one_player(request, response):
            patch_cache_control(response, private=True, no_store=True)
        return response
