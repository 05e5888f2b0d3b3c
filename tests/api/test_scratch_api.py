"""The scratchpad through the API (mode "scratch"): judged for real (the toy problem, the local
backend, the worker's own submission_judge), the output and its limit, error verdicts, bad
input naming the field, the rate limit shared with Run, and no statistic that counts it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from judge_cast import token_for

from judge_site.submissions import aggregates, selectors, services
from judge_site.submissions.models import BestResult, ProblemStats, Submission, UserStats
from sandbox.grader.contracts import SCRATCH_OUTPUT_CHARS

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

TOY = Path(__file__).resolve().parents[1] / "fixtures" / "problems" / "900-toy"
SOLUTION = (TOY / "solution.py").read_text()
JUDGE_JSON_KEYS = {"verdict", "tests", "benchmark", "environment", "message", "problem_version"}
SCRATCH_KEYS = {"script", "output", "output_truncated", "output_limit_chars"}


@pytest.fixture
def toy(db, settings):
    from judge_site.catalog.models import Problem
    from judge_site.catalog.services import problem_sync
    from sandbox.grader.package import load_package

    settings.JUDGE_BACKEND = "local"
    settings.JUDGE_ALLOW_LOCAL_BACKEND = True  # pytest-django runs with DEBUG off
    problem_sync(load_package(TOY))
    return Problem.objects.get(number=900)


def post(client, token, body):
    return client.post("/api/v1/submissions", data=json.dumps(body),
                       content_type="application/json", HTTP_AUTHORIZATION=f"Token {token}")


def scratch_run(client, token, script, code=SOLUTION):
    """POST a scratch run, judge it as the worker would, GET its result."""
    response = post(client, token, {"problem": 900, "code": code, "mode": "scratch",
                                    "script": script})
    assert response.status_code == 201, response.content
    services.submission_judge(response.json()["id"])
    got = client.get(f"/api/v1/submissions/{response.json()['id']}",
                     HTTP_AUTHORIZATION=f"Token {token}")
    assert got.status_code == 200
    return got.json()


def test_a_scratch_run_prints_a_tensor_with_no_verdict_and_counts_nowhere(
    client, alice, toy, enqueued
):
    token = token_for(alice)
    script = "import torch\nx = torch.arange(4.0)\nprint(axpy(x, x, 3.0))\n"
    data = scratch_run(client, token, script)
    assert JUDGE_JSON_KEYS | SCRATCH_KEYS <= set(data)
    assert (data["mode"], data["status"], data["verdict"]) == ("scratch", "done", None)
    assert data["output"] == "tensor([ 0.,  4.,  8., 12.])\n"
    assert (data["script"], data["output_truncated"]) == (script, False)
    assert data["output_limit_chars"] == SCRATCH_OUTPUT_CHARS
    assert [t["name"] for t in data["tests"]] == ["script"] and data["benchmark"] is None
    # Nowhere: no standing, no counter, no history row, not the judging the page resumes;
    # and a full reconcile (the periodic task) does not add them either.
    aggregates.stats_reconcile()
    assert not BestResult.objects.filter(user=alice).exists()
    assert not UserStats.objects.filter(user=alice, tried__gt=0).exists()
    assert not ProblemStats.objects.filter(problem=toy, tried__gt=0).exists()
    assert selectors.OwnHistory(alice.pk).count() == 0
    assert not selectors.submission_history(alice).exists()
    from judge_site.submissions.problem_page import latest_submission

    assert latest_submission(alice, toy) is None


def test_a_run_keeps_its_json_without_the_scratch_keys(client, alice, toy, enqueued):
    token = token_for(alice)
    response = post(client, token, {"problem": 900, "code": SOLUTION, "mode": "run"})
    data = client.get(f"/api/v1/submissions/{response.json()['id']}",
                      HTTP_AUTHORIZATION=f"Token {token}").json()
    assert not SCRATCH_KEYS & set(data) and data["mode"] == "run"
    assert Submission.objects.get().script == ""


FAILING = [  # (script, verdict, what the message and the output say)
    ("import not_installed_here\n", "RE", "No module named 'not_installed_here'"),
    ("print('before')\n1 / 0\n", "RE", "ZeroDivisionError"),
]


def test_a_failing_script_has_an_error_verdict_and_its_traceback(client, alice, toy, enqueued):
    token = token_for(alice)
    for script, verdict, said in FAILING:
        data = scratch_run(client, token, script)
        assert data["verdict"] == verdict
        assert said in data["tests"][0]["message"] and said in data["output"]
        assert "Traceback" in data["output"]


def test_a_long_output_is_cut_at_the_stated_limit_with_a_note(client, alice, toy, enqueued):
    data = scratch_run(client, token_for(alice), "print('x' * 40000)\n")
    assert data["verdict"] is None and data["output_truncated"] is True
    assert data["output"].startswith("x" * SCRATCH_OUTPUT_CHARS + "\n[output truncated:")
    assert "40001 characters" in data["output"]


BAD = [  # (what the body adds, the field its error names)
    ({"mode": "scratch", "script": "   \n"}, "script"),
    ({"mode": "scratch"}, "script"),
    ({"mode": "scratch", "script": ["print(1)"]}, "script"),
    ({"mode": "run", "script": "print(1)"}, "script"),
    ({"mode": "scratch", "script": "print(1)\x00"}, "script"),
    ({"mode": "scratchy", "script": "print(1)"}, "mode"),
]


def test_bad_scratch_input_is_a_400_naming_the_field(client, alice, toy, enqueued):
    token = token_for(alice)
    for body, field in BAD:
        response = post(client, token, {"problem": 900, "code": SOLUTION, **body})
        assert response.status_code == 400, body
        assert response.json()["error"].startswith(f"{field}:"), (body, response.json())
    assert not Submission.objects.exists()


def test_scratch_runs_share_the_rate_limit_of_run_and_submit(
    client, alice, toy, enqueued, settings
):
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 2
    token = token_for(alice)
    body = {"problem": 900, "code": SOLUTION, "mode": "scratch", "script": "print(1)"}
    assert post(client, token, body).status_code == 201
    assert post(client, token, {**body, "mode": "run", "script": None}).status_code == 201
    refused = post(client, token, body)
    assert refused.status_code == 429 and "per minute" in refused.json()["error"]
    assert Submission.objects.count() == 2


def test_manage_py_judge_runs_a_script_and_says_how_it_ended(tmp_path, settings):
    from io import StringIO

    from django.core.management import CommandError, call_command

    settings.JUDGE_PROBLEMS_DIR = str(TOY.parent)
    settings.JUDGE_BACKEND = "local"
    settings.JUDGE_ALLOW_LOCAL_BACKEND = True
    script = tmp_path / "try.py"
    script.write_text("import torch\nprint(axpy(torch.ones(2), torch.ones(2), 1.0))\n")
    out = StringIO()
    call_command("judge", "900", str(TOY / "solution.py"), "--mode", "scratch",
                 "--script", str(script), "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert (data["verdict"], data["output"]) == (None, "tensor([2., 2.])\n")
    out = StringIO()
    call_command("judge", "900", str(TOY / "solution.py"), "--mode", "scratch",
                 "--script", str(script), stdout=out)
    assert out.getvalue() == "tensor([2., 2.])\nscratch run: your script ran to its end\n"
    with pytest.raises(CommandError, match="needs --script"):
        call_command("judge", "900", str(TOY / "solution.py"), "--mode", "scratch")
    with pytest.raises(CommandError, match="with --mode scratch only"):
        call_command("judge", "900", str(TOY / "solution.py"), "--script", str(script))


def test_the_api_client_runs_a_scratch_script_and_prints_its_output(
    live_server, alice, toy, monkeypatch, tmp_path, capsys
):
    from judge_site import cli

    monkeypatch.setattr(services, "_enqueue",
                        lambda sid, queue, countdown=0: services.submission_judge(sid))
    mine, script = tmp_path / "mine.py", tmp_path / "try.py"
    mine.write_text(SOLUTION)
    script.write_text("import torch\nprint(axpy(torch.zeros(2), torch.ones(2), 5.0))\n")
    argv = ["--url", live_server.url, "--token", token_for(alice), "submit", "900", str(mine),
            "--mode", "scratch", "--script", str(script)]
    assert cli.main(argv) == 0
    out = capsys.readouterr().out
    assert "tensor([1., 1.])\n" in out and "verdict: none (your script ran to its end)" in out
    script.write_text("1 / 0\n")
    assert cli.main(argv) == 1
    assert "verdict: RE" in capsys.readouterr().out
