"""The whole-ledger check behind `manage.py verify_ledger` (and the auditors' trust in it).

Each check has a name, and every problem it finds is reported under that name:

- arithmetic: every entry balanced with two legs or more, every stored balance equal to the sum
  of its postings, no player balance below zero, everything summing to zero;
- meaning: which entries may touch which accounts. A table's rake account only receives, from
  that table's hand settlements; the charity account only receives, from voids; a wallet or a
  table stack only moves in its owner's entries (or, for a stack, in a settlement of a hand at
  its table; for a wallet, in the room's settlement of a live banked round, which the banked
  game's check matches to its seats); deposits and withdrawals move money between the outside
  world and the player's wallet and nothing else touches the outside world (but a withdrawal
  that waited for identity checks, paid out of the held `withdrawals_pending` account, whose
  entries each match their `PendingWithdrawal` and whose balance is what those still wait for);
  a tournament's prize pool and the fee account move only in that tournament's buy-ins and
  refunds.

Apps above the cashier add checks of their own with `ledger_check_register` (poker registers
that every settled hand's entry equals the hand's result), so the cashier never imports them.
All checks read one snapshot (a read-only REPEATABLE READ transaction), so money moving in a
live room while they run cannot look like drift.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.db.models import Count, F, Q, Sum, Value
from django.db.models.functions import Coalesce

from cashier.models import Account, BalanceAdjustment, Entry, PendingWithdrawal, Posting

Kind = Account.Kind
Reason = Entry.Reason

# Problems listed per check; the rest are only counted, so a badly broken ledger stays readable.
MAX_LISTED = 20


@dataclass(frozen=True)
class LedgerCheck:
    """One named rule: `find()` yields a sentence for every place the ledger breaks it."""

    name: str
    says: str  # what it checks, one sentence, for the command's output
    find: Callable[[], Iterable[str]]


@dataclass
class LedgerReport:
    entries: int = 0
    postings: int = 0
    accounts: int = 0
    total_balance: int = 0
    total_postings: int = 0
    checks: list[LedgerCheck] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


# -- describing what broke


def _entry_label(entry: Entry) -> str:
    table = f", table {entry.table_id}" if entry.table_id else ""
    return f"entry #{entry.pk} ({entry.reason}{table}, {entry.created_at:%Y-%m-%d %H:%M:%S})"


def _posting_label(posting: Posting) -> str:
    account = posting.account
    return (
        f"posting #{posting.pk} of {_entry_label(posting.entry)} puts {posting.amount:+d} on "
        f"account #{account.pk} ({account})"
    )


def _postings(condition: Q) -> Iterator[Posting]:
    return (
        Posting.objects.filter(condition)
        .select_related("entry", "account", "account__owner")
        .order_by("id")
        .iterator(chunk_size=500)
    )


# -- arithmetic


def _unbalanced_entries() -> Iterator[str]:
    unbalanced = (
        Entry.objects.annotate(
            total=Coalesce(Sum("postings__amount"), Value(0)), legs=Count("postings")
        )
        .filter(~Q(total=0) | Q(legs=1) | (Q(legs=0) & ~Q(reason=Reason.HAND_SETTLEMENT)))
        .order_by("id")
    )
    for entry in unbalanced:
        yield (
            f"entry #{entry.pk} ({entry.reason}, {entry.created_at:%Y-%m-%d %H:%M:%S}) has "
            f"{entry.legs} posting(s) summing to {entry.total}, not a balanced entry"
        )


def _drifted_balances() -> Iterator[str]:
    drifted = (
        Account.objects.annotate(posted=Coalesce(Sum("postings__amount"), Value(0)))
        .exclude(balance=F("posted"))
        .select_related("owner")
        .order_by("id")
    )
    for account in drifted:
        entries = sorted(set(account.postings.values_list("entry_id", flat=True)))[-5:]
        yield (
            f"account #{account.pk} ({account}) stores {account.balance} but its postings "
            f"sum to {account.posted} (latest entries: {', '.join(f'#{e}' for e in entries)})"
        )


def _negative_player_balances() -> Iterator[str]:
    negative = Account.objects.filter(kind__in=Account.PLAYER_KINDS, balance__lt=0)
    for account in negative.select_related("owner").order_by("id"):
        yield f"account #{account.pk} ({account}) is below zero"


def _nonzero_totals() -> Iterator[str]:
    balances = Account.objects.aggregate(t=Coalesce(Sum("balance"), Value(0)))["t"]
    postings = Posting.objects.aggregate(t=Coalesce(Sum("amount"), Value(0)))["t"]
    if balances != 0:
        yield f"the balances of all accounts sum to {balances}"
    if postings != 0:
        yield f"all postings sum to {postings}"


# -- meaning


def _rake_not_from_settlements() -> Iterator[str]:
    wrong = Q(account__kind=Kind.TABLE_RAKE) & (
        ~Q(entry__reason=Reason.HAND_SETTLEMENT)
        | Q(amount__lt=0)
        | ~Q(entry__table_id=F("account__table_id"))
    )
    for posting in _postings(wrong):
        yield (
            f"{_posting_label(posting)}: a table's rake account only receives, from hand "
            "settlements at that table"
        )


def _charity_not_from_voids() -> Iterator[str]:
    wrong = Q(account__kind=Kind.CHARITY) & (~Q(entry__reason=Reason.VOID) | Q(amount__lt=0))
    for posting in _postings(wrong):
        yield f"{_posting_label(posting)}: the charity account only receives, from voids"


def _player_money_in_others_entries() -> Iterator[str]:
    own_entry = Q(entry__player_id=F("account__owner_id"))
    room_settlement = Q(entry__reason=Reason.HAND_SETTLEMENT, entry__player__isnull=True)
    # A live banked round settles all its seats in one entry of the room's: the banked
    # game's own check matches each of its wallet legs to a seat's round.
    room_banked = Q(entry__reason=Reason.BANKED_PAYOUT, entry__player__isnull=True)
    # A Sit & Go's prizes are one entry of the room's: the tournaments' own check matches
    # each wallet leg to a place paid.
    room_prizes = Q(entry__reason=Reason.TOURNAMENT_PAYOUT, entry__player__isnull=True)
    wrong = (Q(account__kind=Kind.WALLET) & ~(own_entry | room_banked | room_prizes)) | (
        Q(account__kind=Kind.TABLE_STACK)
        & ~((own_entry | room_settlement) & Q(entry__table_id=F("account__table_id")))
    )
    for posting in _postings(wrong):
        player = posting.entry.player_id
        rule = (
            "a wallet only moves in its owner's entries (and in live banked settlements and "
            "tournament prizes)"
            if posting.account.kind == Kind.WALLET
            else "a table stack only moves in its owner's entries at its table and in that "
            "table's hand settlements"
        )
        yield (
            f"{_posting_label(posting)}: {rule} (this entry is "
            f"{f'player #{player}' if player else 'no player'}'s)"
        )


def _legs(entry: Entry) -> str:
    postings = entry.postings.select_related("account", "account__owner").order_by("id")
    return ", ".join(f"{p.amount:+d} on #{p.account_id} ({p.account})" for p in postings) or "none"


def _outside_world_misused() -> Iterator[str]:
    elsewhere = Q(account__kind=Kind.OUTSIDE_WORLD) & ~Q(
        entry__reason__in=[Reason.DEPOSIT, Reason.WITHDRAWAL, Reason.WITHDRAWAL_PAID]
    )
    for posting in _postings(elsewhere):
        yield (f"{_posting_label(posting)}: only deposits and withdrawals touch the outside world")
    world = Q(postings__account__kind=Kind.OUTSIDE_WORLD)
    own_wallet = Q(postings__account__kind=Kind.WALLET) & Q(
        postings__account__owner_id=F("player_id")
    )
    misshapen = (
        Entry.objects.filter(reason__in=[Reason.DEPOSIT, Reason.WITHDRAWAL])
        .annotate(
            legs=Count("postings"),
            world_legs=Count("postings", filter=world),
            wallet_legs=Count("postings", filter=own_wallet),
            from_world=Coalesce(Sum("postings__amount", filter=world), Value(0)),
        )
        .filter(
            ~Q(legs=2)
            | ~Q(world_legs=1)
            | ~Q(wallet_legs=1)
            | Q(reason=Reason.DEPOSIT, from_world__gte=0)
            | Q(reason=Reason.WITHDRAWAL, from_world__lte=0)
        )
        .order_by("id")
    )
    for entry in misshapen:
        direction = (
            "from the outside world into the player's wallet"
            if entry.reason == Reason.DEPOSIT
            else "from the player's wallet to the outside world"
        )
        yield (
            f"{_entry_label(entry)} should move money {direction} and nothing else; its legs: "
            f"{_legs(entry)}"
        )


def _adjustments_not_approved() -> Iterator[str]:
    """Staff adjustments: the `adjustments` account moves only in `adjustment` entries, and
    each of those moves exactly the amount of one request approved by someone other than who
    asked, between that player's wallet and the `adjustments` account."""
    elsewhere = Q(account__kind=Kind.ADJUSTMENTS) & ~Q(entry__reason=Reason.ADJUSTMENT)
    for posting in _postings(elsewhere):
        yield f"{_posting_label(posting)}: only approved staff adjustments touch this account"
    approved = {
        a.entry_id: a
        for a in BalanceAdjustment.objects.filter(entry__isnull=False).select_related("entry")
    }
    for entry in Entry.objects.filter(reason=Reason.ADJUSTMENT).order_by("id"):
        adjustment = approved.get(entry.pk)
        legs = sorted(
            (p.account.kind, p.account.owner_id, p.amount)
            for p in entry.postings.select_related("account")
        )
        if adjustment is None:
            yield f"{_entry_label(entry)} belongs to no approved balance adjustment"
            continue
        expected = sorted(
            [
                (Kind.ADJUSTMENTS, None, -adjustment.amount),
                (Kind.WALLET, adjustment.player_id, adjustment.amount),
            ]
        )
        if (
            legs != expected
            or entry.player_id != adjustment.player_id
            or adjustment.status != BalanceAdjustment.Status.POSTED
            or adjustment.decided_by_id in (None, adjustment.requested_by_id)
        ):
            yield (
                f"{_entry_label(entry)} does not post adjustment #{adjustment.pk} "
                f"({adjustment.amount:+d} on player #{adjustment.player_id}'s wallet, approved "
                f"by a second staff member); its legs: {_legs(entry)}"
            )


TOURNAMENT_REASONS = [Reason.TOURNAMENT_BUY_IN, Reason.TOURNAMENT_REFUND]
POOL_REASONS = [*TOURNAMENT_REASONS, Reason.TOURNAMENT_PAYOUT]


def _tournament_money_misused() -> Iterator[str]:
    """A tournament's prize pool moves only in that tournament's buy-ins (it receives),
    refunds and prizes (it gives), the house's fee account only in tournament buy-ins and
    refunds; each buy-in or refund is the player's own wallet against the pool (and the fee):
    a buy-in takes from the wallet what the pool and the fee account receive, a refund the
    reverse; a prize entry is the pool against the winners' wallets and nothing else."""
    pool = Q(account__kind=Kind.TOURNAMENT_POOL)
    fees = Q(account__kind=Kind.TOURNAMENT_FEES)
    wrong = (
        pool & ~Q(entry__reason__in=POOL_REASONS)
        | fees & ~Q(entry__reason__in=TOURNAMENT_REASONS)
        | pool & ~Q(entry__tournament_id=F("account__tournament_id"))
        | pool & Q(entry__reason=Reason.TOURNAMENT_PAYOUT, amount__gt=0)
        | (pool | fees) & Q(entry__reason=Reason.TOURNAMENT_BUY_IN, amount__lt=0)
        | (pool | fees) & Q(entry__reason=Reason.TOURNAMENT_REFUND, amount__gt=0)
    )
    for posting in _postings(wrong):
        yield (
            f"{_posting_label(posting)}: a tournament's prize pool moves only in its own "
            "buy-ins (in), refunds and prizes (out), the fee account only in tournament "
            "buy-ins and refunds"
        )
    own_wallet = Q(postings__account__kind=Kind.WALLET) & Q(
        postings__account__owner_id=F("player_id")
    )
    pool_legs = Q(postings__account__kind=Kind.TOURNAMENT_POOL)
    fee_legs = Q(postings__account__kind=Kind.TOURNAMENT_FEES)
    misshapen = (
        Entry.objects.filter(reason__in=TOURNAMENT_REASONS)
        .annotate(
            legs=Count("postings"),
            wallet_legs=Count("postings", filter=own_wallet),
            pool_legs=Count("postings", filter=pool_legs),
            fee_legs=Count("postings", filter=fee_legs),
        )
        .filter(
            Q(tournament_id__isnull=True)
            | ~Q(wallet_legs=1)
            | ~Q(pool_legs=1)
            | Q(fee_legs__gt=1)
            | ~Q(legs=F("wallet_legs") + F("pool_legs") + F("fee_legs"))
        )
        .order_by("id")
    )
    for entry in misshapen:
        yield (
            f"{_entry_label(entry)} should move money between the player's wallet and "
            f"tournament {entry.tournament_id}'s prize pool (and the fee account) and nothing "
            f"else; its legs: {_legs(entry)}"
        )

    wallets = Q(postings__account__kind=Kind.WALLET)
    prizes = (
        Entry.objects.filter(reason=Reason.TOURNAMENT_PAYOUT)
        .annotate(
            legs=Count("postings"),
            wallet_legs=Count("postings", filter=wallets),
            pool_legs=Count("postings", filter=pool_legs),
        )
        .filter(
            Q(tournament_id__isnull=True)
            | Q(player__isnull=False)
            | ~Q(pool_legs=1)
            | Q(wallet_legs=0)
            | ~Q(legs=F("wallet_legs") + F("pool_legs"))
        )
        .order_by("id")
    )
    for entry in prizes:
        yield (
            f"{_entry_label(entry)} should pay tournament {entry.tournament_id}'s prize pool "
            f"to the winners' wallets and nothing else; its legs: {_legs(entry)}"
        )


HELD_REASONS = [Reason.WITHDRAWAL_HELD, Reason.WITHDRAWAL_PAID, Reason.WITHDRAWAL_RETURNED]


def _withdrawals_pending_mismatch() -> Iterator[str]:
    """Withdrawals waiting for checks: the held account moves only in their three entries,
    each entry is the one its withdrawal says with the legs it should have, and the account
    holds exactly what the withdrawals still waiting (or on hold) hold."""
    elsewhere = Q(account__kind=Kind.WITHDRAWALS_PENDING) & ~Q(entry__reason__in=HELD_REASONS)
    for posting in _postings(elsewhere):
        yield f"{_posting_label(posting)}: only withdrawals waiting for checks touch this account"
    withdrawals = PendingWithdrawal.objects.all()
    expected: dict[int, tuple[str, int, list]] = {}
    for w in withdrawals.order_by("id"):
        held = (Kind.WITHDRAWALS_PENDING, None, w.amount)
        expected[w.held_entry_id] = (
            f"withdrawal #{w.pk}'s hold", w.player_id,
            sorted([(Kind.WALLET, w.player_id, -w.amount), held]),
        )  # fmt: skip
        if w.settled_entry_id is not None:
            to = (
                (Kind.OUTSIDE_WORLD, None)
                if w.status == w.Status.PAID
                else (Kind.WALLET, w.player_id)
            )
            expected[w.settled_entry_id] = (
                f"withdrawal #{w.pk}'s {w.status} settlement", w.player_id,
                sorted([(Kind.WITHDRAWALS_PENDING, None, -w.amount), (*to, w.amount)]),
            )  # fmt: skip
    for entry in Entry.objects.filter(reason__in=HELD_REASONS).order_by("id"):
        if entry.pk not in expected:
            yield f"{_entry_label(entry)} belongs to no withdrawal waiting for checks"
            continue
        what, player_id, legs = expected.pop(entry.pk)
        found = sorted(
            (p.account.kind, p.account.owner_id, p.amount)
            for p in entry.postings.select_related("account")
        )
        if found != legs or entry.player_id != player_id:
            yield f"{_entry_label(entry)} is not {what}; its legs: {_legs(entry)}"
    for entry_id, (what, _player, _legs_expected) in sorted(expected.items()):
        yield f"{what} names entry #{entry_id}, which is not one of its kind"
    open_total = withdrawals.filter(status__in=PendingWithdrawal.OPEN).aggregate(
        t=Coalesce(Sum("amount"), Value(0))
    )["t"]
    held_balance = Account.objects.filter(kind=Kind.WITHDRAWALS_PENDING).aggregate(
        t=Coalesce(Sum("balance"), Value(0))
    )["t"]
    if held_balance != open_total:
        yield (
            f"the withdrawals_pending account holds {held_balance} but the withdrawals waiting "
            f"for checks or on hold sum to {open_total}"
        )


CASHIER_CHECKS = [
    LedgerCheck(
        "balanced_entries",
        "every entry's postings sum to zero with at least two legs",
        _unbalanced_entries,
    ),
    LedgerCheck(
        "balances_match_postings",
        "every account's stored balance equals the sum of its postings",
        _drifted_balances,
    ),
    LedgerCheck(
        "player_balances_not_negative",
        "no wallet or table stack below zero",
        _negative_player_balances,
    ),
    LedgerCheck(
        "totals_zero",
        "the balances of all accounts, and all postings, sum to zero",
        _nonzero_totals,
    ),
    LedgerCheck(
        "rake_only_from_hand_settlements",
        "a table's rake account only receives, from hand settlements at that table",
        _rake_not_from_settlements,
    ),
    LedgerCheck(
        "charity_only_from_voids",
        "the charity account only receives, from voids",
        _charity_not_from_voids,
    ),
    LedgerCheck(
        "player_money_in_own_entries",
        "a wallet only moves in its owner's entries, a table stack in its owner's entries at "
        "its table or in that table's hand settlements",
        _player_money_in_others_entries,
    ),
    LedgerCheck(
        "outside_world_only_deposits_and_withdrawals",
        "deposits and withdrawals move money between the outside world and the player's "
        "wallet, and nothing else touches the outside world",
        _outside_world_misused,
    ),
    LedgerCheck(
        "adjustments_approved_by_a_second_staff_member",
        "the adjustments account moves only in adjustment entries, each posting exactly one "
        "request approved by someone other than who asked, on that player's wallet",
        _adjustments_not_approved,
    ),
    LedgerCheck(
        "tournament_money_only_in_tournament_entries",
        "a tournament's prize pool and the house's fee account move only in that tournament's "
        "buy-ins and refunds, each between the player's own wallet and the pool and fee, and "
        "the pool also in its one prize entry, to the winners' wallets",
        _tournament_money_misused,
    ),
    LedgerCheck(
        "withdrawals_pending_match",
        "the withdrawals_pending account moves only in the entries of withdrawals waiting for "
        "checks, each as its withdrawal says, and holds what those still waiting sum to",
        _withdrawals_pending_mismatch,
    ),
]

# Checks added by apps above the cashier (from their AppConfig.ready()).
_registered: list[LedgerCheck] = []


def ledger_check_register(check: LedgerCheck) -> None:
    """Run `check` with the cashier's own in `verify_ledger`; registering a name again
    replaces the earlier check (so a repeated `ready()` adds nothing)."""
    _registered[:] = [known for known in _registered if known.name != check.name]
    _registered.append(check)


def ledger_checks() -> list[LedgerCheck]:
    return [*CASHIER_CHECKS, *_registered]


def ledger_verify(*, skip: Collection[str] = ()) -> LedgerReport:
    """Run every check (but those named in `skip`) on one snapshot of the ledger."""
    if connection.in_atomic_block:
        return _verify(skip)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return _verify(skip)


def _verify(skip: Collection[str]) -> LedgerReport:
    report = LedgerReport(
        entries=Entry.objects.count(),
        postings=Posting.objects.count(),
        accounts=Account.objects.count(),
        total_balance=Account.objects.aggregate(t=Coalesce(Sum("balance"), Value(0)))["t"],
        total_postings=Posting.objects.aggregate(t=Coalesce(Sum("amount"), Value(0)))["t"],
        checks=[check for check in ledger_checks() if check.name not in skip],
    )
    for check in report.checks:
        found = 0
        for problem in check.find():
            found += 1
            if found <= MAX_LISTED:
                report.problems.append(f"[{check.name}] {problem}")
        if found > MAX_LISTED:
            report.problems.append(f"[{check.name}] ... and {found - MAX_LISTED} more like these")
    return report


def ledger_verification() -> tuple[bool, dict]:
    """`verify_ledger` as the audit log's daily run records it (`verify.ledger`; registered by
    CashierConfig.ready into audit.verify)."""
    ledger = ledger_verify()
    return ledger.ok, {
        "ok": ledger.ok,
        "entries": ledger.entries,
        "postings": ledger.postings,
        "accounts": ledger.accounts,
        "rules": [check.name for check in ledger.checks],
        "problems": ledger.problems[:MAX_LISTED],
        "problem_count": len(ledger.problems),
    }
