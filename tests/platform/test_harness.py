"""The suite's plugin (tests/conftest.py) keeps what the tests rely on: a transactional test's
flush (DELETE, not TRUNCATE) leaves every table empty, rows that point at others included."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.management.color import no_style
from django.db import connection

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_flush_between_transactional_tests_empties_every_table(alice: Any) -> None:
    from judge_cast import make_problem, token_for

    from judge_site.submissions.models import Submission

    token_for(alice)  # a row pointing at the user
    Submission.objects.create(user=alice, problem=make_problem(), code="x", mode="run")
    tables = connection.introspection.django_table_names(only_existing=True, include_views=False)
    statements = connection.ops.sql_flush(no_style(), tables)
    assert all(s.startswith("DELETE FROM") for s in statements) and len(statements) == len(tables)
    connection.ops.execute_sql_flush(statements)
    with connection.cursor() as cursor:
        for table in tables:
            cursor.execute(f"SELECT count(*) FROM {connection.ops.quote_name(table)}")
            assert cursor.fetchone() == (0,), table
