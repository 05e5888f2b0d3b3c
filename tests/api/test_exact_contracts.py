"""The exact contracts tooling outside the repository relies on (DEVELOPERS.md: `manage.py judge
--json`, the API paths and bodies, `import_practice`, `rejudge`, `scripts/up` and its flags, the
course API), each compared with a recorded answer in tests/api/contracts/.

What is recorded is what a caller may rely on: the paths, the option strings, the keys and the
type of every value, and the values that do not depend on the clock or the machine (verdicts,
test names, messages of public tests, keys of the environment). A change to a contract fails here
and must be an addition the issues ask for: re-record with ``JUDGE_RECORD_CONTRACTS=1`` and say in
the commit which issue adds what.
"""

from __future__ import annotations

import json
import os
import re
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command, get_commands, load_command_class
from django.test import override_settings
from django.urls import URLPattern, URLResolver, get_resolver
from judge_cast import make_problem

REPO = Path(__file__).resolve().parents[2]
RECORDED = Path(__file__).resolve().parent / "contracts"
FIXTURES = REPO / "tests" / "fixtures" / "problems"
TOY = FIXTURES / "900-toy"
RECORD = os.environ.get("JUDGE_RECORD_CONTRACTS") == "1"

# Values that depend on the clock, the machine or a random draw: only their type is recorded.
VOLATILE_KEYS = {
    "time_ms", "created_at", "started_at", "finished_at", "queued_at", "id", "url", "course",
    "problem_version", "version", "join_code", "submission_ms", "baseline_ms", "speedup",
    "submission_spread", "baseline_spread", "repetitions", "note", "sol_ms", "sol_fraction",
    "bytes", "flops", "position", "queue_position",
    # A timing's trust depends on the machine's load (verified, charged, contended: issue 41).
    "trust", "rule",
    # The roofline's side is decided by the peak measured at run time, which load lowers.
    "bound",
    # Follows the trust: false for a contended timing as for a rejected one (issue 41).
    "verified",
}


def shape_of(value: Any, key: str = "") -> Any:
    """``value`` with what may change between two honest runs replaced by its type name."""
    if isinstance(value, dict):
        if key == "environment":  # what it records depends on the machine and the timing
            return "<dict>"
        return {k: shape_of(v, k) for k, v in value.items()}
    if isinstance(value, list):
        return [shape_of(item, key) for item in value]
    if key in VOLATILE_KEYS or isinstance(value, float):
        return f"<{type(value).__name__}>"
    return value


def matches_record(name: str, value: Any) -> None:
    path = RECORDED / f"{name}.json"
    if RECORD:
        path.parent.mkdir(exist_ok=True)
        path.write_text(json.dumps(value, indent=2, sort_keys=True) + "\n")
        return
    assert path.exists(), f"no recorded answer {path}: record it with JUDGE_RECORD_CONTRACTS=1"
    assert value == json.loads(path.read_text()), f"{name} differs from {path}"


def _routes(patterns: list[Any], prefix: str = "") -> list[str]:
    found: list[str] = []
    for entry in patterns:
        route = prefix + str(entry.pattern)
        if isinstance(entry, URLResolver):
            found += _routes(entry.url_patterns, route)
        elif isinstance(entry, URLPattern):
            found.append(route)
    return found


def test_the_api_and_lti_paths_are_the_recorded_ones() -> None:
    routes = sorted({r for r in _routes(get_resolver().url_patterns)
                     if r.startswith(("api/", "lti/", "accounts/password_reset", "accounts/reset"))})
    matches_record("paths", routes)


def _options(command: str) -> list[str]:
    parser = load_command_class(get_commands()[command], command).create_parser("manage.py", command)
    return sorted(s for action in parser._actions for s in action.option_strings)


def test_the_commands_take_the_recorded_options() -> None:
    matches_record("command_options", {
        name: _options(name) for name in ("judge", "import_practice", "rejudge",
                                          "create_api_token", "similarity")
    })


def test_scripts_up_takes_the_recorded_flags() -> None:
    text = (REPO / "scripts" / "up").read_text()
    flags = sorted(set(re.findall(r'"\$\{1:-\}" == "(--[a-z][a-z-]*)"', text)))
    assert flags, "no flag found in scripts/up"
    matches_record("scripts_up_flags", flags)


@override_settings(JUDGE_PROBLEMS_DIR=FIXTURES, JUDGE_BACKEND="local", DEBUG=True)
def test_manage_py_judge_json_answers_a_run_as_recorded() -> None:
    out = StringIO()
    call_command("judge", "900", str(TOY / "solutions/WA/ignores_alpha.py"), "--mode", "run",
                 "--json", stdout=out)
    matches_record("judge_wa_run", shape_of(json.loads(out.getvalue())))


@override_settings(JUDGE_BACKEND="local", DEBUG=True)
def test_manage_py_judge_json_answers_a_submit_with_its_benchmark_as_recorded() -> None:
    """Problem 48's reference, every test and the benchmark (its baseline in kernels/)."""
    out = StringIO()
    reference = next((REPO / "problems").glob("048-*")) / "solution.py"
    call_command("judge", "48", str(reference), "--mode", "submit", "--json", stdout=out)
    answer = json.loads(out.getvalue())
    assert answer["verdict"] == "AC" and answer["benchmark"], answer.get("message")
    tests = answer.pop("tests")
    assert tests and all(t["verdict"] == "AC" for t in tests)
    # Which hidden cases a package has grows with it (issue 42): their entries' keys do not.
    answer["test_keys"] = sorted({",".join(sorted(t)) for t in tests})
    matches_record("judge_ac_submit", shape_of(answer))


@pytest.mark.django_db
def test_the_submission_api_answers_as_recorded(client: Any, alice: Any, problem: Any,
                                                inline_judging: Any) -> None:
    from judge_cast import token_for

    auth = {"HTTP_AUTHORIZATION": f"Bearer {token_for(alice)}"}
    listed = client.get("/api/v1/problems", **auth)
    created = client.post("/api/v1/submissions", json.dumps(
        {"problem": 48, "code": "def embed(ids, weight, pad_id):\n    return None\n",
         "mode": "run"}), content_type="application/json", **auth)
    assert created.status_code in (200, 201, 202), created.content
    got = client.get(f"/api/v1/submissions/{created.json()['id']}", **auth)
    missing = client.get("/api/v1/submissions/999999999", **auth)
    refused = client.post("/api/v1/submissions", json.dumps({"problem": 48}),
                          content_type="application/json", **auth)
    matches_record("submission_api", {
        "problems": [listed.status_code, shape_of(listed.json())],
        "create": [created.status_code, shape_of(created.json())],
        "result": [got.status_code, shape_of(got.json())],
        "missing": [missing.status_code, shape_of(missing.json())],
        "refused": [refused.status_code, shape_of(refused.json())],
    })


@pytest.mark.django_db
def test_the_course_api_answers_as_recorded(client: Any, charlie: Any, alice: Any,
                                            problem: Any) -> None:
    from django.contrib.auth.models import Permission
    from judge_cast import token_for

    make_problem(57, slug="causal-attention")
    charlie.user_permissions.add(Permission.objects.get(codename="create_course"))
    staff = {"HTTP_AUTHORIZATION": f"Bearer {token_for(charlie)}"}
    student = {"HTTP_AUTHORIZATION": f"Bearer {token_for(alice)}"}

    def post(path: str, body: dict[str, Any], auth: dict[str, str]) -> Any:
        return client.post(path, json.dumps(body), content_type="application/json", **auth)

    course = post("/api/v1/courses", {"title": "LLM internals"}, staff)
    course_id, code = course.json()["id"], course.json()["join_code"]
    assignment = post(f"/api/v1/courses/{course_id}/assignments", {
        "title": "Week 1", "problems": [48], "opens_at": "2026-01-01T09:00:00+00:00",
        "due_at": "2099-01-01T09:00:00+00:00", "late_until": None, "late_credit": 0,
    }, staff)
    joined = post(f"/api/v1/courses/{course_id}/join", {"join_code": code}, student)
    wrong = post(f"/api/v1/courses/{course_id}/join", {"join_code": "nope"}, student)
    grades = client.get(f"/api/v1/courses/{course_id}/grades.csv", **staff)
    answers = {
        "course": [course.status_code, shape_of(course.json())],
        "assignment": [assignment.status_code, shape_of(assignment.json())],
        "join": [joined.status_code, shape_of(joined.json())],
        "wrong_code": [wrong.status_code, shape_of(wrong.json())],
        "grades_header": [grades.status_code,
                          grades.content.decode().splitlines()[0] if grades.status_code == 200
                          else ""],
    }
    matches_record("course_api", answers)


@pytest.mark.django_db
def test_import_practice_json_answers_as_recorded(tmp_path: Path) -> None:
    out = StringIO()
    folder = REPO / "tests" / "fixtures" / "practice" / "toy-dot-product"
    with override_settings(JUDGE_BACKEND="local", DEBUG=True):
        call_command("import_practice", str(folder), "--json", "--dest", str(tmp_path),
                     stdout=out)
    matches_record("import_practice", shape_of(json.loads(out.getvalue())))
