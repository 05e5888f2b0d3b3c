"""Malformed input answers 4xx with a message, never 500; under /api/ every error is JSON.

The first seven tests are the inputs that answered 500 in the attack probe of issue 9.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from judge_cast import token_for  # noqa: E402

from judge_site.submissions.models import Submission  # noqa: E402

pytestmark = pytest.mark.django_db


CODE = "def embed(ids, weight, pad_id):\n    return weight[ids]\n"


def post_raw(client: Client, token: str, body: str | bytes) -> object:
    return client.post(
        "/api/v1/submissions",
        data=body,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
    )


def post(client: Client, token: str, body: dict[str, object]) -> object:
    return post_raw(client, token, json.dumps(body))


def error_of(response: object) -> str:
    assert response["Content-Type"].startswith("application/json"), response.content[:200]
    return response.json()["error"]


def test_it_refuses_a_superscript_digit_as_a_problem(client, alice, problem, enqueued) -> None:
    response = post(client, token_for(alice), {"problem": "²", "code": CODE, "mode": "run"})
    assert response.status_code == 400
    assert "problem: no such problem" in error_of(response)
    assert not Submission.objects.exists()


@pytest.mark.parametrize("value", ["48\x00", "\x00", "\ud800", "a\udfffb"])
def test_it_refuses_a_nul_or_a_lone_surrogate_in_the_problem(
    client, alice, problem, enqueued, value
) -> None:
    body = json.dumps({"problem": value, "code": CODE, "mode": "run"})  # \u escapes in JSON
    response = post_raw(client, token_for(alice), body)
    assert response.status_code == 400
    assert "problem: no such problem" in error_of(response)


def test_it_refuses_a_4301_digit_problem_number(client, alice, problem, enqueued) -> None:
    response = post(client, token_for(alice), {"problem": "9" * 4301, "code": CODE})
    assert response.status_code == 400
    message = error_of(response)
    assert "problem: no such problem" in message and len(message) < 200


def test_it_refuses_a_5000_digit_integer_in_the_body(client, alice, problem, enqueued) -> None:
    body = '{"problem": 48, "code": "x", "n": ' + "7" * 5000 + "}"
    response = post_raw(client, token_for(alice), body)
    assert response.status_code == 400
    assert error_of(response) == "body: an integer with too many digits"


def test_it_refuses_a_deeply_nested_body(client, alice, problem, enqueued) -> None:
    response = post_raw(client, token_for(alice), "[" * 100_000)
    assert response.status_code == 400
    assert error_of(response).startswith("body: not valid JSON")


def test_it_refuses_a_superscript_digit_in_the_history_filter(client, alice) -> None:
    client.force_login(alice)
    response = client.get("/submissions/?problem=%C2%B2")
    assert response.status_code == 400
    assert "not a problem number" in response.content.decode()


def test_it_refuses_a_problem_number_beyond_any_stored(client, alice, problem, enqueued) -> None:
    response = post(client, token_for(alice), {"problem": 2**63, "code": CODE})
    assert response.status_code == 400
    client.force_login(alice)
    assert client.get("/submissions/?problem=99999999999").status_code == 400
    assert client.get("/problems/99999999999999999999/").status_code == 404


def test_it_refuses_a_nul_in_a_query_string(client, alice) -> None:
    client.force_login(alice)
    response = client.get("/?tag=a%00b")
    assert response.status_code == 400
    assert b"NUL" in response.content
    api = client.get("/api/v1/problems?x=%00")
    assert api.status_code == 400 and "NUL" in error_of(api)


def test_it_refuses_a_malformed_token_without_a_query(client, problem) -> None:
    for header in ["Token \x00abc", "Token " + "a" * 500, "Token é", "Bearer x"]:
        response = client.get("/api/v1/problems", HTTP_AUTHORIZATION=header)
        assert response.status_code == 401
        assert "invalid token" in error_of(response)


def test_it_refuses_a_mode_that_is_not_text(client, alice, problem, enqueued) -> None:
    response = post(client, token_for(alice), {"problem": 48, "code": CODE, "mode": ["run"]})
    assert response.status_code == 400
    assert error_of(response).startswith("mode:")


# --- every error under /api/ is JSON -----------------------------------------------------------


def test_api_errors_are_json_401(client, problem) -> None:
    response = client.post("/api/v1/submissions", data="{}", content_type="application/json")
    assert response.status_code == 401
    assert "authentication required" in error_of(response)


def test_api_errors_are_json_403(client, alice, problem) -> None:
    csrf_client = Client(enforce_csrf_checks=True)
    csrf_client.force_login(alice)
    response = csrf_client.post("/api/v1/submissions", data="{}", content_type="application/json")
    assert response.status_code == 403
    assert "CSRF" in error_of(response)


def test_api_errors_are_json_404(client, alice) -> None:
    response = client.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert "no such API endpoint" in error_of(response)
    response = client.get(
        "/api/v1/submissions/999999", HTTP_AUTHORIZATION=f"Token {token_for(alice)}"
    )
    assert response.status_code == 404 and error_of(response) == "no such submission"


def test_api_errors_are_json_405(client) -> None:
    response = client.delete("/api/v1/problems")
    assert response.status_code == 405
    assert response["Allow"] == "GET"
    assert error_of(response) == "method DELETE not allowed here; use GET"


def test_api_errors_are_json_429(client, alice, problem, enqueued, settings) -> None:
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 1
    token = token_for(alice)
    assert post(client, token, {"problem": 48, "code": CODE, "mode": "run"}).status_code == 201
    response = post(client, token, {"problem": 48, "code": CODE, "mode": "run"})
    assert response.status_code == 429
    assert "too many runs" in error_of(response)


def test_api_answers_are_never_cached(client, alice, problem) -> None:
    for response in [
        client.get("/api/v1/problems", HTTP_AUTHORIZATION=f"Token {token_for(alice)}"),
        client.get("/api/v1/nothing"),
    ]:
        assert "no-store" in response["Cache-Control"] and "no-cache" in response["Cache-Control"]


def test_an_unexpected_error_under_the_api_is_json(client, alice, problem, monkeypatch) -> None:
    from judge_site.submissions import selectors

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(selectors, "submission_get_for", broken)
    client.raise_request_exception = False
    response = client.get("/api/v1/submissions/1", HTTP_AUTHORIZATION=f"Token {token_for(alice)}")
    assert response.status_code == 500
    assert error_of(response).startswith("internal error")
    assert "boom" not in response.content.decode()
