"""The responsible-gaming part of the profile page. Thin: forms check shape, services decide."""

from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.utils import formats
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from responsible.forms import DepositLimitForm, RealityCheckForm, SelfExclusionForm, TimeOutForm
from responsible.selectors import responsible_summary
from responsible.services import (
    ResponsibleError,
    deposit_limit_set,
    exclusion_start,
    reality_check_set,
)


def responsible_context(request: HttpRequest) -> dict:
    """What templates/responsible/_profile_section.html needs (the profile view includes it)."""
    return {
        "responsible": responsible_summary(player=request.user),
        "limit_form": DepositLimitForm(),
        "time_out_form": TimeOutForm(auto_id="time_out_%s"),
        "self_exclusion_form": SelfExclusionForm(auto_id="self_exclusion_%s"),
        "reality_check_form": RealityCheckForm(),
    }


def _form_errors(request: HttpRequest, form) -> None:
    for field, errors in form.errors.items():
        for error in errors:
            label = form.fields[field].label if field in form.fields else None
            messages.error(request, f"{label or field}: {error}" if field != "__all__" else error)


@login_required
@require_POST
def limit_set(request: HttpRequest) -> HttpResponse:
    form = DepositLimitForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
        return redirect("lobby:profile")
    try:
        limit = deposit_limit_set(
            player=request.user, period=form.cleaned_data["period"], amount=form.cents()
        )
    except ResponsibleError as error:
        messages.error(request, error.message)
    else:
        if limit.pending_from is not None:
            messages.info(
                request,
                _("Your %(period)s limit changes at %(when)s UTC (a higher limit waits 24 hours).")
                % {
                    "period": limit.get_period_display(),
                    "when": formats.date_format(limit.pending_from, "SHORT_DATETIME_FORMAT"),
                },
            )
        else:
            messages.success(
                request,
                _("Your %(period)s limit applies now.") % {"period": limit.get_period_display()},
            )
    return redirect("lobby:profile")


@login_required
@require_POST
def exclusion(request: HttpRequest) -> HttpResponse:
    form_class = TimeOutForm if request.POST.get("kind") == "time_out" else SelfExclusionForm
    form = form_class(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
        return redirect("lobby:profile")
    length = form.cleaned_data["days"] if form_class is TimeOutForm else form.cleaned_data["length"]
    try:
        started = exclusion_start(player=request.user, kind=form.kind, length=length)
    except ResponsibleError as error:
        messages.error(request, error.message)
        return redirect("lobby:profile")
    # The service ended every session, this one included: finish logging out here.
    logout(request)
    messages.info(
        request,
        _(
            "Your %(kind)s runs until %(until)s UTC. You leave every table after the current "
            "hand; you can log in to see your wallet and withdraw, but not deposit or play."
        )
        % {
            "kind": started.get_kind_display(),
            "until": formats.date_format(started.ends_at, "SHORT_DATETIME_FORMAT"),
        },
    )
    return redirect("lobby:login")


@login_required
@require_POST
def reality_check(request: HttpRequest) -> HttpResponse:
    form = RealityCheckForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
        return redirect("lobby:profile")
    reality_check_set(player=request.user, minutes=form.cleaned_data["minutes"])
    messages.success(request, _("Your reality check is saved."))
    return redirect("lobby:profile")
