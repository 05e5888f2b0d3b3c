"""An index that Postgres and the development database (SQLite) both create.

The production database is Postgres; the README's quick start without Docker runs on SQLite,
whose CREATE INDEX refuses ``NULLS LAST`` ("unsupported use of NULLS LAST"). SQLite sorts NULL
below every value, so ``DESC`` already puts NULLs last there: on SQLite the index is created
with the same columns and order, without the clause. The model's state is the same on both.
"""

from __future__ import annotations

from typing import Any

from django.db import models
from django.db.models.expressions import OrderBy


class NullsLastIndex(models.Index):
    """``models.Index`` whose ``desc(nulls_last=True)`` keys lose the clause on SQLite."""

    def create_sql(self, model: Any, schema_editor: Any, using: str = "", **kwargs: Any) -> Any:
        if schema_editor.connection.vendor != "sqlite":
            return super().create_sql(model, schema_editor, using=using, **kwargs)
        plain = [
            OrderBy(e.expression, descending=e.descending) if isinstance(e, OrderBy) else e
            for e in self.expressions
        ]
        twin = models.Index(*plain, name=self.name, condition=self.condition)
        return twin.create_sql(model, schema_editor, using=using, **kwargs)
