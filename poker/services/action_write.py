"""A mid-hand action's writes as one statement, and the read its frames need.

An action that leaves its hand running writes four things: the table's new version and
lease, fenced by the version and epoch the change read, and, only if that row was written, the
hand's new events (appended to its log), the hand row's played columns and the acting player's
last seq; its frames then show the table's stacks and the players' wallets. All of it is one
plain-SQL statement: the table's fenced UPDATE as the first data-modifying WITH query, each
other part writing only `WHERE EXISTS` a row it returned, and the stacks and wallets
(cashier.selectors) joined to that row: no row back means the fence refused and nothing was
written. So the statement is all or nothing on its own, and a change from the owner's memory
(poker/services/unit.py `table_apply`) sends it in autocommit without the table's lock, its
fence also naming the lease live and the table's settings (`Held`). The rows of
several events or players are array parameters (`unnest`), so the statement's text is the
same for every action of a table.

Only models with no `pre_save`/`post_save` receivers go through here (`receivers`): the ORM
path (poker/services/unit.py `persist`) sends those signals, this one does not, so a receiver
added to one of these models sends its rows back to the ORM path (and
tests/poker/test_change_reads_and_writes.py fails, to say the counts went up). Whatever else a
change wrote (a hand's end, seats, a deal) keeps the ORM path.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models import Field, Model, signals
from django.utils import timezone

from cashier.selectors import table_stacks_and_wallets_of
from poker.models import Hand, HandEvent, HandPlayer, Table
from poker.selectors import table_money_query

# What playing a hand changes of its row: not its table, number, deck, setup or start, fixed
# when it was dealt (so the deck is written once, by the deal, never again).
HAND_PLAYED: tuple[str, ...] = tuple(
    field.name
    for field in Hand._meta.concrete_fields
    if field.name not in ("id", "table", "number", "deck", "setup", "started_at")
)
# What every change writes of the table's row, fenced.
TABLE_FENCED: tuple[str, ...] = ("version", "lease_owner", "lease_epoch", "lease_expires_at")
# What staff may edit of a table (the admin's form; the rest moves only with a new version):
# the fence of a change made from memory names them too (`Held`).
TABLE_SETTINGS: tuple[str, ...] = tuple(
    field.name for field in Table._meta.concrete_fields if field.editable and not field.primary_key
)

MODELS: tuple[type[Model], ...] = (HandEvent, Hand, HandPlayer, Table)
SAVE_SIGNALS = (signals.pre_save, signals.post_save)


def receivers(model: type[Model]) -> list[str]:
    """The save signals that have a receiver for `model` (empty: it may be written here)."""
    names = {signals.pre_save: "pre_save", signals.post_save: "post_save"}
    return [names[signal] for signal in SAVE_SIGNALS if signal.has_listeners(model)]


def fits(rows: Iterable[tuple[Any, list[str] | None]], hand_row: Hand, table: Table) -> bool:
    """Are a change's rows to save exactly what this statement writes: the running hand's
    played columns, players' last seq of that hand, the table's fenced columns; and have
    their models no save receivers?"""
    if hand_row.status != Hand.Status.RUNNING or hand_row.pk is None:
        return False
    if any(receivers(model) for model in MODELS):
        return False
    rows = list(rows)
    if not any(row is hand_row for row, _ in rows):
        return False
    for row, fields in rows:
        if row is hand_row:
            ok = fields is not None and set(fields) == set(HAND_PLAYED)
        elif row is table:
            ok = fields is not None and set(fields) == set(TABLE_FENCED)
        elif isinstance(row, HandPlayer):
            ok = row.hand_id == hand_row.pk and fields == ["last_seq"] and row.pk is not None
        else:
            ok = False
        if not ok:
            return False
    return True


def _q(name: str) -> str:
    return connection.ops.quote_name(name)


def _field(model: type[Model], name: str) -> Field:
    field = model._meta.get_field(name)
    if not isinstance(field, Field) or field.column is None:
        raise TypeError(f"{model.__name__}.{name} is not a column")
    return field


def _column(model: type[Model], name: str) -> str:
    return _q(str(_field(model, name).column))


def _prep(row: Model, name: str) -> Any:
    """The value `save()` would send for this field of `row`."""
    field = _field(type(row), name)
    return field.get_db_prep_save(getattr(row, field.attname), connection)


@dataclass(frozen=True)
class Held:
    """What the fence of a change from the owner's memory names beyond the version and the
    epoch (poker/services/unit.py `table_apply`, which holds no lock): the lease still live
    at `live_at`, and every setting staff may edit still what the `settings` row holds (the
    admin writes those without a new version, so the version alone would not show them)."""

    live_at: datetime
    settings: Table


@functools.cache
def _sql(held: bool) -> str:
    """The statement, built once per fence from the models' names; the stacks and wallets
    query goes in for `{money}`."""
    event, hand, player, table = (_q(model._meta.db_table) for model in MODELS)
    event_columns = ", ".join(_column(HandEvent, n) for n in ("hand", "seq", "kind", "payload"))
    event_columns += ", " + _column(HandEvent, "created_at")
    hand_set = ", ".join(f"{_column(Hand, name)} = %s" for name in HAND_PLAYED)
    table_set = ", ".join(f"{_column(Table, name)} = %s" for name in TABLE_FENCED)
    fence = (
        f"{_q('id')} = %s AND {_column(Table, 'version')} = %s"
        f" AND {_column(Table, 'lease_epoch')} = %s"
    )
    if held:
        fence += f" AND {_column(Table, 'lease_expires_at')} > %s"
        fence += "".join(
            f" AND {_column(Table, name)} IS NOT DISTINCT FROM %s" for name in TABLE_SETTINGS
        )
    last_seq = _column(HandPlayer, "last_seq")
    # The table's fenced row first; every other part writes only if it was written.
    written = "EXISTS (SELECT 1 FROM fenced)"
    return (
        f"WITH fenced AS (UPDATE {table} SET {table_set} WHERE {fence} RETURNING {_q('id')}),"
        f" new_events AS (INSERT INTO {event} ({event_columns})"
        " SELECT %s, e.seq, e.kind, e.payload, %s"
        " FROM unnest(%s::integer[], %s::text[], %s::jsonb[]) AS e(seq, kind, payload)"
        f" WHERE {written}),"
        f" hand AS (UPDATE {hand} SET {hand_set} WHERE {_q('id')} = %s AND {written}),"
        f" players AS (UPDATE {player} AS p SET {last_seq} = v.last_seq"
        " FROM unnest(%s::bigint[], %s::bigint[]) AS v(id, last_seq)"
        f" WHERE p.{_q('id')} = v.id AND {written})"
        " SELECT fenced.id, money.kind, money.owner_id, money.balance"
        " FROM fenced LEFT JOIN ({money}) AS money ON true"
    )


Money = tuple[dict[int, int], dict[int, int]]


def write(
    *,
    events: list[HandEvent],
    hand_row: Hand,
    players: list[HandPlayer],
    table: Table,
    fence: tuple[int, int],
    held: Held | None = None,
    wallet_owner_ids: Sequence[int] = (),
) -> Money | None:
    """Where the table's (version, lease epoch) is still `fence` (and what `held` names):
    update the table's fenced columns, append `events`, save the hand's played columns and the
    players' last seq, and read the table's stacks and the wallets of `wallet_owner_ids` for
    the frames (poker.selectors.table_stacks_and_wallets), all one statement. Returns
    (stacks, wallets); None when the fence refused, and then nothing was written."""
    now = timezone.now()
    for event in events:
        event.created_at = now  # what `auto_now_add` would set
    payload = _field(HandEvent, "payload")
    payloads = [payload.get_db_prep_save(event.payload, connection) for event in events]
    created = _field(HandEvent, "created_at").get_db_prep_save(now, connection)
    hand_params = [_prep(hand_row, name) for name in HAND_PLAYED] + [hand_row.pk]
    version, epoch = fence
    table_params = [_prep(table, name) for name in TABLE_FENCED] + [table.pk, version, epoch]
    if held is not None:
        expires = _field(Table, "lease_expires_at")
        table_params.append(expires.get_db_prep_value(held.live_at, connection))
        table_params += [_prep(held.settings, name) for name in TABLE_SETTINGS]
    money_sql, money_params = table_money_query(table=table, wallet_owner_ids=wallet_owner_ids)
    with connection.cursor() as cursor:
        cursor.execute(
            _sql(held is not None).replace("{money}", money_sql),
            [
                *table_params,
                hand_row.pk,
                created,
                [event.seq for event in events],
                [event.kind for event in events],
                payloads,
                *hand_params,
                [row.pk for row in players],
                [row.last_seq for row in players],
                *money_params,
            ],
        )
        rows = cursor.fetchall()
    if not rows:
        return None
    return table_stacks_and_wallets_of([row[1:] for row in rows], wallet_owner_ids=wallet_owner_ids)
