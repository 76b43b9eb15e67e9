"""A mid-hand action's writes as one statement (issue 23 item 1).

An action that leaves its hand running writes four things that need nothing from each other:
the hand's new events (appended to its log), the hand row's played columns, the acting
player's last seq, and last the table's new version and lease, fenced by the version and
epoch the change read. On PostgreSQL they go as one plain-SQL statement, data-modifying WITH
queries ending in the table's fenced UPDATE, whose RETURNING says whether the fence held
(every part runs once, in the statement's one snapshot; none reads another's rows). The rows
of several events or players are array parameters (`unnest`), so the statement's text is the
same for every action. On SQLite (the embedded room) the same parts run as separate
statements in the same order, the hand's and the table's with the very same SQL.

Only models with no `pre_save`/`post_save` receivers go through here (`receivers`): the ORM
path (poker/services/unit.py `persist`) sends those signals, this one does not, so a receiver
added to one of these models sends its rows back to the ORM path (and
tests/poker/test_change_reads_and_writes.py fails, to say the counts went up). Whatever else a
change wrote (a hand's end, seats, a deal) keeps the ORM path.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import Any

from django.db import connection
from django.db.models import Field, Model, signals
from django.utils import timezone

from poker.models import Hand, HandEvent, HandPlayer, Table

# What playing a hand changes of its row: not its table, number, deck, setup or start, fixed
# when it was dealt (so the deck is written once, by the deal, never again).
HAND_PLAYED: tuple[str, ...] = tuple(
    field.name
    for field in Hand._meta.concrete_fields
    if field.name not in ("id", "table", "number", "deck", "setup", "started_at")
)
# What every change writes of the table's row, fenced.
TABLE_FENCED: tuple[str, ...] = ("version", "lease_owner", "lease_epoch", "lease_expires_at")

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


@functools.cache
def _sql(vendor: str) -> dict[str, str]:
    """The statement's parts, built once per database vendor from the models' names."""
    event, hand, player, table = (_q(model._meta.db_table) for model in MODELS)
    event_columns = ", ".join(_column(HandEvent, n) for n in ("hand", "seq", "kind", "payload"))
    event_columns += ", " + _column(HandEvent, "created_at")
    hand_set = ", ".join(f"{_column(Hand, name)} = %s" for name in HAND_PLAYED)
    table_set = ", ".join(f"{_column(Table, name)} = %s" for name in TABLE_FENCED)
    parts = {
        "hand": f"UPDATE {hand} SET {hand_set} WHERE {_q('id')} = %s",
        "table": (
            f"UPDATE {table} SET {table_set}"
            f" WHERE {_q('id')} = %s AND {_column(Table, 'version')} = %s"
            f" AND {_column(Table, 'lease_epoch')} = %s RETURNING {_q('id')}"
        ),
    }
    last_seq = _column(HandPlayer, "last_seq")
    if vendor == "postgresql":
        parts["events"] = (
            f"INSERT INTO {event} ({event_columns})"
            " SELECT %s, e.seq, e.kind, e.payload, %s"
            " FROM unnest(%s::integer[], %s::text[], %s::jsonb[]) AS e(seq, kind, payload)"
        )
        parts["players"] = (
            f"UPDATE {player} AS p SET {last_seq} = v.last_seq"
            " FROM unnest(%s::bigint[], %s::bigint[]) AS v(id, last_seq)"
            f" WHERE p.{_q('id')} = v.id"
        )
        parts["one"] = (
            f"WITH new_events AS ({parts['events']}),"
            f" hand AS ({parts['hand']}),"
            f" players AS ({parts['players']})"
            f" {parts['table']}"
        )
    else:
        parts["events"] = f"INSERT INTO {event} ({event_columns}) VALUES (%s, %s, %s, %s, %s)"
        parts["players"] = f"UPDATE {player} SET {last_seq} = %s WHERE {_q('id')} = %s"
    return parts


def write(
    *,
    events: list[HandEvent],
    hand_row: Hand,
    players: list[HandPlayer],
    table: Table,
    fence: tuple[int, int],
) -> bool:
    """Append `events`, save the hand's played columns and the players' last seq, and update
    the table's fenced columns where its (version, lease epoch) is still `fence`: one
    statement on PostgreSQL. False when the fence refused (the caller rolls back, so nothing
    of the rest stays)."""
    sql = _sql(connection.vendor)
    now = timezone.now()
    for event in events:
        event.created_at = now  # what `auto_now_add` would set
    payload = _field(HandEvent, "payload")
    payloads = [payload.get_db_prep_save(event.payload, connection) for event in events]
    created = _field(HandEvent, "created_at").get_db_prep_save(now, connection)
    hand_params = [_prep(hand_row, name) for name in HAND_PLAYED] + [hand_row.pk]
    version, epoch = fence
    table_params = [_prep(table, name) for name in TABLE_FENCED] + [table.pk, version, epoch]
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                sql["one"],
                [
                    hand_row.pk,
                    created,
                    [event.seq for event in events],
                    [event.kind for event in events],
                    payloads,
                    *hand_params,
                    [row.pk for row in players],
                    [row.last_seq for row in players],
                    *table_params,
                ],
            )
            return cursor.fetchone() is not None
        if events:
            cursor.executemany(
                sql["events"],
                [
                    (hand_row.pk, event.seq, event.kind, prepped, created)
                    for event, prepped in zip(events, payloads, strict=True)
                ],
            )
        cursor.execute(sql["hand"], hand_params)
        if players:
            cursor.executemany(sql["players"], [(row.last_seq, row.pk) for row in players])
        cursor.execute(sql["table"], table_params)
        return cursor.fetchone() is not None
