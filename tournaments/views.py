"""The lobby's register and unregister buttons (plain forms, no script needed): thin, the
services decide; back to the lobby's Tournaments section with what happened."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from config.inputs import dollars
from tournaments.services import TournamentError, tournament_register, tournament_unregister


def _back() -> HttpResponse:
    return redirect(reverse("lobby:home") + "#tournaments")


@login_required
@require_POST
def register(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The form carries a key made with the page, so a double click registers once."""
    try:
        registration = tournament_register(
            player=request.user,
            tournament=tournament_id,
            idempotency_key=request.POST.get("idempotency_key", ""),
        )
    except TournamentError as refused:
        messages.error(request, refused.message)
        return _back()
    messages.success(
        request,
        _("You are registered: %(amount)s left your wallet (buy-in and fee).")
        % {"amount": dollars(registration.buy_in + registration.fee)},
    )
    return _back()


@login_required
@require_POST
def unregister(request: HttpRequest, tournament_id: int) -> HttpResponse:
    try:
        registration = tournament_unregister(player=request.user, tournament=tournament_id)
    except TournamentError as refused:
        messages.error(request, refused.message)
        return _back()
    messages.success(
        request,
        _("You are unregistered: %(amount)s is back in your wallet.")
        % {"amount": dollars(registration.buy_in + registration.fee)},
    )
    return _back()
