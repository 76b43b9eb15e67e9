"""The staff's table tools (the admin's buttons): cancel a running hand, remove a player from
a seat, close and reopen a table, and the waiting-list tools (take a player off a list, move
them up or down, offer them a seat by hand).

Each is one transaction holding the table lock, asks the staff member for a reason and writes
exactly one audit record (`staff.*`) in that transaction, so a refused or failed act moves
nothing and records nothing. Players hear of it through the table's usual events: a cancelled
hand's `hand_cancelled` (every bet back: the hand never posted), `player_leaving` for a seat in
the running hand (folded at its turns, cashed out when the hand ends) and `player_left` with
reason `removed` or `table_closed` (cashed out at once). The staff member's reason is for the
audit log and the incident, never sent to the table: players get a fixed sentence.

A tool runs at the table's owner: when another process's live owner holds the table,
the tool is sent there and its answer awaited (`poker.owner.command_ask_sync`, set as the route
in PokerConfig.ready); that owner runs the same function (`staff_tool_here`, the staff member
rebuilt from their id) and its refusal comes back as the same `TableError`. With no live owner,
or this process's own, the tool runs here as before. A tool that returns a row returns it read
again here, after the owner's commit.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextvars import ContextVar
from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from audit.services import audit_record
from poker.models import Hand, Seat, Table, TableBar, WaitingEntry
from poker.services.acting import advance, remove_seat
from poker.services.bars import table_bar_check
from poker.services.events import PlayerLeaving
from poker.services.faults import hand_cancel
from poker.services.unit import TableError, load_or_none, table_change
from poker.services.waiting import (
    seat_offer_make,
    waiting_entry_end,
    waiting_list_order,
    waiting_lists_close,
)
from responsible import rules as responsible

STAFF_CANCEL_MESSAGE = "The room's staff cancelled this hand; every bet is returned."

# The owner's command kind for a staff tool (poker/owner.py), and the route to the live owner
# of another process (`command_ask_sync(table_id, kind, payload)`: its JSON answer, or None to
# run here), set in PokerConfig.ready; none set (a script without the app), and tools run here.
STAFF_KIND = "poker.staff"
_route: Callable[[int, str, dict[str, Any]], str | None] | None = None
# Set while a tool runs at the owner, which runs it here whatever the lease says.
_at_the_owner: ContextVar[bool] = ContextVar("staff_tool_at_the_owner", default=False)


def staff_tools_route(route: Callable[[int, str, dict[str, Any]], str | None] | None) -> None:
    global _route
    _route = route


def _sent(table_id: int, tool: str, staff, reason: str, **args: Any) -> str | None:
    """The tool's answer from the table's live owner in another process (JSON), or None: run
    it here."""
    if _route is None or _at_the_owner.get():
        return None
    payload = {"tool": tool, "staff": staff.pk, "reason": reason, "args": args}
    return _route(table_id, STAFF_KIND, payload)


def staff_tool_here(payload: dict[str, Any]) -> str:
    """The owner's side of a staff tool (registered in PokerConfig.ready): the tool run here
    for the staff member who asked, its result as JSON (a row as its id)."""
    staff = get_user_model().objects.get(pk=payload["staff"])
    tool = _TOOLS[payload["tool"]]
    token = _at_the_owner.set(True)
    try:
        result = tool(staff=staff, reason=payload["reason"], **payload["args"])
    finally:
        _at_the_owner.reset(token)
    return json.dumps(getattr(result, "pk", result))


def _table_id(table: Table | int) -> int:
    return table.pk if isinstance(table, Table) else table


def _check(staff, reason) -> str:
    if not isinstance(staff, get_user_model()) or staff.pk is None or not staff.is_staff:
        raise TableError("not_staff", _("Only staff may use the table tools."))
    if not isinstance(reason, str) or not reason.strip():
        raise TableError("reason_required", _("Say why: a reason is required."))
    return reason.strip()


def _not_own(staff, player) -> None:
    """Staff never use a table tool on their own account: a table manager who also plays
    could otherwise lift their own bar, move up a waiting list or offer themselves a seat."""
    if getattr(player, "pk", player) == staff.pk:
        raise TableError("own_account", _("Staff cannot use the table tools on their own account."))


def _table_record(change, *, action: str, staff, reason: str, **payload) -> None:
    """The tool's one audit record, about the table, in the tool's transaction."""
    audit_record(action=action, actor=staff, subject=change.table, payload=payload, reason=reason)


def staff_hand_cancel(*, hand: Hand | int, staff, reason: str) -> Hand:
    """Cancel a running hand: every bet back to its stack, everyone at the table told."""
    reason = _check(staff, reason)
    hand_id = getattr(hand, "pk", hand)
    table_id = getattr(hand, "table_id", None) or (
        Hand.objects.filter(pk=hand_id).values_list("table_id", flat=True).first()
    )
    sent = None if table_id is None else _sent(table_id, "hand_cancel", staff, reason, hand=hand_id)
    if sent is not None:
        return Hand.objects.get(pk=hand_id)
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


# How long a removal keeps the player from the table: the admin's choices, in hours.
BAR_HOURS_DEFAULT = 24
BAR_HOURS_CHOICES = (1, 6, 24, 72, 168, 720)


def _table_of(model, pk, missing: TableError) -> int:
    """The table of a seat or bar, to lock it before reading the row again; `missing` if gone."""
    table_id = model.objects.filter(pk=pk).values_list("table_id", flat=True).first()
    if table_id is None:
        raise missing
    return table_id


def _leave_after_hand(change, seat: Seat, *, staff, reason: str) -> None:
    """A seat in the running hand leaves when it ends: folded at its turns meanwhile, then
    cashed out with `staff` as the author and `reason` on the cash-out."""
    seat.leave_pending, seat.leave_by, seat.leave_reason = True, staff, reason
    seat.save(update_fields=["leave_pending", "leave_by", "leave_reason"])
    change.event(PlayerLeaving(type="player_leaving", seat=seat.number))


def _bar_make(change, *, player, staff, reason: str, hours: int) -> TableBar:
    """Bar the player from the table for `hours` from now; off its waiting list too."""
    if not isinstance(hours, int) or isinstance(hours, bool) or hours not in BAR_HOURS_CHOICES:
        raise TableError(
            "bad_bar_period",
            _("A removal bars the player for one of %(choices)s hours.")
            % {"choices": ", ".join(map(str, BAR_HOURS_CHOICES))},
        )
    now = timezone.now()
    bar = TableBar.objects.create(
        table=change.table,
        player=player,
        until=now + timedelta(hours=hours),
        staff=staff,
        reason=reason,
        created_at=now,
    )
    entry = WaitingEntry.objects.filter(table=change.table, player=player).first()
    if entry is not None:
        waiting_entry_end(change, entry, reason="removed")
    return bar


def staff_seat_remove(
    *, seat: Seat | int, staff, reason: str, bar_hours: int = BAR_HOURS_DEFAULT
) -> str:
    """Stand a player up: at once with a cash-out, or, in the running hand, folded at their
    turns and cashed out when it ends. Either way they are barred from the table for
    `bar_hours`, so that a removed player cannot buy back in at once. Returns "removed"
    or "leaving"."""
    reason = _check(staff, reason)
    seat_id = seat.pk if isinstance(seat, Seat) else seat
    table_id = _table_of(Seat, seat_id, TableError("no_seat", _("This seat is free already.")))
    sent = _sent(table_id, "seat_remove", staff, reason, seat=seat_id, bar_hours=bar_hours)
    if sent is not None:
        return json.loads(sent)
    with table_change(table_id) as change:
        row = Seat.objects.filter(pk=seat_id, table=change.table).select_related("player").first()
        if row is None:
            raise TableError("no_seat", _("This seat is free already."))
        player = row.player
        _not_own(staff, player)
        change.users.add(player.pk)
        bar = _bar_make(change, player=player, staff=staff, reason=reason, hours=bar_hours)
        hand_row = change.running_hand()
        if hand_row is not None and hand_row.is_dealt(row.number):
            if row.leave_pending and row.leave_reason == "removed":
                raise TableError("already_leaving", _("This player already leaves after the hand."))
            _leave_after_hand(change, row, staff=staff, reason="removed")
            engine = load_or_none(hand_row)
            if engine is not None and engine.to_act == row.number:
                advance(change, hand_row, engine, since=len(engine.events), now=timezone.now())
            outcome = "leaving"
        else:
            remove_seat(change, row, reason="removed", by=staff)
            outcome = "removed"
        _table_record(
            change, action="staff.seat_remove", staff=staff, reason=reason,
            player=player.pk, seat=row.number, outcome=outcome,
            bar={"id": bar.pk, "hours": bar_hours, "until": bar.until.isoformat()},
        )  # fmt: skip
    return outcome


def staff_table_bar_lift(*, bar: TableBar | int, staff, reason: str) -> TableBar:
    """End a bar early: the player may sit at the table again at once."""
    reason = _check(staff, reason)
    bar_id = bar.pk if isinstance(bar, TableBar) else bar
    table_id = _table_of(TableBar, bar_id, TableError("no_bar", _("There is no such bar.")))
    if _sent(table_id, "bar_lift", staff, reason, bar=bar_id) is not None:
        return TableBar.objects.get(pk=bar_id)
    with table_change(table_id) as change:
        bar = TableBar.objects.select_for_update().get(pk=bar_id)
        now = timezone.now()
        _not_own(staff, bar.player_id)
        if not bar.is_active(now):
            raise TableError("bar_ended", _("This bar has ended already."))
        bar.lifted_at, bar.lifted_by = now, staff
        bar.save(update_fields=["lifted_at", "lifted_by"])
        change.users.add(bar.player_id)
        _table_record(
            change, action="staff.bar_lift", staff=staff, reason=reason,
            player=bar.player_id, bar=bar.pk,
            before={"until": bar.until.isoformat()}, after={"until": now.isoformat()},
        )  # fmt: skip
    return bar


def staff_table_close(*, table: Table | int, staff, reason: str) -> dict:
    """Close a table: no new hands; players not in the running hand are cashed out at once,
    the others when it ends. Returns the seats removed and those leaving after the hand."""
    reason = _check(staff, reason)
    table_id = _table_id(table)
    sent = _sent(table_id, "table_close", staff, reason, table=table_id)
    if sent is not None:
        return json.loads(sent)
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
                if not seat.leave_pending or seat.leave_by is None:
                    _leave_after_hand(change, seat, staff=staff, reason="table_closed")
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
    table_id = _table_id(table)
    if _sent(table_id, "table_reopen", staff, reason, table=table_id) is not None:
        return Table.objects.get(pk=table_id)
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


# -- waiting lists


def _waiting(change, player) -> tuple[list[WaitingEntry], WaitingEntry]:
    """The table's list in order, and the player's entry in it."""
    entries = list(WaitingEntry.objects.filter(table=change.table).order_by("joined_at", "id"))
    player_id = getattr(player, "pk", player)
    entry = next((e for e in entries if e.player_id == player_id), None)
    if entry is None:
        raise TableError("not_waiting", _("This player is not on the table's waiting list."))
    return entries, entry


def staff_waiting_remove(*, table: Table | int, player, staff, reason: str) -> None:
    """Take a player off a table's waiting list; a seat offered to them goes to the next in
    line."""
    reason = _check(staff, reason)
    table_id, player_id = _table_id(table), getattr(player, "pk", player)
    args = {"table": table_id, "player": player_id}
    if _sent(table_id, "waiting_remove", staff, reason, **args) is not None:
        return
    with table_change(table) as change:
        entries, entry = _waiting(change, player)
        _not_own(staff, entry.player_id)
        offered = entry.offer_expires_at is not None
        waiting_entry_end(change, entry, reason="removed")
        _table_record(
            change, action="staff.waiting_remove", staff=staff, reason=reason,
            player=entry.player_id,
            before={"place": entries.index(entry) + 1, "offered": offered}, after={"place": None},
        )  # fmt: skip


def staff_waiting_move(*, table: Table | int, player, staff, reason: str, place: int) -> int:
    """Move a player up or down a table's waiting list, to `place` (1 is the head; past the
    end is the end). An offer they hold stays theirs. Returns the place they moved from."""
    reason = _check(staff, reason)
    if not isinstance(place, int) or isinstance(place, bool) or place < 1:
        raise TableError("bad_place", _("A place in the list is a whole number from 1."))
    table_id, player_id = _table_id(table), getattr(player, "pk", player)
    args = {"table": table_id, "player": player_id, "place": place}
    sent = _sent(table_id, "waiting_move", staff, reason, **args)
    if sent is not None:
        return json.loads(sent)
    with table_change(table) as change:
        entries, entry = _waiting(change, player)
        _not_own(staff, entry.player_id)
        before = entries.index(entry) + 1
        place = min(place, len(entries))
        if place == before:
            raise TableError("same_place", _("The player is at that place already."))
        entries.remove(entry)
        entries.insert(place - 1, entry)
        waiting_list_order(change, entries)
        _table_record(
            change, action="staff.waiting_move", staff=staff, reason=reason,
            player=entry.player_id, before={"place": before}, after={"place": place},
        )  # fmt: skip
    return before


def staff_seat_offer(*, table: Table | int, player, staff, reason: str) -> int | None:
    """Offer a listed player a free seat by hand, out of turn, for the table's usual time. With
    every free seat already offered, the newest other offer is withdrawn (its player keeps their
    place). Returns the player whose offer was withdrawn, if any."""
    reason = _check(staff, reason)
    table_id, player_id = _table_id(table), getattr(player, "pk", player)
    sent = _sent(table_id, "seat_offer", staff, reason, table=table_id, player=player_id)
    if sent is not None:
        return json.loads(sent)
    with table_change(table) as change:
        if not change.table.is_open:
            raise TableError("table_closed", _("This table is closed."))
        entries, entry = _waiting(change, player)
        _not_own(staff, entry.player_id)
        if entry.offer_expires_at is not None:
            raise TableError("already_offered", _("A seat is offered to this player already."))
        responsible.check_play(player=entry.player, error=TableError)
        table_bar_check(table=change.table, player=entry.player)
        withdrawn = seat_offer_make(change, entry)
        withdrawn_id = withdrawn.player_id if withdrawn is not None else None
        _table_record(
            change, action="staff.seat_offer", staff=staff, reason=reason,
            player=entry.player_id, place=entries.index(entry) + 1,
            # set by seat_offer_make, after the check above that narrowed it to None
            expires_at=entry.offer_expires_at.isoformat(),  # type: ignore[attr-defined]
            withdrawn=withdrawn_id,
        )  # fmt: skip
    return withdrawn_id


# What the owner runs for `staff_tool_here`, by the name in the command.
_TOOLS: dict[str, Callable[..., Any]] = {
    "hand_cancel": staff_hand_cancel,
    "seat_remove": staff_seat_remove,
    "bar_lift": staff_table_bar_lift,
    "table_close": staff_table_close,
    "table_reopen": staff_table_reopen,
    "waiting_remove": staff_waiting_remove,
    "waiting_move": staff_waiting_move,
    "seat_offer": staff_seat_offer,
}
