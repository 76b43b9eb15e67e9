"""Staff suspend and reinstate accounts: the account tools of the admin's player page.

A suspended account is Django's `is_active` off, so every way in refuses it at once: the
session and token backends no longer authenticate it (its sessions and API tokens are also
deleted), and the money and play checks (`responsible.rules.check_account_open`, called by
deposits, withdrawals, buy-ins, top-ups, seats, sit-ins and banked rounds) refuse it with
`account_suspended`. Its seats are left after the hand they are in (`poker.table_leave`: cashed
out as usual), its live Showdown seats after their round, and its table sockets are told and
closed after commit. Each tool is one transaction with one audit record in it.
"""

from __future__ import annotations

from datetime import datetime

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from audit.context import acting_on_powers
from audit.services import audit_record
from cashier.models import Account
from config.errors import Refused
from poker import broadcast
from poker import services as poker
from poker.models import Seat, Table
from responsible.services import player_sessions_end
from showdown import live as showdown_live


class AccountError(Refused):
    """A refused account tool: `code` for programs, `message` for people. Nothing changed."""


def _check(*, player, staff, reason) -> tuple:
    User = get_user_model()
    if not isinstance(staff, User) or staff.pk is None or not staff.is_staff:
        raise AccountError("not_staff", _("Only staff may suspend or reinstate an account."))
    if not isinstance(player, User) or player.pk is None:
        raise AccountError("unknown_player", _("No such player."))
    if player.pk == staff.pk:
        raise AccountError("own_account", _("Staff cannot suspend or reinstate their own account."))
    if not isinstance(reason, str) or not reason.strip():
        raise AccountError("reason_required", _("Say why: a reason is required."))
    # One account tool at a time per player: the user row, locked FOR NO KEY UPDATE, then each
    # table's (`table_leave`). FOR UPDATE would also stop the foreign-key checks a table's
    # change makes at its commit, under the table's lock (docs/architecture.md "Lock order").
    locked = User.objects.select_for_update(no_key=True).get(pk=player.pk)
    if _rank(locked) >= _rank(staff) and not (locked.is_superuser and staff.is_superuser):
        raise AccountError(
            "above_your_role",
            _("Only a superuser may suspend or reinstate a staff account or a superuser's."),
        )
    return locked, reason.strip()


def superuser_remains(*, without: list[int]) -> bool:
    """Whether an active superuser is left besides the accounts `without` (about to be
    suspended, deactivated, demoted or deleted): the last one never is, or every
    administrator is locked out and only a shell recovers. Every active superuser is locked,
    in one order, until the caller's transaction ends: two staff demoting each other at once
    cannot both pass this count."""
    with transaction.atomic():
        active = list(
            get_user_model()
            .objects.select_for_update()
            .filter(is_superuser=True, is_active=True)
            .order_by("pk")
            .values_list("pk", flat=True)
        )
    return any(pk not in without for pk in active)


def _rank(user) -> int:
    """Players 0, staff 1, superusers 2: the account tools reach only accounts ranked below
    the staff member's own (superusers reach other superusers too), so a cashier manager
    cannot lock out an administrator or the other approver of adjustments."""
    return 2 if user.is_superuser else 1 if user.is_staff else 0


@transaction.atomic
def account_suspend(*, player, staff, reason: str, now: datetime | None = None) -> dict:
    """Suspend the account: no login, no money in or out, no play; seats left after the hand.
    Returns what was ended (sessions, tables, live Showdown tables)."""
    now = now or timezone.now()
    player, reason = _check(player=player, staff=staff, reason=reason)
    if not player.is_active:
        raise AccountError("already_suspended", f"{player.get_username()} is already suspended.")
    if player.is_superuser and not superuser_remains(without=[player.pk]):
        raise AccountError("last_superuser", _("The last active superuser cannot be suspended."))
    tables = []
    for seat in Seat.objects.filter(player=player).order_by("table_id"):
        poker.table_leave(table=seat.table_id, player=player, by=staff)
        tables.append(seat.table_id)
    # Off every waiting list at once: a seat held for them goes to the next in line.
    waiting_lists = poker.waiting_lists_leave_all(player=player)
    showdown_tables = showdown_live.live_seats_leave_after_round(player=player)
    # The wallet's lock orders this against a deposit or withdrawal in flight: one that holds
    # it finishes first; one that waits for it reads the account as suspended.
    Account.objects.select_for_update().filter(kind=Account.Kind.WALLET, owner=player).first()
    player.is_active = False
    with acting_on_powers(staff):  # the database's power record names the staff member
        player.save(update_fields=["is_active"])
    sessions = player_sessions_end(player=player)
    ended = {"sessions": sessions, "tables": tables, "showdown_tables": showdown_tables}
    ended["waiting_lists"] = waiting_lists
    audit_record(
        action="staff.account_suspend",
        actor=staff,
        subject=player,
        payload={"before": {"is_active": True}, "after": {"is_active": False}, **ended},
        reason=reason,
        now=now,
    )
    table_ids = list(Table.objects.values_list("pk", flat=True))
    message = (
        "Your account is suspended by the room's staff; you leave the table after this hand. "
        "Contact support."
    )
    transaction.on_commit(
        lambda: broadcast.send_player_excluded(
            table_ids=table_ids, user_id=player.pk, message=message
        )
    )
    return ended


@transaction.atomic
def account_reinstate(*, player, staff, reason: str, now: datetime | None = None) -> None:
    """Lift a suspension: the player may log in, move money and play again."""
    player, reason = _check(player=player, staff=staff, reason=reason)
    if player.is_active:
        raise AccountError("not_suspended", f"{player.get_username()} is not suspended.")
    player.is_active = True
    with acting_on_powers(staff):  # the database's power record names the staff member
        player.save(update_fields=["is_active"])
    audit_record(
        action="staff.account_reinstate",
        actor=staff,
        subject=player,
        payload={"before": {"is_active": False}, "after": {"is_active": True}},
        reason=reason,
        now=now,
    )


SUSPENDED_LOGIN = gettext_lazy("This account is suspended. Contact support.")


def account_suspended_for(*, username, password) -> bool:
    """After a refused login: the username and password are right but the account is
    suspended (so the page says so instead of "wrong password"). Only someone who knows the
    password learns it; for anyone else the answer stays the same."""
    if not isinstance(username, str) or not isinstance(password, str):
        return False
    user = get_user_model().objects.filter(username=username, is_active=False).first()
    return user is not None and user.check_password(password)
