"""Querysets compiled once per thread and run again with new parameter values.

Why: on the busiest pages Django spends more CPU building and compiling a query than running
it. Measured in process (issue 26, 1,000 submissions): a one-row ``values_list(...).first()``
costs 0.37 ms, the same SQL through a cursor 0.08 ms; the problem page made nine such queries
per view. A ``PreparedQuery`` builds its queryset once per thread with marker values standing
for its parameters, keeps the SQL, and on each call binds the real values and converts the rows
with the ORM's own converters (JSON, datetimes, booleans: the same Python values as the
queryset's, on any backend).

Only ``values_list`` querysets (tuples, or flat values) with int or str parameters. Anything
else a queryset varies by (its shape: staff or not, a filter present or not, an offset) is
passed positionally and compiled once per distinct shape (a few per thread, kept up to
``SHAPES_KEPT``).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from django.core.exceptions import EmptyResultSet
from django.db import connections
from django.db.models import QuerySet
from django.db.models.query import FlatValuesListIterable
from django.db.models.sql.compiler import SQLCompiler

# Markers: values that stand for the parameters while the queryset is built. An int marker is
# within every integer column's range (Django turns a lookup beyond it into an empty result,
# with no SQL); only a constant of the queryset equal to a marker could be taken for it.
_INT_BASE = 2_147_000_000
# A default argument meaning "the caller did not read it": a reader given what a page's
# compiled query already read (None included: no such row) does not read it again.
UNREAD: Any = object()
SHAPES_KEPT = 128
_Kinds = dict[str, type]


def _marker(kind: type, index: int) -> int | str:
    if kind is int:
        return _INT_BASE + index
    if kind is str:
        return f"\x1fprepared-{index}\x1f"
    raise TypeError(f"a prepared parameter is an int or a str, not {kind.__name__}")


def _is_marker(value: Any, marker: int | str) -> bool:
    # The backend may wrap a parameter (psycopg's Int4 is an int); bound again as a plain int,
    # psycopg sizes it, which compares with any integer column.
    if isinstance(marker, int):
        return isinstance(value, int) and not isinstance(value, bool) and int(value) == marker
    return isinstance(value, str) and str(value) == marker


class _Compiled:
    def __init__(self, compiler: SQLCompiler, sql: str, slots: list[tuple[int, str]],
                 params: list[Any], flat: bool) -> None:
        self.compiler = compiler
        self.sql = sql
        self.slots = slots  # (position in params, parameter name)
        self.params = params
        self.flat = flat


class PreparedQuery:
    """``PreparedQuery(build, user_id=int)``: ``build(*shape, user_id=...)`` returns a
    values_list queryset; ``rows(*shape, user_id=7)`` returns what
    ``list(build(*shape, user_id=7))`` would, building and compiling it only the first time
    in a thread for that shape. Each named parameter must reach the SQL as a parameter (a
    filter's value); the shape (hashable values) may change the SQL itself."""

    def __init__(self, build: Callable[..., QuerySet[Any]], **kinds: type) -> None:
        self.build = build
        self.kinds: _Kinds = kinds
        self._local = threading.local()

    def _compiled(self, using: str, shape: tuple[Any, ...]) -> _Compiled:
        cache: dict[tuple[Any, ...], _Compiled] = self._local.__dict__.setdefault("kept", {})
        found = cache.get((using, *shape))
        if found is not None:
            return found
        markers = {name: _marker(kind, i) for i, (name, kind) in enumerate(self.kinds.items())}
        qs = self.build(*shape, **markers)
        compiler = qs.query.get_compiler(using=using)
        try:
            sql, params = compiler.as_sql()
        except EmptyResultSet:  # it can match nothing (an empty slice): the ORM sends no SQL
            sql, params = "", ()
        slots = [
            (pos, name)
            for pos, value in enumerate(params)
            for name, marker in markers.items()
            if _is_marker(value, marker)
        ]
        missing = set(markers) - {name for _, name in slots}
        if missing and sql:
            raise ValueError(f"parameters not bound in the SQL: {sorted(missing)}")
        flat = qs._iterable_class is FlatValuesListIterable
        found = _Compiled(compiler, sql, slots, list(params), flat)
        if len(cache) >= SHAPES_KEPT:
            cache.clear()
        cache[(using, *shape)] = found
        return found

    def rows(self, *shape: Any, using: str = "default", **values: int | str) -> list[Any]:
        if set(values) != set(self.kinds):
            raise TypeError(f"expected parameters {sorted(self.kinds)}, got {sorted(values)}")
        for name, value in values.items():
            if not isinstance(value, self.kinds[name]) or isinstance(value, bool):
                raise TypeError(f"{name}: expected {self.kinds[name].__name__}")
        compiled = self._compiled(using, shape)
        if not compiled.sql:
            return []
        params = list(compiled.params)
        for pos, name in compiled.slots:
            params[pos] = values[name]
        with connections[using].cursor() as cursor:
            cursor.execute(compiled.sql, params)
            fetched = cursor.fetchall()
        rows = compiled.compiler.results_iter(results=[fetched], tuple_expected=True)
        return [row[0] for row in rows] if compiled.flat else list(rows)

    def first(self, *shape: Any, using: str = "default", **values: int | str) -> Any:
        """The first row (the queryset should be sliced ``[:1]``), or None."""
        found = self.rows(*shape, using=using, **values)
        return found[0] if found else None
