"""The ledger in the admin: visible to staff with view rights, never editable from here.

Money moves only through the services (corrections are new entries), so the admin offers no
add, change or delete for accounts, entries or postings; amounts show in dollars and cents.
A correction is a balance adjustment: asked for here and approved by another staff member.
"""

from django import forms
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.db.models import Count, Sum
from django.shortcuts import get_object_or_404
from django.urls import path, reverse

from cashier.adjustments import adjustment_approve, adjustment_reject, adjustment_request
from cashier.models import (
    HOUSE_SHARDS,
    SHARDED_KIND_VALUES,
    Account,
    BalanceAdjustment,
    Entry,
    PendingWithdrawal,
    Posting,
)
from cashier.withdrawals import (
    DECIDE,
    withdrawal_approve,
    withdrawal_hold,
    withdrawal_reject,
    withdrawal_release,
)
from config.admin import ReadOnlyAdmin, ReasonForm, money, parse_dollars, tool_view
from verification.selectors import player_verified


class PostingInline(admin.TabularInline):
    model = Posting
    fields = ["account", "amount_dollars"]
    readonly_fields = fields
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    @admin.display(description="amount")
    def amount_dollars(self, posting: Posting) -> str:
        return money(posting.amount)


@admin.register(Account)
class AccountAdmin(ReadOnlyAdmin):
    """Every account, one row each: the house's bets in play and bankroll are split into shards
    (a player's rounds use shard `player id % HOUSE_SHARDS`), so each of those kinds
    is up to HOUSE_SHARDS rows here, named by shard; above the list, the house's one figure
    per kind (the sum of its shards), as reports and the auditors' exports show it."""

    list_display = ["id", "kind", "shard_label", "owner", "table", "balance_dollars",
                    "in_hand_id", "created_at"]  # fmt: skip
    list_filter = ["kind", "table"]
    search_fields = ["owner__username", "table__name"]
    list_select_related = ["owner", "table"]
    fields = ["kind", "shard_label", "owner", "table", "balance_dollars", "in_hand_id",
              "created_at"]  # fmt: skip
    readonly_fields = fields

    @admin.display(description="balance", ordering="balance")
    def balance_dollars(self, account: Account) -> str:
        return money(account.balance)

    @admin.display(description="house shard", ordering="shard")
    def shard_label(self, account: Account) -> str:
        if account.kind not in SHARDED_KIND_VALUES:
            return "-"
        return f"{account.shard} of {HOUSE_SHARDS}"

    def changelist_view(self, request, extra_context=None):
        extra = {
            **(extra_context or {}),
            "house_figures": house_figures(),
            "house_shards": HOUSE_SHARDS,
        }
        return super().changelist_view(request, extra)


def house_figures() -> list[dict]:
    """Per sharded house kind, its one figure: the shards' stored balances summed, and how
    many shard accounts exist (they open on first use)."""
    found = {
        kind: (total, shards)
        for kind, total, shards in Account.objects.filter(kind__in=SHARDED_KIND_VALUES)
        .values("kind")
        .annotate(total=Sum("balance"), shards=Count("id"))
        .values_list("kind", "total", "shards")
        .order_by()
    }
    return [
        {
            "kind": kind,
            "label": Account.Kind(kind).label,
            "shards": found.get(kind, (0, 0))[1],
            "balance": money(found.get(kind, (0, 0))[0]),
        }
        for kind in SHARDED_KIND_VALUES
    ]


@admin.register(Entry)
class EntryAdmin(ReadOnlyAdmin):
    list_display = ["id", "created_at", "reason", "player", "table", "hand_id", "created_by"]
    list_filter = ["reason", "table", "created_at"]
    search_fields = ["player__username", "idempotency_key", "memo", "hand_id"]
    list_select_related = ["player", "table", "created_by"]
    date_hierarchy = "created_at"
    inlines = [PostingInline]


@admin.register(Posting)
class PostingAdmin(ReadOnlyAdmin):
    list_display = ["id", "entry", "account", "amount_dollars"]
    list_filter = ["account__kind"]
    search_fields = ["account__owner__username", "account__table__name"]
    fields = ["entry", "account", "amount_dollars"]
    readonly_fields = fields

    @admin.display(description="amount", ordering="amount")
    def amount_dollars(self, posting: Posting) -> str:
        return money(posting.amount)

    list_select_related = ["entry", "account", "account__owner", "account__table"]


# -- balance adjustments: asked for by one staff member, approved by another (four eyes)


class AdjustmentRequestForm(ReasonForm):
    player = forms.CharField(label="Player (username)", max_length=150)
    amount = forms.CharField(
        max_length=24,
        help_text="Dollars and cents: positive credits the wallet, negative (-12.50) debits it.",
    )
    field_order = ["player", "amount", "reason"]

    def clean_player(self):
        username = self.cleaned_data["player"].strip()
        player = get_user_model().objects.filter(username=username).first()
        if player is None:
            raise forms.ValidationError(f"No player named {username!r}.")
        return player

    def clean_amount(self) -> int:
        return parse_dollars(self.cleaned_data["amount"])


@admin.register(BalanceAdjustment)
class BalanceAdjustmentAdmin(ReadOnlyAdmin):
    """Requests are made here (or from the player page) and decided by someone else; the
    rows change only through cashier.adjustments, never by editing them."""

    list_display = ("id", "requested_at", "player", "amount_dollars", "status", "requested_by",
                    "decided_by", "decided_at")  # fmt: skip
    list_filter = ("status", "requested_at")
    search_fields = ("player__username", "requested_by__username", "reason")
    list_select_related = ("player", "requested_by", "decided_by")
    date_hierarchy = "requested_at"
    fields = ("player", "amount_dollars", "reason", "status", "requested_by", "requested_at",
              "decided_by", "decided_at", "decision_reason", "entry")  # fmt: skip
    readonly_fields = fields

    @admin.display(description="amount", ordering="amount")
    def amount_dollars(self, adjustment: BalanceAdjustment) -> str:
        return money(adjustment.amount)

    def has_add_permission(self, request, obj=None) -> bool:
        return request.user.has_perm("cashier.add_balanceadjustment")

    def add_view(self, request, form_url="", extra_context=None):
        player = get_user_model().objects.filter(pk=request.GET.get("player") or None).first()

        def act(cleaned: dict) -> str:
            adjustment = adjustment_request(
                player=cleaned["player"],
                amount=cleaned["amount"],
                reason=cleaned["reason"],
                requested_by=request.user,
            )
            return (
                f"Adjustment #{adjustment.pk} of {money(adjustment.amount)} for "
                f"{adjustment.player} waits for another staff member's approval."
            )

        return tool_view(
            request, self, BalanceAdjustment(), title="Ask for a balance adjustment",
            permission="cashier.add_balanceadjustment", act=act,
            form_class=AdjustmentRequestForm, button="Ask for approval",
            initial={"player": player.get_username()} if player else None,
            intro="A correcting entry on the player's wallet; it posts only when another "
            "staff member approves it.",
            done_url=reverse("admin:cashier_balanceadjustment_changelist"),
        )  # fmt: skip

    def get_urls(self):
        tool = self.admin_site.admin_view
        return [
            path("<int:adjustment_id>/approve/", tool(self.approve_view),
                 name="cashier_balanceadjustment_approve"),
            path("<int:adjustment_id>/reject/", tool(self.reject_view),
                 name="cashier_balanceadjustment_reject"),
            *super().get_urls(),
        ]  # fmt: skip

    def change_view(self, request, object_id, form_url="", extra_context=None):
        adjustment = self.get_object(request, object_id)
        can_decide = (
            adjustment is not None
            and adjustment.status == BalanceAdjustment.Status.PENDING
            and request.user.has_perm("cashier.approve_balanceadjustment")
            and adjustment.requested_by_id != request.user.pk
        )
        extra = {**(extra_context or {}), "can_decide": can_decide}
        return super().change_view(request, object_id, form_url, extra)

    def _decide(self, request, adjustment_id: int, *, approve: bool):
        adjustment = get_object_or_404(BalanceAdjustment, pk=adjustment_id)
        verb = "Approve" if approve else "Reject"

        def act(cleaned: dict) -> str:
            if approve:
                done = adjustment_approve(
                    adjustment=adjustment, approved_by=request.user, reason=cleaned["reason"]
                )
                return f"Adjustment #{done.pk} approved and posted (entry #{done.entry_id})."
            adjustment_reject(
                adjustment=adjustment, rejected_by=request.user, reason=cleaned["reason"]
            )
            return f"Adjustment #{adjustment.pk} rejected."

        return tool_view(
            request, self, adjustment, title=f"{verb} adjustment #{adjustment.pk}",
            permission="cashier.approve_balanceadjustment", act=act, button=verb,
            intro=f"{money(adjustment.amount)} on {adjustment.player}'s wallet, asked for by "
            f"{adjustment.requested_by}: {adjustment.reason}",
        )  # fmt: skip

    def approve_view(self, request, adjustment_id: int):
        return self._decide(request, adjustment_id, approve=True)

    def reject_view(self, request, adjustment_id: int):
        return self._decide(request, adjustment_id, approve=False)


# -- withdrawals waiting for identity checks: decided by the compliance role


@admin.register(PendingWithdrawal)
class PendingWithdrawalAdmin(ReadOnlyAdmin):
    """Every role sees the queue; only the compliance role (`decide_pendingwithdrawal`) acts:
    approve (once the player's documents are approved), reject, hold or lift a hold. The
    documents themselves are under "Identity checks", for the compliance role only."""

    list_display = ("id", "requested_at", "player", "amount_dollars", "why", "status",
                    "decided_by", "decided_at")  # fmt: skip
    list_filter = ("status", "why", "requested_at")
    search_fields = ("player__username",)
    list_select_related = ("player", "decided_by")
    date_hierarchy = "requested_at"
    fields = ("player", "amount_dollars", "why", "status", "requested_at", "player_checked",
              "held_entry", "settled_entry", "decided_by", "decided_at", "decision_reason",
              "hold_by", "hold_at", "hold_reason")  # fmt: skip
    readonly_fields = fields

    TOOLS = {
        "approve": ("Approve and pay out", (PendingWithdrawal.Status.PENDING,), withdrawal_approve,
                    "approved_by"),
        "reject": ("Reject (back to the wallet)", PendingWithdrawal.OPEN, withdrawal_reject,
                   "rejected_by"),
        "hold": ("Put on hold", (PendingWithdrawal.Status.PENDING,), withdrawal_hold, "held_by"),
        "release": ("Lift the hold", (PendingWithdrawal.Status.ON_HOLD,), withdrawal_release,
                    "released_by"),
    }  # fmt: skip

    @admin.display(description="amount", ordering="amount")
    def amount_dollars(self, withdrawal: PendingWithdrawal) -> str:
        return money(withdrawal.amount)

    @admin.display(description="player's identity checked", boolean=True)
    def player_checked(self, withdrawal: PendingWithdrawal) -> bool:
        return player_verified(player_id=withdrawal.player_id)

    def get_urls(self):
        tool = self.admin_site.admin_view
        return [
            *(
                path(f"<int:withdrawal_id>/{name}/", tool(self.tool_view(name)),
                     name=f"cashier_pendingwithdrawal_{name}")
                for name in self.TOOLS
            ),
            *super().get_urls(),
        ]  # fmt: skip

    def change_view(self, request, object_id, form_url="", extra_context=None):
        withdrawal = self.get_object(request, object_id)
        tools = []
        if (
            withdrawal is not None
            and request.user.has_perm(DECIDE)
            and withdrawal.player_id != request.user.pk
        ):
            tools = [
                {"name": name, "label": label, "url": f"admin:cashier_pendingwithdrawal_{name}"}
                for name, (label, statuses, _service, _by) in self.TOOLS.items()
                if withdrawal.status in statuses
            ]
        extra = {**(extra_context or {}), "tools": tools}
        return super().change_view(request, object_id, form_url, extra)

    def tool_view(self, name: str):
        label, _statuses, service, by = self.TOOLS[name]

        def view(request, withdrawal_id: int):
            withdrawal = get_object_or_404(PendingWithdrawal, pk=withdrawal_id)

            def act(cleaned: dict) -> str:
                done = service(withdrawal=withdrawal, reason=cleaned["reason"],
                               **{by: request.user})  # fmt: skip
                return f"Withdrawal #{done.pk}: {done.get_status_display().lower()}."

            return tool_view(
                request, self, withdrawal, title=f"{label}: withdrawal #{withdrawal.pk}",
                permission=DECIDE, act=act, button=label,
                intro=f"{money(withdrawal.amount)} asked for by {withdrawal.player} on "
                f"{withdrawal.requested_at:%Y-%m-%d %H:%M} UTC ({withdrawal.get_why_display()}).",
            )  # fmt: skip

        return view
