"""The JSON API: exact paths, token auth, 201/400/404 and the result shape."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from judge_cast import make_problem, token_for

from judge_site.accounts.models import ApiToken, token_digest
from judge_site.submissions.models import Status, Submission

pytestmark = pytest.mark.django_db(transaction=True)

GOOD = "def embed(ids, weight, pad_id):\n    return weight[ids]\n"
JUDGE_JSON_KEYS = {"verdict", "tests", "benchmark", "environment", "message", "problem_version"}


def post(client, token, body, **extra):
    return client.post(
        "/api/v1/submissions",
        data=json.dumps(body) if not isinstance(body, str) else body,
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Token {token}",
        **extra,
    )


def test_it_lists_published_problems(client, alice, problem):
    make_problem(50, slug="draft", published=False)
    response = client.get("/api/v1/problems", HTTP_AUTHORIZATION=f"Token {token_for(alice)}")
    assert response.status_code == 200
    assert response.json() == [
        {"number": 48, "slug": "problem-48", "title": "Problem number 48", "difficulty": "medium"}
    ]


def test_it_round_trips_a_submission(client, alice, problem, inline_judging):
    token = token_for(alice)
    response = post(client, token, {"problem": 48, "code": GOOD, "mode": "submit"})
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "queued" and isinstance(body["id"], int)
    result = client.get(f"/api/v1/submissions/{body['id']}", HTTP_AUTHORIZATION=f"Token {token}")
    data = result.json()
    assert JUDGE_JSON_KEYS | {"id", "problem", "mode", "status"} <= set(data)
    assert (data["status"], data["verdict"], data["problem"], data["mode"]) == (
        "done",
        "AC",
        48,
        "submit",
    )
    assert data["benchmark"]["speedup"] == 2.5
    # Stored with ``trust`` only; the API derives manage.py judge --json's ``verified`` again.
    assert (data["benchmark"]["trust"], data["benchmark"]["verified"]) == ("verified", True)
    from judge_site.submissions.models import Submission

    stored = Submission.objects.get(pk=body["id"])
    assert "verified" not in stored.benchmark and stored.secret_seed is not None
    assert str(stored.secret_seed) not in result.content.decode(), "the seed is staff's only"
    assert {"name", "public", "verdict", "message"} <= set(data["tests"][0])


def test_a_seed_cannot_be_chosen_through_the_api(client, alice, problem, fake_engine,
                                                inline_judging):
    """Only staff reproduce a judging (manage.py judge --seed): a request's seed is ignored."""
    token = token_for(alice)
    body = {"problem": 48, "code": GOOD, "mode": "submit", "seed": 7, "secret_seed": 7}
    assert post(client, token, body).status_code == 201
    assert fake_engine.seeds == [None], "the engine draws the seed itself"


def test_it_accepts_a_slug_and_reports_queue_position(client, alice, problem, enqueued):
    token = token_for(alice)
    first = post(client, token, {"problem": "problem-48", "code": GOOD, "mode": "run"}).json()
    second = post(client, token, {"problem": "48", "code": GOOD, "mode": "run"}).json()
    data = client.get(
        f"/api/v1/submissions/{second['id']}", HTTP_AUTHORIZATION=f"Token {token}"
    ).json()
    assert (data["status"], data["verdict"], data["queue_position"]) == ("queued", None, 2)
    assert first["id"] != second["id"]


def test_the_queue_position_counts_only_the_same_queue(
    client, alice, bob, problem, enqueued, settings
):
    """A GPU problem's judgings wait for GPU workers: they are not ahead of a CPU judging."""
    settings.JUDGE_GPU_ENABLED = True
    gpu = make_problem(56, slug="gpu-one", device="gpu")
    alice_token, bob_token = token_for(alice), token_for(bob)
    post(client, alice_token, {"problem": gpu.number, "code": GOOD, "mode": "run"})
    cpu = post(client, bob_token, {"problem": 48, "code": GOOD, "mode": "run"}).json()
    later_gpu = post(client, bob_token, {"problem": 56, "code": GOOD, "mode": "run"}).json()

    def position(token: str, sid: int) -> int:
        return client.get(
            f"/api/v1/submissions/{sid}", HTTP_AUTHORIZATION=f"Token {token}"
        ).json()["queue_position"]

    assert position(bob_token, cpu["id"]) == 1
    assert position(bob_token, later_gpu["id"]) == 2


@pytest.mark.parametrize(
    ("body", "status", "field"),
    [
        ({"problem": 48, "code": "", "mode": "run"}, 400, "code"),
        ({"problem": 48, "code": "x" * 70_000, "mode": "run"}, 400, "code"),
        ({"problem": 48, "mode": "run"}, 400, "code"),
        ({"problem": 999, "code": GOOD, "mode": "run"}, 400, "problem"),
        ({"code": GOOD, "mode": "run"}, 400, "problem"),
        ({"problem": 50, "code": GOOD, "mode": "run"}, 404, "problem"),
        ({"problem": 48, "code": GOOD, "mode": "fast"}, 400, "mode"),
        ("not json", 400, "body"),
        ('{"problem": 48, "code": "x = 1  # \\ud800", "mode": "run"}', 400, "code"),
    ],
)
def test_it_rejects_bad_input_naming_the_field(
    client, alice, problem, enqueued, body, status, field
):
    make_problem(50, slug="draft", published=False)
    response = post(client, token_for(alice), body)
    assert response.status_code == status
    assert response.json()["error"].startswith(f"{field}:")
    assert Submission.objects.count() == 0


def test_it_rate_limits_with_429(client, alice, problem, enqueued, settings):
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 1
    token = token_for(alice)
    assert post(client, token, {"problem": 48, "code": GOOD, "mode": "run"}).status_code == 201
    response = post(client, token, {"problem": 48, "code": GOOD, "mode": "run"})
    assert response.status_code == 429
    assert "per minute" in response.json()["error"]


def test_it_hides_someone_elses_submission(client, alice, bob, problem, enqueued):
    sub_id = post(client, token_for(alice), {"problem": 48, "code": GOOD}).json()["id"]
    response = client.get(
        f"/api/v1/submissions/{sub_id}", HTTP_AUTHORIZATION=f"Token {token_for(bob)}"
    )
    assert response.status_code == 404


def test_it_refuses_a_bad_token_or_none(client, alice, problem, enqueued):
    response = post(client, "nope", {"problem": 48, "code": GOOD})
    assert response.status_code == 401
    anonymous = client.post(
        "/api/v1/submissions",
        data=json.dumps({"problem": 48, "code": GOOD}),
        content_type="application/json",
    )
    assert anonymous.status_code == 401
    assert Submission.objects.count() == 0


def test_it_keeps_csrf_for_cookie_requests(alice, problem, enqueued):
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(alice)
    response = browser.post(
        "/api/v1/submissions",
        data=json.dumps({"problem": 48, "code": GOOD}),
        content_type="application/json",
    )
    assert response.status_code == 403
    assert Submission.objects.count() == 0


def test_token_requests_need_no_csrf(alice, problem, enqueued):
    from django.test import Client

    api = Client(enforce_csrf_checks=True)
    response = post(api, token_for(alice), {"problem": 48, "code": GOOD})
    assert response.status_code == 201
    assert Submission.objects.get().status == Status.QUEUED


def test_create_api_token_prints_a_working_key_last(client, alice, capsys):
    call_command("create_api_token", "alice")
    first = capsys.readouterr().out.strip().splitlines()[-1]
    assert token_digest(first) == ApiToken.objects.get(user=alice).digest
    # Stored hashed: a second call cannot print the first token again, so it replaces it.
    call_command("create_api_token", "alice", "--rotate")
    out = capsys.readouterr()
    second = out.out.strip().splitlines()[-1]
    assert second != first and "replaced" in out.err
    problems = "/api/v1/problems"
    assert client.get(problems, HTTP_AUTHORIZATION=f"Token {first}").status_code == 401
    assert client.get(problems, HTTP_AUTHORIZATION=f"Token {second}").status_code == 200


def test_a_request_body_over_djangos_cap_is_a_400_naming_code(client, alice, problem, enqueued):
    huge = {"problem": 48, "code": "#" * 3_000_000, "mode": "run"}
    response = post(client, token_for(alice), huge)
    assert response.status_code == 400
    assert response.json()["error"].startswith("code:")
