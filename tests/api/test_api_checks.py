"""Request bodies checked against the OpenAPI document in one place (a 400 naming the field),
and the per-user limit on write calls (429 with Retry-After), issue 41."""

from __future__ import annotations

import json

import pytest
from judge_cast import token_for

from judge_site.core.api import body_error

pytestmark = pytest.mark.django_db


def post(client, key, path, body):
    return client.post(path, data=json.dumps(body), content_type="application/json",
                       HTTP_AUTHORIZATION=f"Token {key}")


@pytest.mark.parametrize(("body", "message"), [
    ({"code": "x"}, "problem: missing"),
    ({"problem": [48], "code": "x"}, "problem: missing (a number or a slug)"),
    ({"problem": 48}, "code: missing or not a string"),
    ({"problem": 48, "code": "x", "mode": "fast"}, "mode: 'run', 'submit' or 'scratch', not 'fast'"),
    ({"problem": 48, "code": "x", "mode": 3}, "mode: 'run', 'submit' or 'scratch'"),
    ({"problem": True, "code": "x"}, "problem:"),
    ({"problem": 48, "code": "x", "script": 1}, "script: not a string"),
])
def test_a_submission_body_names_the_field_it_refuses(client, alice, problem, body, message):
    response = post(client, token_for(alice), "/api/v1/submissions", body)
    assert response.status_code == 400 and response.json()["error"].startswith(message)


def test_course_bodies_are_checked_by_the_same_schema():
    assert body_error({"join_code": 5}, "CourseJoin") == "join_code: missing (a string)"
    assert body_error({"join_code": "a", "share_email": "yes"}, "CourseJoin") == (
        "share_email: true or false")
    assert body_error({"title": "T", "kind": "quiz"}, "ExamCreate") == (
        "kind: 'exam' or 'contest', not 'quiz'")
    assert body_error({"title": "T", "problems": [48, None]}, "AssignmentCreate") == (
        "problems: a non-empty list of problem numbers")
    assert body_error({"title": "T", "problems": [48, "49"]}, "AssignmentCreate") is None


def test_write_calls_beyond_the_limit_get_429_with_retry_after(client, alice, bob, settings):
    settings.JUDGE_API_WRITES_PER_MINUTE = 2
    key = token_for(alice)
    statuses = [post(client, key, "/api/v1/courses/999/join", {"join_code": "x"}).status_code
                for _ in range(3)]
    assert statuses[:2] == [404, 404] and statuses[2] == 429
    refused = post(client, key, "/api/v1/courses/invitations/5/decline", {})
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 61
    assert refused.json()["error"].startswith("rate: at most 2 API writes a minute")
    # Reads are not counted, and another user has their own count.
    assert client.get("/api/v1/courses/invitations",
                      HTTP_AUTHORIZATION=f"Token {key}").status_code == 200
    assert post(client, token_for(bob), "/api/v1/courses/999/join", {"join_code": "x"}
                ).status_code == 404
