"""The language selector's view: Django's, plus the logged-in player's choice kept."""

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from accounts.services import profile_set_language
from config.i18n import LANGUAGE_CODES


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Django's set_language (cookie and redirect back), and for a logged-in player the choice
    saved on their profile, so it follows them to every browser (config.i18n's middleware)."""
    response = django_set_language(request)
    language = request.POST.get("language", "")
    if language in LANGUAGE_CODES and request.user.is_authenticated:
        profile_set_language(user=request.user, language=language)
    return response
