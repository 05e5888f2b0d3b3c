"""API tokens stored hashed (issue 41): the table holds a digest, never the token; the token
page shows a new token once, revokes it, and shows when it was last used."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from judge_cast import token_for

from judge_site.accounts.models import ApiToken, token_digest

pytestmark = pytest.mark.django_db

PROBLEMS = "/api/v1/problems"


def status(client, key: str) -> int:
    return client.get(PROBLEMS, HTTP_AUTHORIZATION=f"Token {key}").status_code


def test_the_table_keeps_a_digest_that_does_not_authenticate(client, alice):
    key = token_for(alice)
    row = ApiToken.objects.values("digest", "prefix").get(user=alice)
    assert row["digest"] == token_digest(key) != key and row["prefix"] == key[:8]
    assert status(client, key) == 200
    assert status(client, row["digest"]) == 401  # a leaked column is useless
    assert client.get(PROBLEMS, HTTP_AUTHORIZATION=f"Bearer {key}").status_code == 200


def test_last_used_is_written_at_most_once_a_minute(client, alice):
    key = token_for(alice)
    assert ApiToken.objects.get(user=alice).last_used_at is None
    status(client, key)
    first = ApiToken.objects.get(user=alice).last_used_at
    assert first is not None
    with CaptureQueriesContext(connection) as seen:
        status(client, key)
    assert not [q for q in seen.captured_queries if q["sql"].startswith("UPDATE")]
    ApiToken.objects.filter(user=alice).update(last_used_at=first - timedelta(minutes=2))
    with CaptureQueriesContext(connection) as seen:
        status(client, key)
    assert len([q for q in seen.captured_queries if q["sql"].startswith("UPDATE")]) == 1
    assert ApiToken.objects.get(user=alice).last_used_at > first - timedelta(minutes=1)


def test_the_token_page_shows_a_token_once_and_revokes_it(client, alice):
    client.force_login(alice)
    page = client.post("/accounts/token/", {"action": "create"}).content.decode()
    key = re.search(r'id="api-token">([0-9a-f]+)<', page)[1]
    assert "shown only once" in page and status(client, key) == 200
    again = client.get("/accounts/token/").content.decode()
    assert key not in again and f"{key[:8]}…" in again and "Last used" in again
    assert timezone.now().strftime("%Y-%m-%d") in again  # the use just made
    client.post("/accounts/token/", {"action": "revoke"})
    assert not ApiToken.objects.filter(user=alice).exists()
    assert status(client, key) == 401
    assert client.get(PROBLEMS, HTTP_AUTHORIZATION=f"Token {key}").json()["error"].startswith(
        "invalid token"
    )


def test_replacing_a_token_stops_the_old_one(client, alice):
    old = token_for(alice)
    client.force_login(alice)
    page = client.post("/accounts/token/", {"action": "create"}).content.decode()
    new = re.search(r'id="api-token">([0-9a-f]+)<', page)[1]
    assert new != old and status(client, old) == 401 and status(client, new) == 200


@pytest.mark.django_db(transaction=True)
def test_the_migration_hashes_existing_keys_in_place(alice):
    from django.db.migrations.executor import MigrationExecutor

    before = [("accounts", "0003_email_profile_mail_requests_rejudge_notices")]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes("accounts")
    executor.migrate(before)
    old_apps = executor.loader.project_state(before).apps
    old_apps.get_model("accounts", "ApiToken").objects.create(user_id=alice.pk, key="ab" * 20)
    executor = MigrationExecutor(connection)
    try:
        executor.migrate(latest)
    finally:
        MigrationExecutor(connection).migrate(executor.loader.graph.leaf_nodes())
    token = ApiToken.objects.get(user=alice)
    assert token.digest == token_digest("ab" * 20) and token.prefix == "abababab"
