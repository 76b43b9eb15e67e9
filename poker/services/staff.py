"""The staff's table tools (the admin's buttons): cancel a running hand, remove a player from
a seat, close and reopen a table.

Each is one transaction holding the table lock, asks the staff member for a reason and writes
exactly one audit record (`staff.*`) in that transaction, so a refused or failed act moves
nothing and records nothing. Players hear of it through the table's usual events: a cancelled
hand's `hand_cancelled` (every bet back: the hand never posted), `player_leaving` for a seat in
the running hand (folded at its turns, cashed out when the hand ends) and `player_left` with
reason `removed` or `table_closed` (cashed out at once). The staff member's reason is for the
audit log and the incident, never sent to the table: players get a fixed sentence.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import audit_record
from poker.models import Hand, Seat, Table
from poker.services.acting import advance, remove_seat
from poker.services.faults import hand_cancel
from poker.services.unit import TableError, load_or_none, table_change
from poker.services.waiting import waiting_lists_close

STAFF_CANCEL_MESSAGE = "The room's staff cancelled this hand; every bet is returned."


def _check(staff, reason) -> str:
    if not isinstance(staff, get_user_model()) or staff.pk is None or not staff.is_staff:
        raise TableError("not_staff", _("Only staff may use the table tools."))
    if not isinstance(reason, str) or not reason.strip():
        raise TableError("reason_required", _("Say why: a reason is required."))
    return reason.strip()


def staff_hand_cancel(*, hand: Hand | int, staff, reason: str) -> Hand:
    """Cancel a running hand: every bet back to its stack, everyone at the table told."""
    reason = _check(staff, reason)
    hand_id = getattr(hand, "pk", hand)
    with transaction.atomic():
        row = Hand.objects.filter(pk=hand_id).first()
        if row is None or not hand_cancel(
            hand=row, reason=STAFF_CANCEL_MESSAGE, code="staff", detail=reason
        ):
            raise TableError("hand_not_running", _("This hand is not running: nothing to cancel."))
        row.refresh_from_db()
        audit_record(
            action="staff.hand_cancel",
            actor=staff,
            subject=row,
            payload={
                "table": row.table_id,
                "hand": row.pk,
                "number": row.number,
                "turn": row.turn,
                "players": {str(s): u for s, u in row.player_ids().items()},
                "before": {"status": Hand.Status.RUNNING},
                "after": {"status": row.status},
            },
            reason=reason,
        )
    return row


def staff_seat_remove(*, seat: Seat | int, staff, reason: str) -> str:
    """Stand a player up: at once with a cash-out, or, in the running hand, folded at their
    turns and cashed out when it ends. Returns "removed" or "leaving"."""
    reason = _check(staff, reason)
    seat_id = getattr(seat, "pk", seat)
    table_id = Seat.objects.filter(pk=seat_id).values_list("table_id", flat=True).first()
    if table_id is None:
        raise TableError("no_seat", _("This seat is free already."))
    with table_change(table_id) as change:
        seat = Seat.objects.filter(pk=seat_id, table=change.table).select_related("player").first()
        if seat is None:
            raise TableError("no_seat", _("This seat is free already."))
        player = seat.player
        change.users.add(player.pk)
        hand_row = change.running_hand()
        if hand_row is not None and hand_row.is_dealt(seat.number):
            if seat.leave_pending:
                raise TableError("already_leaving", _("This player already leaves after the hand."))
            seat.leave_pending = True
            seat.save(update_fields=["leave_pending"])
            change.event("player_leaving", seat=seat.number)
            engine = load_or_none(hand_row)
            if engine is not None and engine.to_act == seat.number:
                advance(change, hand_row, engine, since=len(engine.events), now=timezone.now())
            outcome = "leaving"
        else:
            remove_seat(change, seat, reason="removed", by=staff)
            outcome = "removed"
        audit_record(
            action="staff.seat_remove",
            actor=staff,
            subject=change.table,
            payload={"player": player.pk, "seat": seat.number, "outcome": outcome},
            reason=reason,
        )
    return outcome


def staff_table_close(*, table: Table | int, staff, reason: str) -> dict:
    """Close a table: no new hands; players not in the running hand are cashed out at once,
    the others when it ends. Returns the seats removed and those leaving after the hand."""
    reason = _check(staff, reason)
    with table_change(table) as change:
        table = change.table
        if not table.is_open:
            raise TableError("table_closed", _("This table is closed already."))
        table.is_open = False
        table.save(update_fields=["is_open"])
        hand_row = change.running_hand()
        removed, leaving = [], []
        for seat in Seat.objects.filter(table=table).select_related("player").order_by("number"):
            change.users.add(seat.player_id)
            if hand_row is not None and hand_row.is_dealt(seat.number):
                if not seat.leave_pending:
                    seat.leave_pending = True
                    seat.save(update_fields=["leave_pending"])
                    change.event("player_leaving", seat=seat.number)
                leaving.append(seat.player_id)
            else:
                remove_seat(change, seat, reason="table_closed", by=staff)
                removed.append(seat.player_id)
        waiting_lists_close(change)
        change.lobby_refresh()
        done = {"removed": removed, "leaving": leaving}
        audit_record(
            action="staff.table_close",
            actor=staff,
            subject=table,
            payload={"before": {"is_open": True}, "after": {"is_open": False}, **done},
            reason=reason,
        )
    return done


def staff_table_reopen(*, table: Table | int, staff, reason: str) -> Table:
    """Open a closed table again: players may sit and hands start as usual."""
    reason = _check(staff, reason)
    with table_change(table) as change:
        table = change.table
        if table.is_open:
            raise TableError("table_open", _("This table is open already."))
        table.is_open = True
        table.save(update_fields=["is_open"])
        change.lobby_refresh()
        audit_record(
            action="staff.table_reopen",
            actor=staff,
            subject=table,
            payload={"before": {"is_open": False}, "after": {"is_open": True}},
            reason=reason,
        )
    return table
