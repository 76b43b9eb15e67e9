"""Staff balance adjustments, four eyes: a correction is never an edit of a balance.

Staff ask for one (`adjustment_request`) and a second staff member approves it
(`adjustment_approve`), which posts one `adjustment` entry between the player's wallet and the
house's `adjustments` account; or rejects it (`adjustment_reject`). Whoever asked can never
decide (refused here, and by a CHECK constraint). Each call is one transaction and writes one
audit record in it, so a refused or failed call leaves neither money moved nor a record.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import audit_record
from cashier.models import Account, BalanceAdjustment, Entry
from cashier.services import CashierError, _account, _check_player, _lock, _post
from config.four_eyes import request_pending_lock
from config.inputs import MAX_CENTS, parse_cents, parse_staff_reason

Kind = Account.Kind
Reason = Entry.Reason


def _check_staff(staff):
    if not isinstance(staff, get_user_model()) or staff.pk is None or not staff.is_staff:
        raise CashierError("not_staff", _("Only staff may adjust a balance."))
    return staff


def adjustment_request(*, player, amount: int, reason: str, requested_by) -> BalanceAdjustment:
    """Ask for a correction of `amount` signed cents on the player's wallet; nothing moves
    until another staff member approves it."""
    player, staff = _check_player(player), _check_staff(requested_by)
    cents = parse_cents(amount, field="adjustment", minimum=-MAX_CENTS, error=CashierError)
    if cents == 0:
        raise CashierError("bad_amount", _("An adjustment of zero moves nothing."))
    reason = parse_staff_reason(reason, error=CashierError)
    if player.pk == staff.pk:
        raise CashierError(
            "own_account", _("Staff cannot ask for an adjustment of their own wallet.")
        )
    with transaction.atomic():
        adjustment = BalanceAdjustment.objects.create(
            player=player, amount=cents, reason=reason, requested_by=staff
        )
        audit_record(
            action="staff.adjustment_requested",
            actor=staff,
            subject=adjustment,
            payload={"player": player.pk, "amount": cents, "adjustment": adjustment.pk},
            reason=reason,
        )
    return adjustment


def _pending_adjustment(adjustment, decided_by) -> BalanceAdjustment:
    """The request locked, still pending, and decided by someone other than who asked."""
    locked = request_pending_lock(
        BalanceAdjustment,
        adjustment,
        decided_by=decided_by,
        error=CashierError,
        unknown=("unknown_adjustment", _("No such adjustment.")),
        already_decided=lambda locked: (
            _("Adjustment #%(locked_id)s was already %(status)s.")
            % {"locked_id": locked.pk, "status": locked.status}
        ),
        asked_yourself=_(
            "You asked for this adjustment, so another staff member must approve or reject it."
        ),
    )
    if locked.player_id == decided_by.pk:
        raise CashierError(
            "own_account", _("Staff cannot decide an adjustment of their own wallet.")
        )
    return locked


def adjustment_approve(*, adjustment, approved_by, reason: str, now=None) -> BalanceAdjustment:
    """Approve a pending request and post it: one balanced `adjustment` entry, the wallet
    +/- the amount against the house's `adjustments` account. A debit larger than the wallet
    is refused (`insufficient_funds`) and leaves the request pending."""
    staff, reason = _check_staff(approved_by), parse_staff_reason(reason, error=CashierError)
    now = now or timezone.now()
    with transaction.atomic():
        locked = _pending_adjustment(adjustment, staff)
        player = locked.player
        accounts = _lock([_account(Kind.WALLET, owner=player), _account(Kind.ADJUSTMENTS)])
        wallet = next(a for a in accounts.values() if a.kind == Kind.WALLET)
        house = next(a for a in accounts.values() if a.kind == Kind.ADJUSTMENTS)
        entry = _post(
            reason=Reason.ADJUSTMENT,
            legs=[(wallet, locked.amount), (house, -locked.amount)],
            player=player,
            created_by=staff,
            memo=f"adjustment {locked.pk}",
            now=now,
        )
        locked.status = BalanceAdjustment.Status.POSTED
        locked.decided_by, locked.decided_at, locked.decision_reason = staff, now, reason
        locked.entry = entry
        locked.save(
            update_fields=["status", "decided_by", "decided_at", "decision_reason", "entry"]
        )
        audit_record(
            action="staff.adjustment_approved",
            actor=staff,
            subject=locked,
            payload={
                "player": player.pk,
                "amount": locked.amount,
                "adjustment": locked.pk,
                "entry": entry.pk,
                "requested_by": locked.requested_by_id,
                "wallet_before": wallet.balance - locked.amount,
                "wallet_after": wallet.balance,
            },
            reason=reason,
        )
    return locked


def adjustment_reject(*, adjustment, rejected_by, reason: str, now=None) -> BalanceAdjustment:
    """Reject a pending request: nothing moves, and it cannot be approved later."""
    staff, reason = _check_staff(rejected_by), parse_staff_reason(reason, error=CashierError)
    with transaction.atomic():
        locked = _pending_adjustment(adjustment, staff)
        locked.status = BalanceAdjustment.Status.REJECTED
        locked.decided_by, locked.decided_at = staff, now or timezone.now()
        locked.decision_reason = reason
        locked.save(update_fields=["status", "decided_by", "decided_at", "decision_reason"])
        audit_record(
            action="staff.adjustment_rejected",
            actor=staff,
            subject=locked,
            payload={"player": locked.player_id, "amount": locked.amount, "adjustment": locked.pk},
            reason=reason,
        )
    return locked
