"""Querysets compiled to SQL once per process, run again with new values (issue 12).

Django builds and compiles a queryset's SQL anew every time it is evaluated: for the joins a
table change reads (its seats with their players, the running hand with its players' rows)
that is most of the change's CPU, more than PostgreSQL's answer takes to arrive. The few reads
every action makes are declared once as a `PreparedQuery`: the queryset is built with marker
values for its parameters, compiled on first use, and each run swaps the markers for the
call's values and sends the same SQL. Rows become what the queryset would give (model
instances with their `select_related` objects and annotations, or `values_list` tuples),
through Django's own compiler (its converters and related populators), so a prepared read
equals the queryset's; tests compare the two for every prepared query.

Parameters are whole numbers (ids), strings (a kind, a status) or lists of whole numbers; a
list's length is part of the SQL, so each length compiles once (an empty list runs the plain
queryset, which Django answers without a query). `select_for_update` querysets work as any
other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any

from django.db import connections
from django.db.models import QuerySet
from django.db.models.query import ModelIterable, ValuesListIterable, get_related_populators

# Marker values no id or text takes (negative and far from any real number; a string with a
# NUL, which PostgreSQL never stores): each parameter gets its own, so that the compiled
# parameters say which call value goes where.
_MARKER_BASE = -7_300_000_000_000_000


def _marker(index: int, kind: str) -> int | str:
    return f"\x00prepared parameter {index}" if kind == "str" else _MARKER_BASE - index


def _kind_of(value: int | str | Sequence[int]) -> str | int:
    """What shapes the SQL: "int", "str", or a list's length."""
    if isinstance(value, str):
        return "str"
    if isinstance(value, int):
        return "int"
    return len(value)


class _Compiled:
    """One compiled form: the SQL, where each call value goes, and the compiler that knows
    how to turn rows into results."""

    def __init__(self, queryset: QuerySet, slots: dict[int | str, tuple[str, int | None]]) -> None:
        self.db = queryset.db
        self.compiler = queryset.query.get_compiler(using=self.db)
        self.sql, params = self.compiler.as_sql()
        self.params = list(params)
        self.places: list[tuple[int, str, int | None]] = []
        for index, value in enumerate(self.params):
            if isinstance(value, int | str) and value in slots:
                self.places.append((index, *slots[value]))
        missing = {name for name, _ in slots.values()} - {name for _, name, _ in self.places}
        if missing:
            raise ValueError(f"the compiled query lost the parameters {sorted(missing)}")
        self.iterable = queryset._iterable_class
        if self.iterable not in (ModelIterable, ValuesListIterable):
            raise ValueError("only model instances and values_list tuples can be prepared")

    def run(self, values: dict[str, Any]) -> list[Any]:
        params = list(self.params)
        for index, name, position in self.places:
            value = values[name]
            params[index] = value if position is None else value[position]
        with connections[self.db].cursor() as cursor:
            cursor.execute(self.sql, params)
            rows = cursor.fetchall()
        converted = self.compiler.results_iter([rows])
        if self.iterable is ValuesListIterable:
            return [tuple(row) for row in converted]
        return self._instances(converted)

    def _instances(self, rows) -> list[Any]:
        """What `ModelIterable` does with the rows of a compiled query."""
        compiler = self.compiler
        select, klass_info = compiler.select, compiler.klass_info
        model = klass_info["model"]
        first, last = klass_info["select_fields"][0], klass_info["select_fields"][-1] + 1
        init_list = [column[0].target.attname for column in select[first:last]]
        populators = get_related_populators(klass_info, select, self.db)
        annotations = compiler.annotation_col_map
        instances = []
        for row in rows:
            obj = model.from_db(self.db, init_list, row[first:last])
            for populator in populators:
                populator.populate(row, obj)
            for name, position in (annotations or {}).items():
                setattr(obj, name, row[position])
            instances.append(obj)
        return instances


class PreparedQuery:
    """`build(**markers)` returns the queryset; calling the prepared query with the real
    values (keyword arguments: ints, strings or lists of ints) returns its rows as a list."""

    def __init__(self, build: Callable[..., QuerySet]) -> None:
        self.build = build
        self._compiled: dict[tuple, _Compiled] = {}
        self._lock = threading.Lock()

    def __call__(self, **values: int | str | Sequence[int]) -> list[Any]:
        if any(isinstance(value, list | tuple) and not value for value in values.values()):
            return list(self.build(**values))  # an empty IN list compiles to nothing to run
        shape = tuple(sorted((name, _kind_of(value)) for name, value in values.items()))
        compiled = self._compiled.get(shape)
        if compiled is None:
            compiled = self._compile(shape)
        return compiled.run(values)

    def queryset(self, **values: int | str | Sequence[int]) -> QuerySet:
        """The same read as a plain queryset (what tests compare the prepared rows with)."""
        return self.build(**values)

    def _compile(self, shape: tuple) -> _Compiled:
        slots: dict[int | str, tuple[str, int | None]] = {}
        markers: dict[str, int | str | list[int]] = {}
        for name, kind in shape:
            if isinstance(kind, str):
                marker = _marker(len(slots), kind)
                slots[marker] = (name, None)
                markers[name] = marker
            else:
                markers[name] = []
                for position in range(kind):
                    marker = _marker(len(slots), "int")
                    slots[marker] = (name, position)
                    markers[name].append(marker)
        compiled = _Compiled(self.build(**markers), slots)
        with self._lock:
            self._compiled[shape] = compiled
        return compiled
