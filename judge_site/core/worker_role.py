"""The Postgres role of worker hosts: what a worker on another machine may read and write.

A worker claims a submission (a conditional UPDATE under a lock on its user's row), beats its
heartbeat, writes progress and the verdict, and keeps the leaderboards' aggregates; a rejudge
worker also marks its rejudge's items. It reads the catalog (problems, versions) and
submissions. It never needs what would let it log in as someone: password hashes
(auth_user.password), API tokens, sessions, the log-in throttle's records, sign-up records,
or the audit and admin logs. So the role gets:

- SELECT on every table of the schema but those (EXCLUDED_TABLES), and on auth_user every
  column but `password`; the user-row lock of the claim (SELECT ... FOR UPDATE) also needs
  UPDATE on one column of auth_user: `last_login`, the harmless one;
- INSERT, UPDATE, DELETE on the tables a judging writes (WRITTEN_TABLES) and nothing else;
- the sequences of those tables (new aggregate rows).

A worker host's compromise therefore exposes submissions' code and results, the catalog
(hidden tests of uploaded packages included: it judges them), user names and e-mails, and lets
it falsify verdicts and leaderboards; it cannot read a credential or change an account, a
problem or a permission. `role_apply` is run by the web container at every start after
`migrate` (docker/entrypoint.sh), so a table a later migration adds is granted or excluded then.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import connection

ROLE = "judge_worker"

# Tables a worker never reads: credentials, and records of people rather than of judgings.
EXCLUDED_TABLES = frozenset({
    "auth_user",  # only its columns but `password` (below)
    "accounts_apitoken",
    "accounts_registration",
    "django_session",
    "django_admin_log",
    "staff_auditentry",
})  # fmt: skip
EXCLUDED_PREFIXES = ("axes_",)  # the log-in throttle's attempts and lockouts
# Tables a judging writes (services.submission_judge, stats, the rejudge queue's items).
WRITTEN_TABLES = (
    "submissions_submission",
    "submissions_bestresult",
    "submissions_problemstats",
    "submissions_userstats",
    "staff_rejudge",
    "staff_rejudgeitem",
)
USER_HIDDEN_COLUMNS = frozenset({"password"})
# FOR UPDATE needs UPDATE on one column of the locked table: the least consequential one.
USER_LOCK_COLUMN = "last_login"


@dataclass(frozen=True)
class RoleReport:
    role: str
    login: bool
    readable_tables: int
    written_tables: int


def _quote(name: str) -> str:
    return connection.ops.quote_name(name)


def _tables() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename"
        )
        return [row[0] for row in cursor.fetchall()]


def readable_tables(tables: list[str]) -> list[str]:
    """The tables the role may read whole."""
    return [t for t in tables if t not in EXCLUDED_TABLES and not t.startswith(EXCLUDED_PREFIXES)]


def _user_columns() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT column_name FROM information_schema.columns "
            "WHERE table_schema = 'public' AND table_name = 'auth_user' ORDER BY ordinal_position"
        )
        return [row[0] for row in cursor.fetchall() if row[0] not in USER_HIDDEN_COLUMNS]


def role_apply(password: str, role: str = ROLE) -> RoleReport:
    """Create or update the worker role: LOGIN with this password and exactly the grants above
    (earlier grants revoked first, so a table that became excluded is taken back). An empty
    password keeps the role but takes its LOGIN away (the host no longer takes workers)."""
    if connection.vendor != "postgresql":
        raise RuntimeError("the worker role is a Postgres role: DATABASE_URL is not Postgres")
    q = _quote(role)
    tables = _tables()
    readable = readable_tables(tables)
    written = [t for t in WRITTEN_TABLES if t in tables]
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
        if not cursor.fetchone():
            cursor.execute(f"CREATE ROLE {q} NOLOGIN")
        if password:
            # Client-side interpolation (psycopg quotes the literal): ALTER ROLE takes no bind
            # parameters. Postgres stores the SCRAM hash (password_encryption), not the text.
            cursor.execute(f"ALTER ROLE {q} LOGIN PASSWORD %s", [password])
        else:
            cursor.execute(f"ALTER ROLE {q} NOLOGIN")
        database = _quote(connection.settings_dict["NAME"])
        cursor.execute(f"GRANT CONNECT ON DATABASE {database} TO {q}")
        cursor.execute(f"GRANT USAGE ON SCHEMA public TO {q}")
        # (a table's REVOKE takes its column grants with it: auth_user's too)
        cursor.execute(f"REVOKE ALL ON ALL TABLES IN SCHEMA public FROM {q}")
        cursor.execute(f"REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM {q}")
        if readable:
            cursor.execute(f"GRANT SELECT ON {', '.join(map(_quote, readable))} TO {q}")
        if "auth_user" in tables:
            columns = ", ".join(map(_quote, _user_columns()))
            cursor.execute(f"GRANT SELECT ({columns}) ON auth_user TO {q}")
            cursor.execute(f"GRANT UPDATE ({_quote(USER_LOCK_COLUMN)}) ON auth_user TO {q}")
        if written:
            cursor.execute(
                f"GRANT INSERT, UPDATE, DELETE ON {', '.join(map(_quote, written))} TO {q}"
            )
            cursor.execute(
                "SELECT pg_get_serial_sequence(t, c.column_name) FROM unnest(%s::text[]) AS t "
                "JOIN information_schema.columns c ON c.table_name = t "
                "AND c.table_schema = 'public' "
                "WHERE pg_get_serial_sequence(t, c.column_name) IS NOT NULL",
                [written],
            )
            for (sequence,) in cursor.fetchall():
                cursor.execute(f"GRANT USAGE, SELECT ON SEQUENCE {sequence} TO {q}")
    return RoleReport(role, bool(password), len(readable), len(written))
