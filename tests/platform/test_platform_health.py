"""/healthz: 200 with the real Postgres and Redis, 503 naming the dependency that is down."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, override_settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_it_is_green_with_postgres_and_redis(client: Client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "broker": "ok"}
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]


@pytest.mark.django_db
def test_it_reports_a_down_broker(client: Client) -> None:
    with override_settings(REDIS_URL="redis://127.0.0.1:1/0"):
        response = client.get("/healthz")
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "fail"
    assert body["database"] == "ok"
    assert body["broker"] != "ok" and "Connection" in body["broker"]


def test_it_reports_a_down_database() -> None:
    # A separate process: this one's database connection is owned by pytest-django.
    code = (
        "import django, json; django.setup();"
        "from django.test import Client;"
        "r = Client().get('/healthz', HTTP_HOST='localhost');"
        "print(r.status_code, json.dumps(r.json()))"
    )
    env = dict(os.environ, DATABASE_URL="postgres://postgres@127.0.0.1:1/nothing")
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    status, body = proc.stdout.strip().splitlines()[-1].split(" ", 1)
    assert status == "503"
    parsed = json.loads(body)
    assert parsed["status"] == "fail"
    assert parsed["broker"] == "ok"
    assert parsed["database"] != "ok" and "OperationalError" in parsed["database"]


def test_it_refuses_post(client: Client) -> None:
    assert client.post("/healthz").status_code == 405


@pytest.mark.django_db
def test_the_public_sees_only_ok_or_fail(client: Client) -> None:
    response = client.get("/healthz", REMOTE_ADDR="203.0.113.5")
    assert response.status_code == 200 and response.json() == {"status": "ok"}
    with override_settings(REDIS_URL="redis://127.0.0.1:1/0"):
        down = client.get("/healthz", REMOTE_ADDR="203.0.113.5")
    assert down.status_code == 503 and down.json() == {"status": "fail"}


@pytest.mark.django_db
def test_a_proxied_request_from_loopback_is_public(client: Client) -> None:
    # A reverse proxy on this host connects from 127.0.0.1 on behalf of anyone.
    response = client.get("/healthz", REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.5")
    assert response.json() == {"status": "ok"}
    response = client.get("/healthz", REMOTE_ADDR="::1")
    assert set(response.json()) == {"status", "database", "broker"}
