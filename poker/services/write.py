"""Writing one change of a table: `persist` (the hand's new events, the hand, the rows the
change altered, then the table's version and lease, fenced by the version and epoch the change
started from; a mid-hand action as the one statement of poker/services/action_write.py), and
`rows_save` for the ORM writes of everything else."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.db import models
from django.utils import timezone

from config.leases import StaleOwner, lease_take
from poker.models import Hand, HandEvent, HandPlayer, Table
from poker.services import action_write
from poker.services.change import TableChange


def persist(change: TableChange, plan: PersistPlan) -> None:
    """Write what the change did that is not written yet, as `persist_plan` readied it: the
    moved hand's new events and the hand itself, the rows it altered (a player's last seq),
    then the table's version and lease, fenced: the table's row is written only where its
    version and lease epoch are still the ones this change started from, and for a change made
    from the owner's memory without the row's lock (`change.held`), where the lease is still
    live and every setting staff may edit is still the remembered one (`StaleOwner`
    otherwise). A mid-hand action's writes are one statement (poker/services/action_write.py);
    anything else (a hand's end, seats changing, a deal) is ordinary ORM writes, inside the
    change's transaction."""
    if plan.one_statement:
        _write_one_statement(change, plan)
    else:
        _write_rows(change, plan)


@dataclass
class PersistPlan:
    """What `persist` is about to write: the hand's new events, the moved hand, the rows, the
    fence (version, epoch) and, for a held change, what else the fence names."""

    events: list[HandEvent]
    moved: Hand | None
    rows: list[tuple[Any, list[str] | None]]
    fence: tuple[int, int]
    held: action_write.Held | None
    one_statement: bool


def persist_plan(change: TableChange) -> PersistPlan:
    """Ready the change's rows for writing (the table's next version and its lease) and say
    whether they fit the one statement of a mid-hand action."""
    table, hand_row = change.table, change.hand_row
    events: list[HandEvent] = []
    moved = hand_row if change.engine is not None and change.hand_moved else None
    if moved is not None and change.engine is not None:
        events = moved.record(change.engine, insert=False)  # the log's new events
        change.save_later(moved, list(action_write.HAND_PLAYED))
    fence = (table.version, change.epoch)
    now = timezone.now()
    held = _held(change, now)
    table.version += 1
    if held is not None:
        # The lease this owner holds (the fence says it is still live) runs a lease time more.
        table.lease_expires_at = now + timedelta(seconds=settings.POKER_TABLE_LEASE_SECONDS)
    else:
        lease_take(table, now)
    change.save_later(table, list(action_write.TABLE_FENCED))
    rows, change.rows_to_save = change.rows_to_save, []
    fits = moved is not None and action_write.fits(rows, moved, table)
    return PersistPlan(events, moved, rows, fence, held, fits)


def _write_one_statement(change: TableChange, plan: PersistPlan) -> None:
    table, moved = change.table, plan.moved
    assert moved is not None
    players = [row for row, _ in plan.rows if isinstance(row, HandPlayer)]
    # The frames' stacks and wallets are read by the same statement.
    owners = [] if change._seats is None else [s.player_id for s in change._seats.values()]
    money = action_write.write(
        events=plan.events,
        hand_row=moved,
        players=players,
        table=table,
        fence=plan.fence,
        held=plan.held,
        wallet_owner_ids=owners,
    )
    if money is None:
        raise StaleOwner(table.pk)
    # The wallets read are every seated player's only when the seats were the change's.
    change.money = money if change._seats is not None else None


def _write_rows(change: TableChange, plan: PersistPlan) -> None:
    table = change.table
    if plan.events:
        HandEvent.objects.bulk_create(plan.events)
    table_fields = next(fields for row, fields in plan.rows if row is table)
    rows_save([(row, fields) for row, fields in plan.rows if row is not table])
    names = table_fields if table_fields is not None else _loaded_fields(table)
    values = {name: getattr(table, name) for name in names}
    version, epoch = plan.fence
    _fenced_update(table, _fence(version, epoch, plan.held), values)


def table_version_write(change: TableChange, fields: list[str]) -> None:
    """Write these fields of the change's table now with a version of their own, fenced as
    `persist` will fence the rest (a deal's commitment frame takes a version before the
    deal's); `persist` then fences by that version."""
    table = change.table
    fence = _fence(table.version, change.epoch, _held(change, timezone.now()))
    table.version += 1
    _fenced_update(table, fence, {name: getattr(table, name) for name in ("version", *fields)})


# The staff-editable settings by column (a foreign key by its id: no read of the related row).
_SETTING_COLUMNS = tuple(
    field.attname
    for field in Table._meta.concrete_fields
    if field.name in action_write.TABLE_SETTINGS
)


def _held(change: TableChange, now: datetime) -> action_write.Held | None:
    """What else the fence of a change from memory names (None for a locked change)."""
    if change.held is None:
        return None
    return action_write.Held(live_at=now, settings=change.held)


def _fence(version: int, epoch: int, held: action_write.Held | None) -> dict[str, Any]:
    """The table row's fence: the version and lease epoch the change holds, and for a change
    from memory without the row's lock, the lease live and the settings as remembered."""
    fence: dict[str, Any] = {"version": version, "lease_epoch": epoch}
    if held is not None:
        fence["lease_expires_at__gt"] = held.live_at
        for attname in _SETTING_COLUMNS:
            fence[attname] = getattr(held.settings, attname)
    return fence


def _fenced_update(table: Table, fence: dict[str, Any], values: dict[str, Any]) -> None:
    if Table.objects.filter(pk=table.pk, **fence).update(**values) != 1:
        raise StaleOwner(table.pk)


def rows_save(rows: list[tuple[Any, list[str] | None]]) -> None:
    """Save each (row, fields; None: every loaded field): one row of a model with `save()`,
    several (the players' results at a hand's end) with one `bulk_update` of their fields."""
    by_model: dict[type[models.Model], list[tuple[Any, list[str] | None]]] = {}
    for row, fields in rows:
        by_model.setdefault(type(row), []).append((row, fields))
    for model, group in by_model.items():
        if len(group) == 1:
            row, fields = group[0]
            row.save(update_fields=fields)
            continue
        names: list[str] = []
        for row, fields in group:
            for name in fields if fields is not None else _loaded_fields(row):
                if name not in names:
                    names.append(name)
        model._default_manager.bulk_update([row for row, _ in group], names)


def _loaded_fields(row: Any) -> list[str]:
    """The fields `row.save()` would write: every concrete one it loaded but its key."""
    deferred = row.get_deferred_fields()
    return [
        field.attname
        for field in row._meta.concrete_fields
        if not field.primary_key and field.attname not in deferred
    ]
