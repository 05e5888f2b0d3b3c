"""Reachability of the services the site depends on, with short timeouts.

Used by /healthz, by `manage.py wait_for_services` (the compose entrypoint) and by the gunicorn
start-up hook. Each check returns "ok" or a one-line reason; nothing here raises.
"""

from __future__ import annotations

import redis
from django.conf import settings
from django.db import connections

from judge_site.env import redact_url

OK = "ok"


def _one_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    first = text[0].strip() if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def database_status(alias: str = "default") -> str:
    """ "ok" when a query on the database answers, else why not (one line)."""
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any driver error means "down" for a health check
        connections[alias].close()
        return _one_line(exc)
    return OK


def broker_status(timeout_s: float = 2.0) -> str:
    """ "ok" when Redis (REDIS_URL, the Celery broker) answers a PING, else why not."""
    client = redis.Redis.from_url(
        settings.REDIS_URL, socket_connect_timeout=timeout_s, socket_timeout=timeout_s
    )
    try:
        client.ping()
    except Exception as exc:  # connection refused, DNS, auth, timeout: all "down"
        return _one_line(exc)
    finally:
        client.close()
    return OK


def service_problems() -> list[str]:
    """One line per unreachable service, each naming the variable to fix; empty when all ok."""
    problems = []
    db = database_status()
    if db != OK:
        url = redact_url(_database_url_for_message())
        problems.append(f"DATABASE_URL: cannot use the database at {url}: {db}")
    broker = broker_status()
    if broker != OK:
        problems.append(
            f"REDIS_URL: cannot reach Redis at {redact_url(settings.REDIS_URL)}: {broker}"
        )
    return problems


def _database_url_for_message() -> str:
    db = settings.DATABASES["default"]
    engine = str(db.get("ENGINE", "")).rsplit(".", 1)[-1]
    if engine == "sqlite3":
        return f"sqlite:///{db.get('NAME')}"
    user = db.get("USER") or ""
    host = db.get("HOST") or ""
    port = db.get("PORT") or ""
    return f"{engine}://{user}@{host}:{port}/{db.get('NAME')}"
