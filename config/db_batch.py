"""Several writes in one round trip (issue 12): rows to insert and rows to update, sent as one
statement on PostgreSQL (data-modifying WITH queries), one by one elsewhere.

A table change ends by appending the hand's new events, saving the hand, the players' last
seq and the table's version: four statements that need nothing from each other, so on
PostgreSQL they go as one. The SQL is Django's own (its insert and update compilers, with
their placeholders and value adapters), only wrapped: `WITH w0 AS (INSERT ...), w1 AS
(UPDATE ...) UPDATE ...`. Every part runs exactly once and to completion, in the statement's
one snapshot; the parts must not depend on each other's effects (these do not).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import connections, models, router
from django.db.models.sql import InsertQuery, UpdateQuery


def _update_fields(obj: models.Model, fields: Sequence[str] | None) -> list[models.Field]:
    """The fields `obj.save(update_fields=fields)` would write (all loaded ones for None)."""
    meta = obj._meta
    if fields is not None:
        return [meta.get_field(name) for name in fields]
    deferred = obj.get_deferred_fields()
    return [
        field
        for field in meta.concrete_fields
        if not field.primary_key and field.attname not in deferred
    ]


def _save_one_by_one(using, inserts, updates, fenced) -> bool:
    """`save_together` elsewhere than on PostgreSQL: a statement per write."""
    for insert_model, rows in inserts:
        insert_model.objects.using(using).bulk_create(rows)
    for obj, fields in updates[: len(updates) - (fenced is not None)]:
        obj.save(using=using, update_fields=fields)
    if fenced is None:
        return True
    obj, fields, where = fenced
    values = {f.attname: f.pre_save(obj, add=False) for f in _update_fields(obj, fields)}
    manager = type(obj)._default_manager.using(using)
    return manager.filter(pk=obj.pk, **where).update(**values) == 1


def save_together(
    *,
    inserts: Sequence[tuple[type[models.Model], Sequence[models.Model]]] = (),
    updates: Sequence[tuple[models.Model, Sequence[str] | None]] = (),
    fenced: tuple[models.Model, Sequence[str] | None, dict[str, Any]] | None = None,
) -> bool:
    """Insert each (model, rows) and update each (row, fields or None for all loaded fields),
    in the caller's transaction: in one statement on PostgreSQL. Inserted rows get no ids
    back (nothing here needs them). `fenced`, (row, fields, {column: value}), is updated
    last and only where the row still has those values: False if it had not (the caller
    rolls the transaction back, so nothing of the statement stays)."""
    inserts = [(model, list(rows)) for model, rows in inserts if rows]
    updates = list(updates)
    if fenced is not None:
        updates.append((fenced[0], fenced[1]))
    if not inserts and not updates:
        return True
    model = inserts[0][0] if inserts else type(updates[0][0])
    using = router.db_for_write(model)
    connection = connections[using]
    if connection.vendor != "postgresql":
        return _save_one_by_one(using, inserts, updates, fenced)
    statements: list[tuple[str, tuple]] = []
    for insert_model, rows in inserts:
        fields = [
            field
            for field in insert_model._meta.concrete_fields
            if not (field.primary_key and getattr(rows[0], field.attname) is None)
        ]
        query = InsertQuery(insert_model)
        query.insert_values(fields, rows)
        compiled = query.get_compiler(using=using).as_sql()
        if len(compiled) != 1:  # pragma: no cover - PostgreSQL inserts many rows at once
            raise RuntimeError("expected one INSERT for the rows")
        statements.append((compiled[0][0], tuple(compiled[0][1])))
    for obj, fields in updates:
        query = UpdateQuery(type(obj))
        query.add_update_fields(
            [(field, None, field.pre_save(obj, add=False)) for field in _update_fields(obj, fields)]
        )
        query.add_filter("pk", obj.pk)
        if fenced is not None and obj is fenced[0]:
            for column, value in fenced[2].items():
                query.add_filter(column, value)
        sql, params = query.get_compiler(using=using).as_sql()
        statements.append((sql, tuple(params)))
    *first, (last_sql, last_params) = statements
    if first:
        ctes = ", ".join(f"w{k} AS ({sql})" for k, (sql, _) in enumerate(first))
        last_sql = f"WITH {ctes} {last_sql}"
    params = tuple(param for _, part in first for param in part) + last_params
    with connection.cursor() as cursor:
        cursor.execute(last_sql, params)
        # The last statement is the fenced one, if any: the rows it updated.
        return fenced is None or cursor.rowcount == 1
