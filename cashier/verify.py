"""The whole-ledger check behind `manage.py verify_ledger` (and the auditors' trust in it)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db.models import Count, F, Q, Sum, Value
from django.db.models.functions import Coalesce

from cashier.models import Account, Entry, Posting


@dataclass
class LedgerReport:
    entries: int = 0
    postings: int = 0
    accounts: int = 0
    total_balance: int = 0
    total_postings: int = 0
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def ledger_verify() -> LedgerReport:
    """Every entry balanced (two legs or more), every stored balance equal to the sum of its
    postings, and the total over all accounts zero."""
    report = LedgerReport(
        entries=Entry.objects.count(),
        postings=Posting.objects.count(),
        accounts=Account.objects.count(),
    )
    unbalanced = (
        Entry.objects.annotate(
            total=Coalesce(Sum("postings__amount"), Value(0)), legs=Count("postings")
        )
        .filter(~Q(total=0) | Q(legs=1) | (Q(legs=0) & ~Q(reason=Entry.Reason.HAND_SETTLEMENT)))
        .order_by("id")
    )
    for entry in unbalanced:
        report.problems.append(
            f"entry #{entry.pk} ({entry.reason}, {entry.created_at:%Y-%m-%d %H:%M:%S}) has "
            f"{entry.legs} posting(s) summing to {entry.total}, not a balanced entry"
        )
    drifted = (
        Account.objects.annotate(posted=Coalesce(Sum("postings__amount"), Value(0)))
        .exclude(balance=F("posted"))
        .order_by("id")
    )
    for account in drifted:
        entries = sorted(set(account.postings.values_list("entry_id", flat=True)))[-5:]
        report.problems.append(
            f"account #{account.pk} ({account}) stores {account.balance} but its postings "
            f"sum to {account.posted} (latest entries: {', '.join(f'#{e}' for e in entries)})"
        )
    negative = Account.objects.filter(kind__in=Account.PLAYER_KINDS, balance__lt=0)
    for account in negative.order_by("id"):
        report.problems.append(f"account #{account.pk} ({account}) is below zero")
    report.total_balance = Account.objects.aggregate(t=Coalesce(Sum("balance"), Value(0)))["t"]
    report.total_postings = Posting.objects.aggregate(t=Coalesce(Sum("amount"), Value(0)))["t"]
    if report.total_balance != 0:
        report.problems.append(f"the balances of all accounts sum to {report.total_balance}")
    if report.total_postings != 0:
        report.problems.append(f"all postings sum to {report.total_postings}")
    return report
