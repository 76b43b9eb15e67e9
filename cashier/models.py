"""The double-entry ledger: accounts, entries and their postings, in integer cents.

An entry is one money movement; its postings are the legs and sum to zero (PostgreSQL checks it
at commit with a deferred constraint trigger, see migration 0002). A posting's amount is signed:
positive adds to the account's balance, negative takes from it. Each account keeps its balance
stored (updated in the same transaction as its postings, under a row lock) so that reading a
wallet is one row and the database can refuse a player-owned balance below zero. Entries and
postings are immutable once written: corrections are new entries. PostgreSQL also refuses a
posting added to an entry once the transaction that wrote it committed (each entry carries that
transaction's id in a column only the database knows, `posted_txid`: `txid_current()`, which
Django's savepoints share with their top-level transaction where a row's `xmin` would not) and
any change to an account's kind, owner or table (migration 0004).

Our own small ledger, not a library: django-hordak, the best-kept double-entry app for Django,
keeps `Decimal` money with currencies (django-money) where we want integer cents end to end,
computes balances from legs where we want a stored balance a plain `CHECK` can hold above zero,
was tested up to Django 5.0, and has no place for the room's keys (a hand settles once, one
idempotency key per player). Three models and four triggers were less to own than an adapter.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

# The house's one-of-a-kind accounts (no owner, no table), named once: the model's constraints
# and `Account.SINGLETON_KINDS` read this list.
SINGLETON_KIND_VALUES = [
    "house_bankroll",
    "banked_bets_in_play",
    "charity",
    "outside_world",
    "adjustments",
    "tournament_fees",
    "withdrawals_pending",
]

# The banked game's two busy house accounts exist as this many rows each (shards 0 to 15), so
# that rounds of different players lock different rows. A player's movements always use the
# shard `player id % HOUSE_SHARDS` (`house_shard`), so the bets a player has in play wait in the
# shard their settlement takes them from. Reports, exports and verify_ledger sum the shards: to
# staff and auditors each kind is one house figure.
SHARDED_KIND_VALUES = ["house_bankroll", "banked_bets_in_play"]
HOUSE_SHARDS = 16


def house_shard(player_id: int) -> int:
    """The shard of the house's banked accounts that this player's rounds move."""
    return player_id % HOUSE_SHARDS


class Account(models.Model):
    class Kind(models.TextChoices):
        WALLET = "wallet", "Player wallet"
        TABLE_STACK = "table_stack", "Table stack"
        TABLE_RAKE = "table_rake", "Table rake (house)"
        HOUSE_BANKROLL = "house_bankroll", "House bankroll (banked game)"
        BANKED_BETS_IN_PLAY = "banked_bets_in_play", "Banked game bets in play"
        CHARITY = "charity", "Charity"
        OUTSIDE_WORLD = "outside_world", "Outside world (deposits and withdrawals)"
        ADJUSTMENTS = "adjustments", "Staff adjustments (house)"
        TOURNAMENT_POOL = "tournament_pool", "Tournament prize pool"
        TOURNAMENT_FEES = "tournament_fees", "Tournament fees (house)"
        WITHDRAWALS_PENDING = "withdrawals_pending", "Withdrawals waiting for checks (held)"

    PLAYER_KINDS = (Kind.WALLET, Kind.TABLE_STACK)
    SINGLETON_KINDS = tuple(map(Kind, SINGLETON_KIND_VALUES))

    kind = models.CharField(max_length=24, choices=Kind.choices)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="cashier_accounts",
    )
    table = models.ForeignKey(
        "poker.Table",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="cashier_accounts",
    )
    # The sum of this account's postings, kept in step with them under a row lock.
    balance = models.BigIntegerField(default=0)
    # A table stack playing in a hand: the hand's id until it is settled or released.
    in_hand_id = models.BigIntegerField(null=True, blank=True)
    # Which of the house's rows of a sharded kind this is (0 for every other account).
    shard = models.PositiveSmallIntegerField(default=0)
    # A tournament's prize pool: the tournament's plain id (the tournaments app sits above the
    # cashier, so no foreign key), part of the account's identity like its owner and table.
    tournament_id = models.BigIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(
                name="cashier_player_balance_not_negative",
                condition=Q(balance__gte=0) | ~Q(kind__in=["wallet", "table_stack"]),
            ),
            models.CheckConstraint(
                name="cashier_account_shape",
                condition=(
                    Q(kind="wallet", owner__isnull=False, table__isnull=True)
                    | Q(kind="table_stack", owner__isnull=False, table__isnull=False)
                    | Q(kind="table_rake", owner__isnull=True, table__isnull=False)
                    | Q(
                        kind__in=SINGLETON_KIND_VALUES,
                        owner__isnull=True,
                        table__isnull=True,
                    )
                    | Q(
                        kind="tournament_pool",
                        owner__isnull=True,
                        table__isnull=True,
                        tournament_id__isnull=False,
                    )
                ),
            ),
            models.CheckConstraint(
                name="cashier_only_pools_name_tournaments",
                condition=Q(tournament_id__isnull=True) | Q(kind="tournament_pool"),
            ),
            models.UniqueConstraint(
                fields=["tournament_id"],
                condition=Q(kind="tournament_pool"),
                name="cashier_one_pool_per_tournament",
            ),
            models.CheckConstraint(
                name="cashier_only_stacks_in_hands",
                condition=Q(in_hand_id__isnull=True) | Q(kind="table_stack"),
            ),
            models.UniqueConstraint(
                fields=["owner"], condition=Q(kind="wallet"), name="cashier_one_wallet_per_player"
            ),
            models.UniqueConstraint(
                fields=["owner", "table"],
                condition=Q(kind="table_stack"),
                name="cashier_one_stack_per_player_table",
            ),
            models.UniqueConstraint(
                fields=["table"], condition=Q(kind="table_rake"), name="cashier_one_rake_per_table"
            ),
            models.UniqueConstraint(
                fields=["kind", "shard"],
                condition=Q(kind__in=SINGLETON_KIND_VALUES),
                name="cashier_one_house_account_per_kind_and_shard",
            ),
            models.CheckConstraint(
                name="cashier_account_shard",
                condition=Q(shard=0) | Q(kind__in=SHARDED_KIND_VALUES, shard__lt=HOUSE_SHARDS),
            ),
        ]

    def __str__(self) -> str:
        parts = [self.get_kind_display()]
        if self.owner_id:
            parts.append(str(self.owner))
        if self.table_id:
            parts.append(f"table {self.table_id}")
        if self.tournament_id:
            parts.append(f"tournament {self.tournament_id}")
        if self.kind in SHARDED_KIND_VALUES:
            parts.append(f"shard {self.shard} of {HOUSE_SHARDS}")
        return " / ".join(parts)


class Entry(models.Model):
    """One money movement: why, for whom, caused by whom; its postings say how much moved."""

    class Reason(models.TextChoices):
        DEPOSIT = "deposit", _("Deposit")
        WITHDRAWAL = "withdrawal", _("Withdrawal")
        BUY_IN = "buy_in", _("Buy-in")
        TOP_UP = "top_up", _("Top-up")
        CASH_OUT = "cash_out", _("Cash-out")
        HAND_SETTLEMENT = "hand_settlement", _("Hand settlement")
        RAKE = "rake", _("Rake")
        BANKED_BET = "banked_bet", _("Banked game bet")
        BANKED_PAYOUT = "banked_payout", _("Banked game payout")
        VOID = "void", _("Void")
        ADJUSTMENT = "adjustment", _("Staff adjustment")
        TOURNAMENT_BUY_IN = "tournament_buy_in", _("Tournament buy-in")
        TOURNAMENT_REFUND = "tournament_refund", _("Tournament refund")
        # A Sit & Go's end: its prize pool to the places paid, one entry of the room's.
        TOURNAMENT_PAYOUT = "tournament_payout", _("Tournament prize")
        # A withdrawal waiting for identity checks: held out of the wallet, then paid out or
        # returned to it (PendingWithdrawal).
        WITHDRAWAL_HELD = "withdrawal_held", _("Withdrawal waiting for checks")
        WITHDRAWAL_PAID = "withdrawal_paid", _("Withdrawal paid after checks")
        WITHDRAWAL_RETURNED = "withdrawal_returned", _("Withdrawal returned")

    reason = models.CharField(max_length=20, choices=Reason.choices)
    # The player whose money this is (None for hand settlements and house movements).
    player = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="cashier_entries",
    )
    table = models.ForeignKey(
        "poker.Table",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="cashier_entries",
    )
    # poker's Hand primary key; unique so that a hand settles at most once.
    hand_id = models.BigIntegerField(null=True, blank=True, unique=True)
    # The tournament a buy-in or refund is for (its plain id: the tournaments app is above).
    tournament_id = models.BigIntegerField(null=True, blank=True, db_index=True)
    # The client's key for this request (unique per player) and a digest of what was asked, so
    # that a retry moves money once and the same key for a different request is refused. NULL
    # (not "") when absent, so that the partial unique constraint ignores keyless entries.
    idempotency_key = models.CharField(max_length=100, null=True, blank=True)  # noqa: DJ001
    request_fingerprint = models.CharField(max_length=64, blank=True, default="")
    # Who or what caused it: the player, a staff member, or None for the room itself.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="cashier_entries_created",
    )
    memo = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "entries"
        constraints = [
            models.UniqueConstraint(
                fields=["player", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="cashier_idempotency_key_once_per_player",
            ),
            models.CheckConstraint(
                name="cashier_settlement_has_hand",
                condition=~Q(reason="hand_settlement") | Q(hand_id__isnull=False),
            ),
        ]
        indexes = [
            models.Index(fields=["player", "table", "reason", "created_at"]),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.get_reason_display()} {self.created_at:%Y-%m-%d %H:%M:%S}"


class Posting(models.Model):
    """One leg of an entry: a signed amount in cents on one account."""

    entry = models.ForeignKey(Entry, on_delete=models.PROTECT, related_name="postings")
    account = models.ForeignKey(Account, on_delete=models.PROTECT, related_name="postings")
    amount = models.BigIntegerField()

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(name="cashier_posting_not_zero", condition=~Q(amount=0)),
        ]

    def __str__(self) -> str:
        return f"{self.amount:+d} on {self.account}"


class BalanceAdjustment(models.Model):
    """A correction of a player's wallet that staff asked for, posted only once a second staff
    member approved it (four eyes). Balances are never edited: the approval posts an
    `adjustment` entry between the wallet and the house's `adjustments` account."""

    class Status(models.TextChoices):
        PENDING = "pending", "Waiting for approval"
        POSTED = "posted", "Approved and posted"
        REJECTED = "rejected", "Rejected"

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="balance_adjustments"
    )
    # Signed cents: positive credits the wallet, negative debits it.
    amount = models.BigIntegerField()
    reason = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="adjustments_requested"
    )
    requested_at = models.DateTimeField(default=timezone.now)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="adjustments_decided",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True, default="")
    entry = models.OneToOneField(
        Entry, null=True, blank=True, on_delete=models.PROTECT, related_name="adjustment"
    )

    class Meta:
        ordering = ["-requested_at"]
        permissions = [("approve_balanceadjustment", "Can approve or reject a balance adjustment")]
        constraints = [
            models.CheckConstraint(name="cashier_adjustment_not_zero", condition=~Q(amount=0)),
            # Four eyes, at the database too: whoever decides is not whoever asked.
            models.CheckConstraint(
                name="cashier_adjustment_four_eyes",
                condition=Q(decided_by__isnull=True) | ~Q(decided_by=models.F("requested_by")),
            ),
            models.CheckConstraint(
                name="cashier_adjustment_decision_shape",
                condition=(
                    Q(status="pending", decided_by__isnull=True, entry__isnull=True)
                    | Q(status="posted", decided_by__isnull=False, entry__isnull=False)
                    | Q(status="rejected", decided_by__isnull=False, entry__isnull=True)
                ),
            ),
        ]

    def __str__(self) -> str:
        if self.pk is None:
            return "a new balance adjustment"
        return f"adjustment #{self.pk} of {self.amount:+d} cents for {self.player} ({self.status})"


class PendingWithdrawal(models.Model):
    """A withdrawal that waits for identity checks (docs/rules.md "Identity checks").

    At the request its money moved from the wallet to the house's held `withdrawals_pending`
    account (`held_entry`), so it cannot be spent twice; it ends in one more entry
    (`settled_entry`): paid out to the outside world once compliance staff approve it, or back
    to the wallet when they reject it or the player cancels it. Compliance staff may put it on
    hold (nothing moves; neither paid nor cancelled until the hold is lifted)."""

    class Status(models.TextChoices):
        PENDING = "pending", _("Waiting for checks")
        ON_HOLD = "on_hold", _("On hold")
        PAID = "paid", _("Paid")
        REJECTED = "rejected", _("Rejected")
        CANCELLED = "cancelled", _("Cancelled")

    OPEN = (Status.PENDING, Status.ON_HOLD)

    class Why(models.TextChoices):
        ABOVE_THRESHOLD = "above_threshold", _("above the amount that needs identity checks")
        TOTAL = "total", _("your withdrawals pass the total that needs identity checks")

    player = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="pending_withdrawals"
    )
    amount = models.BigIntegerField()
    why = models.CharField(max_length=16, choices=Why.choices)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    requested_at = models.DateTimeField(default=timezone.now, db_index=True)
    held_entry = models.OneToOneField(
        Entry, on_delete=models.PROTECT, related_name="pending_withdrawal_held"
    )
    settled_entry = models.OneToOneField(
        Entry,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="pending_withdrawal_settled",
    )
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="pending_withdrawals_decided",
    )
    decided_at = models.DateTimeField(null=True, blank=True)
    decision_reason = models.TextField(blank=True, default="")
    # The latest hold: who put it, when and why (kept after it is lifted; the audit log has all).
    hold_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="pending_withdrawals_held",
    )
    hold_at = models.DateTimeField(null=True, blank=True)
    hold_reason = models.TextField(blank=True, default="")

    class Meta:
        ordering = ["requested_at", "id"]
        default_permissions = ("view",)
        permissions = [
            ("decide_pendingwithdrawal", "Can approve, reject, hold and release a withdrawal")
        ]
        constraints = [
            models.CheckConstraint(
                name="cashier_pending_withdrawal_amount", condition=Q(amount__gt=0)
            ),
            models.CheckConstraint(
                name="cashier_pending_withdrawal_shape",
                condition=(
                    Q(status__in=["pending", "on_hold"], settled_entry__isnull=True)
                    | Q(status="cancelled", settled_entry__isnull=False)
                    | Q(
                        status__in=["paid", "rejected"],
                        settled_entry__isnull=False,
                        decided_by__isnull=False,
                    )
                ),
            ),
        ]

    def __str__(self) -> str:
        if self.pk is None:
            return "a new pending withdrawal"
        return f"withdrawal #{self.pk} of {self.amount} cents for {self.player} ({self.status})"
