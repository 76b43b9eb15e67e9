"""The hand checker pages and the client seed form. Thin: selectors read, services decide."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from fairness.selectors import client_seed_of, deals_of, hand_check, round_check
from fairness.services import FairnessRefused, client_seed_set


def fairness_context(request: HttpRequest) -> dict:
    """What templates/fairness/_profile_section.html needs (the profile view includes it)."""
    return {"client_seed": client_seed_of(player=request.user)}


def _page(request: HttpRequest, load, ref_id: int) -> HttpResponse:
    try:
        check = load(viewer=request.user)
    except FairnessRefused as error:
        raise Http404(error.message) from None
    return render(request, "fairness/deal.html", {"check": check, "data": check.to_dict()})


@login_required
def deals(request: HttpRequest) -> HttpResponse:
    """The player's latest deals, each linked to its check."""
    return render(request, "fairness/deals.html", {"deals": deals_of(player=request.user)})


@login_required
def hand(request: HttpRequest, hand_id: int) -> HttpResponse:
    return _page(request, lambda viewer: hand_check(hand_id=hand_id, viewer=viewer), hand_id)


@login_required
def showdown_round(request: HttpRequest, round_id: int) -> HttpResponse:
    return _page(request, lambda viewer: round_check(round_id=round_id, viewer=viewer), round_id)


@login_required
@require_POST
def seed_set(request: HttpRequest) -> HttpResponse:
    try:
        client_seed_set(player=request.user, seed=request.POST.get("seed", ""))
    except FairnessRefused as error:
        messages.error(request, error.message)
    else:
        messages.success(request, _("Your client seed is saved: it is mixed into your next deals."))
    return redirect("lobby:profile")
