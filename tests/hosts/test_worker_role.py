"""The worker hosts' Postgres role (judge_site/core/worker_role.py): what a worker does (the
claim's lock on its user's row, heartbeat, verdict, aggregates) it can do; reading a password
hash, a token, a session, or changing an account or a problem, it cannot."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import psycopg
import pytest
from django.db import connection

from judge_site.core.worker_role import ROLE, readable_tables, role_apply

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def worker_db() -> Iterator[psycopg.Connection]:
    """A connection to the test database as a fresh worker role (trust auth on the test
    Postgres: the password is the compose stack's business, tested there)."""
    role = f"judge_worker_t{uuid.uuid4().hex[:8]}"
    role_apply("not-checked-here", role=role)
    params = connection.get_connection_params()
    params = {k: v for k, v in params.items() if k in {"host", "port", "dbname"}}
    conn = psycopg.connect(**params, user=role, password="not-checked-here", autocommit=True)
    try:
        yield conn
    finally:
        conn.close()
        with connection.cursor() as cursor:
            cursor.execute(f'DROP OWNED BY "{role}"')
            cursor.execute(f'DROP ROLE "{role}"')


def refused(conn: psycopg.Connection, sql: str) -> bool:
    try:
        conn.execute(sql)
    except psycopg.errors.InsufficientPrivilege:
        return True
    return False


def test_it_does_what_a_worker_does(worker_db: psycopg.Connection) -> None:
    with worker_db.transaction():
        worker_db.execute("SELECT id FROM auth_user WHERE id = 1 FOR UPDATE")
        worker_db.execute("SELECT id, username, email FROM auth_user")
        worker_db.execute("UPDATE submissions_submission SET heartbeat_at = now() WHERE id = -1")
        worker_db.execute("SELECT * FROM catalog_problem")
        worker_db.execute("SELECT * FROM staff_problemversion")
        worker_db.execute("DELETE FROM submissions_bestresult WHERE id = -1")
        worker_db.execute("UPDATE submissions_userstats SET solved = solved WHERE user_id = -1")


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT password FROM auth_user",
        "SELECT * FROM auth_user",
        "SELECT * FROM accounts_apitoken",
        "SELECT * FROM django_session",
        "SELECT * FROM axes_accessattempt",
        "UPDATE auth_user SET is_superuser = true WHERE id = -1",
        "UPDATE catalog_problem SET published = false WHERE id = -1",
        "INSERT INTO auth_group (name) VALUES ('pwned')",
        "DELETE FROM staff_problemversion WHERE id = -1",
        "CREATE TABLE pwned (id int)",
    ],
)
def test_it_refuses_what_a_worker_never_needs(worker_db: psycopg.Connection, sql: str) -> None:
    assert refused(worker_db, sql), sql


def test_an_empty_password_takes_the_login_away() -> None:
    role = f"judge_worker_t{uuid.uuid4().hex[:8]}"
    try:
        assert role_apply("pw", role=role).login
        assert not role_apply("", role=role).login
        with connection.cursor() as cursor:
            cursor.execute("SELECT rolcanlogin FROM pg_roles WHERE rolname = %s", [role])
            assert cursor.fetchone() == (False,)
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f'DROP OWNED BY "{role}"')
            cursor.execute(f'DROP ROLE "{role}"')


def test_credentials_and_people_records_are_not_readable() -> None:
    tables = ["auth_user", "accounts_apitoken", "axes_accesslog", "submissions_submission"]
    assert readable_tables(tables) == ["submissions_submission"]
    assert ROLE == "judge_worker"
