"""Balance adjustments, four eyes: a request moves nothing; another staff member's approval
posts one balanced `adjustment` entry with one audit record; the requester can never decide;
a refused decision changes nothing and writes no record."""

import pytest
from django.db import IntegrityError, transaction

from audit.models import AuditRecord
from cashier.adjustments import adjustment_approve, adjustment_reject, adjustment_request
from cashier.models import Account, BalanceAdjustment, Entry
from cashier.selectors import wallet_balance
from cashier.services import CashierError
from cashier.verify import ledger_verify
from tests.cashier.ledger_writes import post_behind_the_guards
from tests.factories import make_funded_player, make_player, make_staff

pytestmark = pytest.mark.django_db


@pytest.fixture
def people():
    return {
        "player": make_funded_player("pat", cents=10_000),
        "asker": make_staff("asker", "cashier managers"),
        "checker": make_staff("checker", "cashier managers"),
    }


def records(action: str) -> int:
    return AuditRecord.objects.filter(action=action).count()


def test_request_moves_nothing_and_is_audited(people):
    adjustment = adjustment_request(
        player=people["player"],
        amount=2_500,
        reason="lost hand refund",
        requested_by=people["asker"],
    )
    assert adjustment.status == BalanceAdjustment.Status.PENDING
    assert wallet_balance(player=people["player"]) == 10_000
    assert not Entry.objects.filter(reason=Entry.Reason.ADJUSTMENT).exists()
    record = AuditRecord.objects.get(action="staff.adjustment_requested")
    assert record.actor == people["asker"] and record.reason == "lost hand refund"
    assert record.payload["amount"] == 2_500


@pytest.mark.parametrize("amount", [2_500, -4_000])
def test_approval_by_another_posts_one_balanced_entry(people, amount):
    adjustment = adjustment_request(
        player=people["player"], amount=amount, reason="fix", requested_by=people["asker"]
    )
    done = adjustment_approve(adjustment=adjustment, approved_by=people["checker"], reason="ok")
    assert done.status == BalanceAdjustment.Status.POSTED and done.decided_by == people["checker"]
    assert wallet_balance(player=people["player"]) == 10_000 + amount
    entry = done.entry
    assert entry.reason == Entry.Reason.ADJUSTMENT and entry.created_by == people["checker"]
    legs = {p.account.kind: p.amount for p in entry.postings.select_related("account")}
    assert legs == {Account.Kind.WALLET: amount, Account.Kind.ADJUSTMENTS: -amount}
    assert records("staff.adjustment_approved") == 1
    assert ledger_verify().ok


def test_requester_cannot_approve_or_reject(people):
    adjustment = adjustment_request(
        player=people["player"], amount=100, reason="fix", requested_by=people["asker"]
    )
    for decide in (
        lambda: adjustment_approve(adjustment=adjustment, approved_by=people["asker"], reason="me"),
        lambda: adjustment_reject(adjustment=adjustment, rejected_by=people["asker"], reason="me"),
    ):
        with pytest.raises(CashierError) as refused:
            decide()
        assert refused.value.code == "four_eyes"
    adjustment.refresh_from_db()
    assert adjustment.status == BalanceAdjustment.Status.PENDING
    assert wallet_balance(player=people["player"]) == 10_000
    assert records("staff.adjustment_approved") == records("staff.adjustment_rejected") == 0


def test_database_refuses_a_self_approved_row(people):
    adjustment = adjustment_request(
        player=people["player"], amount=100, reason="fix", requested_by=people["asker"]
    )
    with pytest.raises(IntegrityError), transaction.atomic():
        BalanceAdjustment.objects.filter(pk=adjustment.pk).update(
            status="rejected", decided_by=people["asker"]
        )


def test_debit_beyond_the_wallet_is_refused_and_stays_pending(people):
    adjustment = adjustment_request(
        player=people["player"], amount=-20_000, reason="clawback", requested_by=people["asker"]
    )
    with pytest.raises(CashierError) as refused:
        adjustment_approve(adjustment=adjustment, approved_by=people["checker"], reason="ok")
    assert refused.value.code == "insufficient_funds"
    adjustment.refresh_from_db()
    assert adjustment.status == BalanceAdjustment.Status.PENDING and adjustment.entry is None
    assert records("staff.adjustment_approved") == 0
    assert wallet_balance(player=people["player"]) == 10_000


def test_rejected_then_nothing_more(people):
    adjustment = adjustment_request(
        player=people["player"], amount=100, reason="fix", requested_by=people["asker"]
    )
    adjustment_reject(adjustment=adjustment, rejected_by=people["checker"], reason="no proof")
    with pytest.raises(CashierError) as refused:
        adjustment_approve(adjustment=adjustment, approved_by=people["checker"], reason="ok")
    assert refused.value.code == "already_decided"
    assert wallet_balance(player=people["player"]) == 10_000
    assert records("staff.adjustment_rejected") == 1


@pytest.mark.parametrize(
    ("amount", "reason", "code"),
    [
        (0, "x", "bad_amount"),
        ("12", "x", "bad_amount"),
        (1.5, "x", "bad_amount"),
        (True, "x", "bad_amount"),
        (-(10**12), "x", "bad_amount"),
        (100, "  ", "reason_required"),
    ],
)
def test_bad_requests_change_nothing(people, amount, reason, code):
    with pytest.raises(CashierError) as refused:
        adjustment_request(
            player=people["player"], amount=amount, reason=reason, requested_by=people["asker"]
        )
    assert refused.value.code == code
    assert not BalanceAdjustment.objects.exists()
    assert records("staff.adjustment_requested") == 0


def test_non_staff_and_own_wallet_refused(people):
    with pytest.raises(CashierError) as refused:
        adjustment_request(
            player=people["player"], amount=100, reason="x", requested_by=make_player("nobody")
        )
    assert refused.value.code == "not_staff"
    with pytest.raises(CashierError) as refused:
        adjustment_request(
            player=people["asker"], amount=100, reason="x", requested_by=people["asker"]
        )
    assert refused.value.code == "own_account"


RULE = "adjustments_approved_by_a_second_staff_member"


def only_rule_broken() -> list[str]:
    report = ledger_verify()
    assert not report.ok
    assert all(problem.startswith(f"[{RULE}]") for problem in report.problems), report.problems
    return report.problems


def test_verify_ledger_names_an_adjustment_nobody_approved(people):
    wallet = Account.objects.get(kind="wallet", owner=people["player"])
    house = Account.objects.get_or_create(kind="adjustments")[0]
    entry_id = post_behind_the_guards(
        reason="adjustment", player=people["player"], legs=[(wallet, 500), (house, -500)]
    )
    (problem,) = only_rule_broken()
    assert f"entry #{entry_id}" in problem and "no approved balance adjustment" in problem


def test_verify_ledger_names_the_adjustments_account_in_another_entry(people):
    wallet = Account.objects.get(kind="wallet", owner=people["player"])
    house = Account.objects.get_or_create(kind="adjustments")[0]
    post_behind_the_guards(
        reason="deposit", player=people["player"], legs=[(wallet, 500), (house, -500)]
    )
    report = ledger_verify()
    assert any(p.startswith(f"[{RULE}]") for p in report.problems), report.problems
