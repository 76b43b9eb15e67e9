"""The room's three languages at the edges: which one a request or socket speaks.

The language is, in order: the logged-in player's saved choice (Profile.language), the
selector's cookie, the browser's Accept-Language, English (LocaleMiddleware does the last
three). Sockets have no middleware of Django's, so consumers ask `language_for_scope`. The
selector's view that keeps a player's choice is `accounts.views.set_language`; money in each
language's way is `config.money`.
"""

from __future__ import annotations

import contextlib
from http.cookies import CookieError, SimpleCookie
from typing import Any

from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.http import Http404, HttpRequest, HttpResponse
from django.utils import translation
from django.utils.deprecation import MiddlewareMixin
from django.views.i18n import JavaScriptCatalog

LANGUAGE_CODES = frozenset(code for code, _ in settings.LANGUAGES)


def saved_language(user: Any) -> str | None:
    """The language a logged-in player chose, or None (anonymous, never chose, no profile)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    try:
        language = user.profile.language
    except ObjectDoesNotExist:  # no profile yet (made outside sign-up): nothing saved
        return None
    return language if language in LANGUAGE_CODES else None


class PlayerLanguageMiddleware(MiddlewareMixin):
    """After authentication: a player's saved language wins, on every browser they log in from;
    the cookie is brought in line so the choice also holds after logging out."""

    def process_request(self, request: HttpRequest) -> None:
        language = saved_language(getattr(request, "user", None))
        if language:
            translation.activate(language)
            request.LANGUAGE_CODE = language

    def process_response(self, request: HttpRequest, response: HttpResponse) -> HttpResponse:
        language = saved_language(getattr(request, "user", None))
        if language and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != language:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                language,
                max_age=settings.LANGUAGE_COOKIE_AGE,
                path=settings.LANGUAGE_COOKIE_PATH,
                samesite=settings.LANGUAGE_COOKIE_SAMESITE,
                secure=settings.LANGUAGE_COOKIE_SECURE,
                httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            )
        return response


def language_for_scope(scope: dict) -> str:
    """A socket's language: the player's saved one, else the cookie, else Accept-Language."""
    language = saved_language(scope.get("user"))
    if language:
        return language
    headers = dict(scope.get("headers") or [])
    cookie = SimpleCookie()
    with contextlib.suppress(CookieError):  # a malformed header: fall back to the browser's
        cookie.load(headers.get(b"cookie", b"").decode("latin-1"))
    morsel = cookie.get(settings.LANGUAGE_COOKIE_NAME)
    if morsel is not None and morsel.value in LANGUAGE_CODES:
        return morsel.value
    accept = headers.get(b"accept-language", b"").decode("latin-1")
    for code, _ in translation.trans_real.parse_accept_lang_header(accept):
        try:
            found = translation.get_supported_language_variant(code)
        except LookupError:
            continue
        if found in LANGUAGE_CODES:
            return found
    return settings.LANGUAGE_CODE


# Every string marked for translation is collected from these files (the engine, the benches
# and the tests speak to programs, not players).
MESSAGES_IGNORE = [".venv/*", "staticfiles/*", "bench/*", "tests/*", "*.egg-info/*"]
TRANSLATED_LANGUAGES = [code for code in LANGUAGE_CODES if code != "en"]


def messages_collect(*, verbosity: int = 0) -> None:
    """`makemessages` for the pages and Python (domain django) and the scripts (djangojs), into
    the first of LOCALE_PATHS, without source locations so a moved line changes no catalogue."""
    from django.core.management import call_command

    for domain, extensions in (("django", ["html", "txt", "py"]), ("djangojs", ["js"])):
        call_command(
            "makemessages",
            locale=sorted(TRANSLATED_LANGUAGES),
            domain=domain,
            extensions=extensions,
            ignore_patterns=MESSAGES_IGNORE,
            no_location=True,
            verbosity=verbosity,
        )


async def socket_language_activate(scope: dict) -> str:
    """Speak the socket's language (`language_for_scope`) for the rest of its life: called in
    a consumer's connect, it holds for every frame the consumer handles after (the handlers
    run in the same task, and service calls in threads see the task's language)."""
    from channels.db import database_sync_to_async

    language = await database_sync_to_async(language_for_scope)(scope)
    translation.activate(language)
    return language


class LanguageCatalog(JavaScriptCatalog):
    """The scripts' strings in the language named by the address (`jsi18n/fr/`), whatever the
    request's own: a browser keeps the catalogue it fetched, and one kept at a single address
    for every language (the login page's English) was reused on the pages of a player who then
    logged in with French saved or switched languages."""

    def get(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        language = kwargs.pop("language")
        if language not in LANGUAGE_CODES:
            raise Http404("no such language")
        with translation.override(language):
            response = super().get(request, *args, **kwargs)
        response["Content-Language"] = language
        return response
