"""The responsible-gaming part of the profile page, and the terms and fair-play policy pages.
Thin: forms check shape, services decide."""

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import formats
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from responsible.forms import (
    DepositLimitForm,
    LossLimitForm,
    RealityCheckForm,
    SelfExclusionForm,
    SessionLimitForm,
    TermsAcceptForm,
    TimeOutForm,
)
from responsible.models import TermsAcceptance
from responsible.rules import terms_current, terms_pending
from responsible.selectors import responsible_summary
from responsible.services import (
    ResponsibleError,
    deposit_limit_set,
    exclusion_start,
    loss_limit_set,
    reality_check_set,
    session_limit_set,
    terms_accept,
)


def responsible_context(request: HttpRequest) -> dict:
    """What templates/responsible/_profile_section.html needs (the profile view includes it)."""
    return {
        "responsible": responsible_summary(player=request.user),
        "limit_form": DepositLimitForm(),
        "loss_limit_form": LossLimitForm(),
        "session_limit_form": SessionLimitForm(),
        "session_break_minutes": settings.RESPONSIBLE_SESSION_BREAK_MINUTES,
        "time_out_form": TimeOutForm(auto_id="time_out_%s"),
        "self_exclusion_form": SelfExclusionForm(auto_id="self_exclusion_%s"),
        "reality_check_form": RealityCheckForm(),
        "terms_documents": terms_current(),
    }


def _form_errors(request: HttpRequest, form) -> None:
    for field, errors in form.errors.items():
        for error in errors:
            label = form.fields[field].label if field in form.fields else None
            messages.error(request, f"{label or field}: {error}" if field != "__all__" else error)


@login_required
@require_POST
def limit_set(request: HttpRequest) -> HttpResponse:
    return _limit_set(request, form=DepositLimitForm(request.POST), service=deposit_limit_set)


@login_required
@require_POST
def loss_limit(request: HttpRequest) -> HttpResponse:
    return _limit_set(request, form=LossLimitForm(request.POST), service=loss_limit_set)


def _limit_set(request: HttpRequest, *, form, service) -> HttpResponse:
    if not form.is_valid():
        _form_errors(request, form)
        return redirect("lobby:profile")
    try:
        limit = service(
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
def session_limit(request: HttpRequest) -> HttpResponse:
    form = SessionLimitForm(request.POST)
    if not form.is_valid():
        _form_errors(request, form)
        return redirect("lobby:profile")
    try:
        limit = session_limit_set(player=request.user, minutes=form.cleaned_data["minutes"])
    except ResponsibleError as error:
        messages.error(request, error.message)
    else:
        if limit.pending_from is not None:
            messages.info(
                request,
                _("Your session limit changes at %(when)s UTC (a higher limit waits 24 hours).")
                % {"when": formats.date_format(limit.pending_from, "SHORT_DATETIME_FORMAT")},
            )
        else:
            messages.success(request, _("Your session limit applies now."))
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


def terms_document(request: HttpRequest, kind: str) -> HttpResponse:
    """The version in force of the terms or the fair-play policy, for everyone; a logged-in
    player also sees when they accepted it."""
    version = next((each for each in terms_current() if each.kind == kind), None)
    if version is None:
        raise Http404("nothing published yet")
    accepted = None
    if request.user.is_authenticated:
        accepted = TermsAcceptance.objects.filter(player=request.user, terms=version).first()
    return render(request, "responsible/terms.html", {"document": version, "accepted": accepted})


def _next_url(request: HttpRequest) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return "/"


@login_required
@require_http_methods(["GET", "POST"])
def terms_accept_page(request: HttpRequest) -> HttpResponse:
    """Where any page sends a player who has not accepted the current versions (the
    middleware): the documents to accept in full, then back to the page asked for."""
    pending = terms_pending(player=request.user)
    form = TermsAcceptForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            terms_accept(player=request.user, versions=form.cleaned_data["terms_versions"])
        except ResponsibleError as error:
            messages.error(request, error.message)
            return redirect(f"{request.path}?{urlencode({'next': _next_url(request)})}")
        messages.success(request, _("Thank you: you accepted the current versions."))
        return redirect(_next_url(request))
    if request.method == "GET":
        if not pending:
            return redirect(_next_url(request))
        form = TermsAcceptForm(
            initial={"terms_versions": ",".join(str(version.pk) for version in pending)}
        )
    return render(
        request,
        "responsible/terms_accept.html",
        {"pending": pending, "form": form, "next": _next_url(request)},
    )
