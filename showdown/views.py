"""The banked game's pages: play at a table (wagers, Deal, Fold / Call / Raise, the result)
and the player's history. Server-rendered forms, POST then redirect: a reload never repeats
anything, and a round left unfinished is on the page again whenever the player comes back."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import formats
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from cashier.selectors import wallet_balance
from config.errors import Refused
from config.inputs import dollars
from showdown import selectors
from showdown.forms import DealForm, DecideForm
from showdown.models import ShowdownRound, ShowdownTable
from showdown.selectors import round_commitment
from showdown.services import round_deal, round_decide, voided_rounds_tell

HISTORY_PAGE_SIZE = 20
WAGERS = ("ante", "bet", "hole_card_bonus", "final_hand_bonus")


def tell_voided_rounds(request: HttpRequest) -> None:
    """Tell the player, once, about rounds of theirs voided after 90 days (RULES.md 6)."""
    for round_ in voided_rounds_tell(player=request.user):
        messages.warning(
            request,
            _(
                "Your Omaha Showdown round #%(round)s at %(table)s, dealt %(dealt)s, was left "
                "undecided for 90 days and voided on %(voided)s: its %(staked)s in wagers went "
                "to the charity account."
            )
            % {
                "round": round_.pk,
                "table": round_.table.name,
                "dealt": formats.date_format(round_.created_at, "SHORT_DATE_FORMAT"),
                "voided": formats.date_format(round_.voided_at, "SHORT_DATE_FORMAT"),
                "staked": dollars(round_.staked),
            },
        )


def _table_or_404(request: HttpRequest, table_id: int) -> ShowdownTable:
    table = selectors.table_for_play(table_id, player=request.user)
    if table is None:
        raise Http404("No such table")
    return table


def _costs(round_: ShowdownRound, balance: int) -> list[dict]:
    return [
        # `key`: the keyboard shortcut (static/js/showdown.js), the same in every language.
        {"decision": "fold", "label": _("Fold"), "key": "F", "cost": 0, "affordable": True},
        {
            "decision": "call",
            "label": _("Call"),
            "key": "C",
            "cost": round_.ante,
            "affordable": balance >= round_.ante,
        },
        {
            "decision": "raise",
            "label": _("Raise"),
            "key": "R",
            "cost": 2 * round_.ante,
            "affordable": balance >= 2 * round_.ante,
        },
    ]


def _wager_rows(round_: ShowdownRound) -> list[dict]:
    seat = round_.seat_result
    if seat is None:
        return []
    return [{"wager": name, **seat["wagers"][name]} for name in WAGERS if name in seat["wagers"]]


@login_required
def play(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _table_or_404(request, table_id)
    tell_voided_rounds(request)
    balance = wallet_balance(player=request.user)
    current = selectors.round_unfinished(player=request.user, table=table)
    last = None if current else selectors.round_last_finished(player=request.user, table=table)
    previous = current or last
    initial = {
        "ante": (previous.ante if previous else table.ante_min) / 100,
        "hole_card_bonus": (previous.hole_card_bonus if previous else 0) / 100 or None,
        "final_hand_bonus": (previous.final_hand_bonus if previous else 0) / 100 or None,
        "idempotency_key": uuid.uuid4().hex,
    }
    return render(
        request,
        "showdown/play.html",
        {
            "table": table,
            "balance": balance,
            "round": current,
            "round_commitment": round_commitment(current) if current else None,
            "costs": _costs(current, balance) if current else [],
            "decide_key": uuid.uuid4().hex,
            "last": last,
            "last_wagers": _wager_rows(last) if last else [],
            "deal_form": DealForm(initial=initial),
            "paytables": table.paytable_rows(),
        },
    )


def _refusal(request: HttpRequest, verb: str, form) -> None:
    for errors in form.errors.values():
        for error in errors:
            messages.error(request, _("%(what)s refused: %(why)s") % {"what": verb, "why": error})


@login_required
@require_POST
def deal(request: HttpRequest, table_id: int) -> HttpResponse:
    table = _table_or_404(request, table_id)
    form = DealForm(request.POST)
    if not form.is_valid():
        _refusal(request, _("Deal"), form)
        return redirect("showdown:table", table.pk)
    try:
        round_deal(
            player=request.user,
            table=table,
            ante=form.cleaned_data["ante"],
            hole_card_bonus=form.cleaned_data["hole_card_bonus"],
            final_hand_bonus=form.cleaned_data["final_hand_bonus"],
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except Refused as error:
        messages.error(request, _("Deal refused: %(why)s") % {"why": error.message})
    return redirect("showdown:table", table.pk)


@login_required
@require_POST
def decide(request: HttpRequest, round_id: int) -> HttpResponse:
    round_ = ShowdownRound.objects.filter(pk=round_id, player=request.user).first()
    if round_ is None:
        raise Http404("No such round")
    form = DecideForm(request.POST)
    if not form.is_valid():
        _refusal(request, _("Decision"), form)
        return redirect("showdown:table", round_.table_id)
    try:
        round_decide(
            player=request.user,
            round_id=round_.pk,
            decision=form.cleaned_data["decision"],
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except Refused as error:
        verbs = {"fold": _("Fold"), "call": _("Call"), "raise": _("Raise")}
        decision = form.cleaned_data["decision"]
        messages.error(
            request,
            _("%(what)s refused: %(why)s")
            % {"what": verbs.get(decision, decision), "why": error.message},
        )
    return redirect("showdown:table", round_.table_id)


@login_required
def history(request: HttpRequest) -> HttpResponse:
    tell_voided_rounds(request)
    page = Paginator(selectors.player_rounds(player=request.user), HISTORY_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    return render(request, "showdown/history.html", {"page": page})
