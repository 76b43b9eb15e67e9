"""Withdrawals waiting for identity checks: which wait, the held account, and the compliance
role's decisions (cashier/withdrawals.py), each one balanced entry moving the money once."""

import pytest

from audit.models import AuditRecord
from cashier.audit_reports import daily_report
from cashier.models import Account, Entry, PendingWithdrawal
from cashier.selectors import wallet_balance
from cashier.services import CashierError, wallet_deposit, wallet_withdraw
from cashier.verify import ledger_verify
from cashier.withdrawals import (
    withdrawal_approve,
    withdrawal_cancel,
    withdrawal_hold,
    withdrawal_reject,
    withdrawal_release,
)
from tests.factories import make_compliance_officer, make_funded_player, make_staff, make_verified

Reason = Entry.Reason
Status = PendingWithdrawal.Status


@pytest.fixture(autouse=True)
def thresholds(settings):
    """$100 a withdrawal, $300 in all ($1,000 funded players)."""
    settings.WITHDRAWAL_CHECK_ABOVE_CENTS = 10_000
    settings.WITHDRAWAL_CHECK_TOTAL_CENTS = 30_000


def held_balance() -> int:
    return Account.objects.get(kind=Account.Kind.WITHDRAWALS_PENDING).balance


def ask(player, amount, key="w1"):
    return wallet_withdraw(player=player, amount=amount, idempotency_key=key)


@pytest.mark.django_db
def test_up_to_the_threshold_pays_at_once_above_it_the_money_is_held_once():
    player = make_funded_player("alice")
    assert ask(player, 10_000, "at").reason == Reason.WITHDRAWAL
    entry = ask(player, 10_001, "above")
    assert entry.reason == Reason.WITHDRAWAL_HELD
    assert ask(player, 10_001, "above") == entry  # the retry replays, nothing more moves
    pending = PendingWithdrawal.objects.get()
    assert (pending.amount, pending.status, pending.why) == (
        10_001,
        Status.PENDING,
        "above_threshold",
    )
    assert pending.held_entry == entry
    assert wallet_balance(player=player) == 100_000 - 20_001
    assert held_balance() == 10_001
    assert AuditRecord.objects.filter(action="cashier.withdrawal_pending").count() == 1
    assert ledger_verify().ok, ledger_verify().problems


@pytest.mark.django_db
def test_every_withdrawal_waits_once_the_total_passes_and_a_checked_player_never_waits():
    player = make_funded_player("alice")
    for n in range(3):
        assert ask(player, 10_000, f"w{n}").reason == Reason.WITHDRAWAL  # $300: not past it
    small = ask(player, 1, "past")
    assert small.reason == Reason.WITHDRAWAL_HELD
    assert PendingWithdrawal.objects.get().why == "total"
    checked = make_verified(make_funded_player("bob"))
    assert ask(checked, 90_000, "big").reason == Reason.WITHDRAWAL


@pytest.mark.django_db
def test_held_money_cannot_be_spent_twice():
    player = make_funded_player("alice")
    ask(player, 100_000, "all")
    with pytest.raises(CashierError) as refused:
        ask(player, 1, "again")
    assert refused.value.code == "insufficient_funds"
    pending = PendingWithdrawal.objects.get()
    withdrawal_cancel(withdrawal=pending, player=player)
    officer = make_compliance_officer()
    for decide in (
        lambda: withdrawal_cancel(withdrawal=pending, player=player),
        lambda: withdrawal_reject(withdrawal=pending, rejected_by=officer, reason="x"),
        lambda: withdrawal_approve(withdrawal=pending, approved_by=officer, reason="x"),
    ):
        with pytest.raises(CashierError) as refused:
            decide()
        assert refused.value.code == "withdrawal_cancelled"
    assert wallet_balance(player=player) == 100_000
    assert held_balance() == 0
    assert Entry.objects.filter(reason=Reason.WITHDRAWAL_RETURNED).count() == 1
    assert ledger_verify().ok, ledger_verify().problems


@pytest.mark.django_db
def test_approval_waits_for_the_documents_then_pays_out_from_the_held_account():
    player = make_funded_player("alice")
    ask(player, 50_000)
    pending = PendingWithdrawal.objects.get()
    officer = make_compliance_officer()
    with pytest.raises(CashierError) as refused:
        withdrawal_approve(withdrawal=pending, approved_by=officer, reason="documents fine")
    assert refused.value.code == "not_verified"
    make_verified(player, reviewer=officer)
    done = withdrawal_approve(withdrawal=pending, approved_by=officer, reason="documents fine")
    assert (done.status, done.decided_by) == (Status.PAID, officer)
    paid = done.settled_entry
    assert paid.reason == Reason.WITHDRAWAL_PAID
    assert paid.idempotency_key == f"withdrawal:{pending.pk}:paid"
    legs = {p.account.kind: p.amount for p in paid.postings.select_related("account")}
    assert legs == {"withdrawals_pending": -50_000, "outside_world": 50_000}
    assert (wallet_balance(player=player), held_balance()) == (50_000, 0)
    record = AuditRecord.objects.get(action="cashier.withdrawal_approved")
    assert (record.actor_id, record.reason) == (officer.pk, "documents fine")
    assert ledger_verify().ok, ledger_verify().problems
    # The auditors' daily report counts it the day it is paid out, not the day it is held.
    (today,) = daily_report(days=[paid.created_at.date()])
    assert today["withdrawals"] == {"count": 1, "amount": 50_000}


@pytest.mark.django_db
def test_a_hold_stops_approval_and_cancel_until_lifted_and_rejection_returns_the_money():
    player = make_funded_player("alice")
    ask(player, 20_000, "a")
    ask(player, 30_000, "b")
    first, second = PendingWithdrawal.objects.order_by("id")
    officer = make_compliance_officer()
    make_verified(player, reviewer=officer)
    withdrawal_hold(withdrawal=first, held_by=officer, reason="AML review")
    with pytest.raises(CashierError, match="on hold"):
        withdrawal_cancel(withdrawal=first, player=player)
    with pytest.raises(CashierError) as refused:
        withdrawal_approve(withdrawal=first, approved_by=officer, reason="ok")
    assert refused.value.code == "withdrawal_on_hold"
    withdrawal_release(withdrawal=first, released_by=officer, reason="cleared")
    assert withdrawal_approve(withdrawal=first, approved_by=officer, reason="ok").status == "paid"
    with pytest.raises(CashierError) as refused:
        withdrawal_reject(withdrawal=second, rejected_by=officer, reason=" ")
    assert refused.value.code == "reason_required"
    withdrawal_reject(withdrawal=second, rejected_by=officer, reason="name does not match")
    assert wallet_balance(player=player) == 80_000
    actions = set(AuditRecord.objects.values_list("action", flat=True))
    assert {"cashier.withdrawal_held", "cashier.withdrawal_released",
            "cashier.withdrawal_rejected"} <= actions  # fmt: skip
    assert ledger_verify().ok, ledger_verify().problems


@pytest.mark.django_db
def test_only_the_compliance_role_decides_and_never_its_own_withdrawal():
    player = make_funded_player("alice")
    ask(player, 50_000)
    pending = PendingWithdrawal.objects.get()
    others = [make_staff("sam", "support"), make_staff("cam", "cashier managers", "table managers")]
    for staff in [*others, player]:
        with pytest.raises(CashierError) as refused:
            withdrawal_hold(withdrawal=pending, held_by=staff, reason="x")
        assert refused.value.code == "not_compliance"
    officer = make_compliance_officer()
    wallet_deposit(player=officer, amount=50_000, idempotency_key="own-money")
    ask(officer, 50_000, "own")
    own = PendingWithdrawal.objects.get(player=officer)
    with pytest.raises(CashierError) as refused:
        withdrawal_hold(withdrawal=own, held_by=officer, reason="x")
    assert refused.value.code == "own_account"
    pending.refresh_from_db()
    assert pending.status == Status.PENDING


@pytest.mark.django_db
def test_verify_ledger_names_a_held_account_that_does_not_match_its_withdrawals():
    player = make_funded_player("alice")
    ask(player, 50_000)
    PendingWithdrawal.objects.update(amount=49_000)
    problems = [p for p in ledger_verify().problems if "withdrawals_pending_match" in p]
    assert any("is not withdrawal" in p for p in problems)
    assert any("holds 50000" in p for p in problems)
