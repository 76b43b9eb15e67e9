"""The cashier page: the player's own balance, deposit and withdraw forms, and history."""

import csv
import io
import uuid
from datetime import timedelta
from decimal import Decimal

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from cashier.forms import MoveForm
from cashier.models import Account, Entry
from cashier.selectors import (
    account_statement,
    pending_withdrawals_of,
    player_history,
    wallet_balance,
)
from cashier.services import CashierError, dollars, wallet_deposit, wallet_withdraw
from cashier.withdrawals import withdrawal_cancel
from config.csv_cells import csv_escape_row
from config.inputs import BadInput, parse_query_range
from verification.forms import BirthDateForm, DocumentForm
from verification.selectors import verification_state

HISTORY_PAGE_SIZE = 20


@login_required
def cashier_home(request: HttpRequest) -> HttpResponse:
    page = Paginator(player_history(player=request.user), HISTORY_PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    stacks = Account.objects.filter(
        kind=Account.Kind.TABLE_STACK, owner=request.user, balance__gt=0
    ).select_related("table")
    today = timezone.now().date()
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
            "verification": verification_state(player=request.user),
            "document_form": DocumentForm(),
            "birth_date_form": BirthDateForm(),
            "pending_withdrawals": pending_withdrawals_of(player=request.user),
            "withdrawal_check_above": settings.WITHDRAWAL_CHECK_ABOVE_CENTS,
            "withdrawal_check_total": settings.WITHDRAWAL_CHECK_TOTAL_CENTS,
            "upload_most_mb": f"{settings.VERIFICATION_MAX_UPLOAD_BYTES / 1_000_000:g}",
            "statement_from": today.replace(day=1).isoformat(),
            "statement_to": today.isoformat(),
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
        entry = service(
            player=request.user,
            amount=form.cents(),
            idempotency_key=form.cleaned_data["idempotency_key"],
        )
    except CashierError as error:
        messages.error(
            request, _("%(what)s refused: %(why)s") % {"what": verb, "why": error.message}
        )
    else:
        if entry.reason == Entry.Reason.WITHDRAWAL_HELD:
            done = _(
                "Withdrawal of %(amount)s waits for identity checks: the money is held for it, "
                "and paid out once our compliance team approved your documents."
            )
        elif service is wallet_deposit:
            done = _("Deposit of %(amount)s done.")
        else:
            done = _("Withdrawal of %(amount)s done.")
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


@login_required
@require_POST
def cashier_withdrawal_cancel(request: HttpRequest, withdrawal_id: int) -> HttpResponse:
    """The player takes back a withdrawal waiting for checks: the money returns to the wallet."""
    try:
        withdrawal = withdrawal_cancel(withdrawal=withdrawal_id, player=request.user)
    except CashierError as error:
        messages.error(request, error.message)
    else:
        messages.success(
            request,
            _("Withdrawal of %(amount)s cancelled: the money is back in your wallet.")
            % {"amount": dollars(withdrawal.amount)},
        )
    return redirect("cashier:home")


STATEMENT_COLUMNS = ("date_utc", "entry", "type", "account", "table", "hand", "amount",
                     "wallet_balance", "note")  # fmt: skip
STATEMENT_MOST_DAYS = 366


def _cents(value: int | None) -> Decimal | None:
    """Dollars as a number a spreadsheet sums (-12.50), not text it may take for a formula."""
    return None if value is None else Decimal(value).scaleb(-2)


@login_required
def cashier_statement(request: HttpRequest) -> HttpResponse:
    """The player's account statement for `?from=&to=` (UTC days, at most a year) as CSV: the
    history's lines with the wallet's balance after each, between an opening and a closing
    balance. Text cells a spreadsheet would run as a formula are escaped."""
    try:
        date_from, date_to = parse_query_range(request.GET)
    except BadInput as error:
        return HttpResponse(error.message, status=400, content_type="text/plain; charset=utf-8")
    date_to = date_to or timezone.now().date()
    date_from = date_from or date_to.replace(day=1)
    if date_from > date_to or (date_to - date_from) >= timedelta(days=STATEMENT_MOST_DAYS):
        message = _("A statement covers one day to a year, from its first day to its last.")
        return HttpResponse(message, status=400, content_type="text/plain; charset=utf-8")
    statement = account_statement(player=request.user, date_from=date_from, date_to=date_to)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=STATEMENT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerow({"date_utc": date_from.isoformat(), "type": "opening balance",
                     "wallet_balance": _cents(statement["opening"])})  # fmt: skip
    for line in statement["lines"]:
        posting = line["posting"]
        entry = posting.entry
        row = {
            "date_utc": entry.created_at.isoformat(timespec="seconds"),
            "entry": entry.pk,
            "type": entry.reason,
            "account": posting.account.kind,
            "table": line["table"].name if line["table"] else "",
            "hand": entry.hand_id or "",
            "amount": _cents(posting.amount),
            "wallet_balance": _cents(line["wallet_after"]),
            "note": entry.memo,
        }
        writer.writerow(csv_escape_row(row))
    writer.writerow({"date_utc": date_to.isoformat(), "type": "closing balance",
                     "wallet_balance": _cents(statement["closing"])})  # fmt: skip
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    name = f"statement-{date_from}-to-{date_to}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response
