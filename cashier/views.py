"""The cashier page: the player's own balance, deposit and withdraw forms, and history."""

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from cashier.forms import MoveForm
from cashier.models import Account
from cashier.selectors import player_history, wallet_balance
from cashier.services import CashierError, dollars, wallet_deposit, wallet_withdraw

HISTORY_PAGE_SIZE = 20


@login_required
def cashier_home(request: HttpRequest) -> HttpResponse:
    page = Paginator(player_history(player=request.user), HISTORY_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    stacks = Account.objects.filter(
        kind=Account.Kind.TABLE_STACK, owner=request.user, balance__gt=0
    ).select_related("table")
    # A fresh key per rendered form: a double-click or a reload of the POST moves money once.
    return render(
        request,
        "cashier/home.html",
        {
            "balance": wallet_balance(player=request.user),
            "stacks": stacks,
            "deposit_form": MoveForm(initial={"idempotency_key": uuid.uuid4().hex}),
            "withdraw_form": MoveForm(initial={"idempotency_key": uuid.uuid4().hex}),
            "page": page,
        },
    )


def _move(request: HttpRequest, service, verb: str) -> HttpResponse:
    form = MoveForm(request.POST)
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(
                    request, _("%(what)s refused: %(why)s") % {"what": verb, "why": error}
                )
        return redirect("cashier:home")
    try:
        service(
            player=request.user,
            amount=form.cents(),
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except CashierError as error:
        messages.error(
            request, _("%(what)s refused: %(why)s") % {"what": verb, "why": error.message}
        )
    else:
        done = (
            _("Deposit of %(amount)s done.")
            if service is wallet_deposit
            else _("Withdrawal of %(amount)s done.")
        )
        messages.success(
            request,
            (done % {"amount": dollars(form.cents())})
            + " "
            + _("Wallet: %(balance)s.") % {"balance": dollars(wallet_balance(player=request.user))},
        )
    return redirect("cashier:home")


@login_required
@require_POST
def cashier_deposit(request: HttpRequest) -> HttpResponse:
    return _move(request, wallet_deposit, _("Deposit"))


@login_required
@require_POST
def cashier_withdraw(request: HttpRequest) -> HttpResponse:
    return _move(request, wallet_withdraw, _("Withdrawal"))
