"""A Sit & Go's own page, and the register and unregister buttons (plain forms, no script
needed): thin, the services decide; back to where the form was with what happened."""

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from config.inputs import dollars
from tournaments.selectors import sit_and_go_page, tournaments_of_player
from tournaments.services import (
    TournamentError,
    tournament_register,
    tournament_unregister,
)


@login_required
def mine(request: HttpRequest) -> HttpResponse:
    """My tournaments: every Sit & Go the player entered, its place, prize and net result."""
    return render(
        request,
        "tournaments/mine.html",
        {"mine": tournaments_of_player(player=request.user)},
    )


def _back(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """To the Sit & Go's page when its form was there, else the lobby's Tournaments."""
    if request.POST.get("next") == "page":
        return redirect("tournaments:sit_and_go", tournament_id=tournament_id)
    return redirect(reverse("lobby:home") + "#tournaments")


def sit_and_go(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """A Sit & Go's lobby, open to everyone: its structure and payouts, the players (their
    chips, the level and the time to the next while it runs) and, once over, its results."""
    page = sit_and_go_page(tournament_id=tournament_id, player=request.user)
    if page is None:
        raise Http404("No such tournament.")
    tournament = page.tournament
    left = page.next_level_in_seconds()
    return render(
        request,
        "tournaments/sit_and_go.html",
        {
            "page": page,
            "sng": tournament,
            "prizes": page.prizes,
            "register_key": f"page-{uuid.uuid4().hex}",
            "registered": sum(1 for p in page.players if p.status == "active"),
            "playing": page.playing,
            "next_level_at": tournament.next_level_at.isoformat() if left is not None else "",
            "next_level_in": f"{left // 60}:{left % 60:02d}" if left is not None else "",
            "on_break": page.on_break,
        },
    )


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
        return _back(request, tournament_id)
    messages.success(
        request,
        _("You are registered: %(amount)s left your wallet (buy-in and fee).")
        % {"amount": dollars(registration.buy_in + registration.fee)},
    )
    return _back(request, tournament_id)


@login_required
@require_POST
def unregister(request: HttpRequest, tournament_id: int) -> HttpResponse:
    try:
        registration = tournament_unregister(player=request.user, tournament=tournament_id)
    except TournamentError as refused:
        messages.error(request, refused.message)
        return _back(request, tournament_id)
    messages.success(
        request,
        _("You are unregistered: %(amount)s is back in your wallet.")
        % {"amount": dollars(registration.buy_in + registration.fee)},
    )
    return _back(request, tournament_id)
