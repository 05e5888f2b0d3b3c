"""A worker host's settings from a join line of version 2 (judge_site/settings.py): every client
of the main host's Redis and Postgres checks the server's certificate against the line's CA.
kombu alone would take a rediss:// URL without checking anything; the settings say otherwise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CA = "/tmp/tensor-judge-ca.pem"

PROBE = """
import json, ssl
import django
django.setup()
from django.conf import settings
from judge_site.celery import app
broker = app.connection_for_write().ssl  # kombu's channel takes these (and SSLConnection)
backend = app.backend.connparams
cache = settings.CACHES["default"]["LOCATION"]
print(json.dumps({
    "broker": ["SSLConnection" if broker else "", int(broker["ssl_cert_reqs"]),
               broker["ssl_ca_certs"]],
    "backend": [backend["connection_class"].__name__, int(backend["ssl_cert_reqs"]),
                backend["ssl_ca_certs"]],
    "required": int(ssl.CERT_REQUIRED),
    "db": settings.DATABASES["default"]["OPTIONS"],
    "cache": cache,
}))
"""


def test_the_broker_the_results_the_cache_and_the_database_check_the_ca() -> None:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "judge_site.settings",
        "DEBUG": "true",
        "SECRET_KEY": "x" * 50,
        "REDIS_URL": f"rediss://worker:pw@10.0.0.5:6379/0?ssl_cert_reqs=required&ssl_ca_certs={CA}",
        "DATABASE_URL": "postgres://judge_worker:pw@10.0.0.5:5432/judge"
        f"?sslmode=verify-full&sslrootcert={CA}",
    }
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True,
        timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["broker"] == ["SSLConnection", got["required"], CA], got
    assert got["backend"] == ["SSLConnection", got["required"], CA], got
    assert got["db"]["sslmode"] == "verify-full" and got["db"]["sslrootcert"] == CA, got
    assert got["cache"] == env["REDIS_URL"]  # redis-py reads the query: required, this CA
