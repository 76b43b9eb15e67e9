"""Withdrawals waiting for identity checks, after the request (cashier.services.wallet_withdraw).

The money waits in the held `withdrawals_pending` account. Compliance staff (holding
`cashier.decide_pendingwithdrawal`) approve a waiting withdrawal once the player's documents
are approved (`withdrawal_paid`: held account -> outside world), reject it (`withdrawal_returned`:
held account -> wallet), or put it on hold and lift the hold; the player may cancel it while it
waits (not while on hold). The withdrawal's row is locked first, so of two decisions racing one
wins and the other is refused: its money moves once. Each call is one transaction with one
audit record; each entry carries a key of its own (`withdrawal:<id>:paid` / `:returned`).
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import audit_record
from cashier.models import Account, Entry, PendingWithdrawal
from cashier.services import (
    CashierError,
    _account,
    _check_player,
    _fingerprint,
    _lock,
    _post,
    _replay,
)
from config.inputs import parse_staff_reason
from verification.selectors import player_verified

Kind = Account.Kind
Reason = Entry.Reason
Status = PendingWithdrawal.Status
DECIDE = "cashier.decide_pendingwithdrawal"


def _check_compliance(staff):
    if (
        not isinstance(staff, get_user_model())
        or staff.pk is None
        or not staff.is_active
        or not staff.is_staff
        or not staff.has_perm(DECIDE)
    ):
        raise CashierError(
            "not_compliance", _("Only staff with the compliance role may decide withdrawals.")
        )
    return staff


def _locked(withdrawal, *, allowed: tuple[str, ...]) -> PendingWithdrawal:
    withdrawal_id = getattr(withdrawal, "pk", withdrawal)
    locked = (
        PendingWithdrawal.objects.select_for_update()
        .select_related("player")
        .filter(pk=withdrawal_id)
        .first()
    )
    if locked is None:
        raise CashierError("unknown_withdrawal", _("No such withdrawal."))
    if locked.status not in allowed:
        raise CashierError(
            "withdrawal_" + locked.status,
            _("Withdrawal #%(id)s is %(status)s: it cannot be changed that way now.")
            % {"id": locked.pk, "status": locked.get_status_display().lower()},
        )
    return locked


def _not_own(locked: PendingWithdrawal, staff) -> None:
    if locked.player_id == staff.pk:
        raise CashierError("own_account", _("Staff cannot decide their own withdrawals."))


def _settle(locked: PendingWithdrawal, *, to_world: bool, by, now: datetime) -> Entry:
    """The one entry that ends the wait: held account -> outside world or back to the wallet."""
    player = locked.player
    held = _account(Kind.WITHDRAWALS_PENDING)
    target = _account(Kind.OUTSIDE_WORLD) if to_world else _account(Kind.WALLET, owner=player)
    accounts = _lock([held, target])
    outcome = "paid" if to_world else "returned"
    key = f"withdrawal:{locked.pk}:{outcome}"
    fingerprint = _fingerprint(
        op=f"withdrawal_{outcome}", withdrawal=locked.pk, amount=locked.amount
    )
    if _replay(player=player, idempotency_key=key, fingerprint=fingerprint) is not None:
        # Only this function writes that key, under the row's lock, with the status change.
        raise CashierError("already_settled", _("This withdrawal was already settled."))
    return _post(
        reason=Reason.WITHDRAWAL_PAID if to_world else Reason.WITHDRAWAL_RETURNED,
        legs=[(accounts[held.pk], -locked.amount), (accounts[target.pk], locked.amount)],
        player=player,
        idempotency_key=key,
        fingerprint=fingerprint,
        created_by=by,
        memo=f"withdrawal {locked.pk}",
        now=now,
    )


def _payload(locked: PendingWithdrawal, **more) -> dict:
    return {"player": locked.player_id, "amount": locked.amount, "withdrawal": locked.pk, **more}


@transaction.atomic
def withdrawal_approve(*, withdrawal, approved_by, reason: str, now=None) -> PendingWithdrawal:
    """Pay a waiting withdrawal out, once the player's identity documents are approved."""
    staff, reason = _check_compliance(approved_by), parse_staff_reason(reason, error=CashierError)
    now = now or timezone.now()
    locked = _locked(withdrawal, allowed=(Status.PENDING,))
    _not_own(locked, staff)
    if not player_verified(player_id=locked.player_id):
        raise CashierError(
            "not_verified",
            _("Approve the player's identity document, proof of address and age first."),
        )
    entry = _settle(locked, to_world=True, by=staff, now=now)
    _decided(locked, Status.PAID, staff=staff, reason=reason, entry=entry, now=now)
    audit_record(action="cashier.withdrawal_approved", actor=staff, subject=locked,
                 payload=_payload(locked, entry=entry.pk), reason=reason, now=now)  # fmt: skip
    return locked


@transaction.atomic
def withdrawal_reject(*, withdrawal, rejected_by, reason: str, now=None) -> PendingWithdrawal:
    """Refuse a waiting (or held) withdrawal: its money goes back to the player's wallet."""
    staff, reason = _check_compliance(rejected_by), parse_staff_reason(reason, error=CashierError)
    now = now or timezone.now()
    locked = _locked(withdrawal, allowed=PendingWithdrawal.OPEN)
    _not_own(locked, staff)
    entry = _settle(locked, to_world=False, by=staff, now=now)
    _decided(locked, Status.REJECTED, staff=staff, reason=reason, entry=entry, now=now)
    audit_record(action="cashier.withdrawal_rejected", actor=staff, subject=locked,
                 payload=_payload(locked, entry=entry.pk), reason=reason, now=now)  # fmt: skip
    return locked


@transaction.atomic
def withdrawal_cancel(*, withdrawal, player, now=None) -> PendingWithdrawal:
    """The player takes back a withdrawal still waiting (one on hold stays until staff act)."""
    player, now = _check_player(player), now or timezone.now()
    locked = _locked(withdrawal, allowed=(Status.PENDING, Status.ON_HOLD))
    if locked.player_id != player.pk:
        raise CashierError("unknown_withdrawal", _("No such withdrawal."))
    if locked.status == Status.ON_HOLD:
        raise CashierError(
            "withdrawal_on_hold",
            _("This withdrawal is on hold: our compliance team will contact you."),
        )
    entry = _settle(locked, to_world=False, by=player, now=now)
    locked.status, locked.settled_entry = Status.CANCELLED, entry
    locked.save(update_fields=["status", "settled_entry"])
    audit_record(action="cashier.withdrawal_cancelled", actor=player, subject=locked,
                 payload=_payload(locked, entry=entry.pk), now=now)  # fmt: skip
    return locked


def _decided(locked, status, *, staff, reason, entry, now) -> None:
    locked.status, locked.settled_entry = status, entry
    locked.decided_by, locked.decided_at, locked.decision_reason = staff, now, reason
    locked.save(
        update_fields=["status", "settled_entry", "decided_by", "decided_at", "decision_reason"]
    )


@transaction.atomic
def withdrawal_hold(*, withdrawal, held_by, reason: str, now=None) -> PendingWithdrawal:
    """Stop a waiting withdrawal where it is (an investigation): nothing moves, and it is
    neither approved nor cancelled until the hold is lifted; it may still be rejected."""
    staff, reason = _check_compliance(held_by), parse_staff_reason(reason, error=CashierError)
    now = now or timezone.now()
    locked = _locked(withdrawal, allowed=(Status.PENDING,))
    _not_own(locked, staff)
    locked.status, locked.hold_by, locked.hold_at, locked.hold_reason = (
        Status.ON_HOLD, staff, now, reason
    )  # fmt: skip
    locked.save(update_fields=["status", "hold_by", "hold_at", "hold_reason"])
    audit_record(action="cashier.withdrawal_held", actor=staff, subject=locked,
                 payload=_payload(locked), reason=reason, now=now)  # fmt: skip
    return locked


@transaction.atomic
def withdrawal_release(*, withdrawal, released_by, reason: str, now=None) -> PendingWithdrawal:
    """Lift a hold: the withdrawal waits again as before."""
    staff, reason = _check_compliance(released_by), parse_staff_reason(reason, error=CashierError)
    now = now or timezone.now()
    locked = _locked(withdrawal, allowed=(Status.ON_HOLD,))
    _not_own(locked, staff)
    locked.status = Status.PENDING
    locked.save(update_fields=["status"])
    audit_record(action="cashier.withdrawal_released", actor=staff, subject=locked,
                 payload=_payload(locked), reason=reason, now=now)  # fmt: skip
    return locked
