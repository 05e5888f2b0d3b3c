"""Private answers are never cached; every 429 says when to come back."""

from __future__ import annotations

from typing import Any

import pytest

from judge_site.accounts.models import ApiToken


def _directives(response: Any) -> set[str]:
    return {p.strip() for p in response.get("Cache-Control", "").split(",") if p.strip()}


@pytest.mark.django_db
def test_pages_of_a_logged_in_user_are_private_and_not_stored(
    client: Any, alice: Any, charlie: Any, problem: Any
) -> None:
    assert "no-store" not in _directives(client.get("/problems/48/"))  # anonymous: cacheable
    client.force_login(alice)
    for path in ["/", "/problems/48/", "/submissions/", "/accounts/token/", "/leaderboard/"]:
        assert {"private", "no-store"} <= _directives(client.get(path)), path
    client.force_login(charlie)
    for path in ["/staff/", "/staff/problems/48/", "/admin/"]:
        assert {"private", "no-store"} <= _directives(client.get(path)), path


@pytest.mark.django_db
def test_every_429_carries_a_retry_after(client: Any, alice: Any, problem: Any,
                                         enqueued: Any, settings: Any) -> None:
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 0
    key = ApiToken.objects.create(user=alice, key=ApiToken.generate_key()).key
    response = client.post("/api/v1/submissions", {"problem": 48, "code": "x = 1"},
                           content_type="application/json", HTTP_AUTHORIZATION=f"Token {key}")
    assert response.status_code == 429 and "error" in response.json()
    assert response["Retry-After"] == "60"
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 10
    settings.JUDGE_MAX_QUEUED_PER_USER = 1
    client.force_login(alice)
    client.post("/problems/48/submit", {"code": "x = 1", "mode": "run"})
    response = client.post("/problems/48/submit", {"code": "x = 1", "mode": "run"},
                           HTTP_ACCEPT="application/json")
    assert response.status_code == 429 and response.has_header("Retry-After")
