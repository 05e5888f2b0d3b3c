"""The two command lines: ``python -m sandbox judge`` (offline) and ``manage.py judge``
(the exact interface outside tooling depends on), and the site's engine door."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from io import StringIO
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.core.management import CommandError, call_command
from django.test import override_settings

from judge_site.worker.engine import JudgeEngine, gpu_for
from sandbox.__main__ import main as offline_main
from sandbox.grader.package import load_package

REPO = Path(__file__).resolve().parents[2]
FIXTURES = REPO / "tests" / "fixtures" / "problems"
TOY = FIXTURES / "900-toy"


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **(env or {})},
    )


def test_the_offline_cli_judges_public_tests_and_exits_0_whatever_the_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert offline_main(["judge", str(TOY), str(TOY / "starter.py")]) == 0
    out = capsys.readouterr().out
    assert "verdict: WA" in out
    assert "[ WA] small (public)" in out and "worst element at index" in out
    assert "large" not in out, "Run mode shows public tests only"


def test_the_offline_cli_prints_json_and_fails_only_when_the_judge_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert offline_main(["judge", str(TOY), str(TOY / "solution.py"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["verdict"] == "AC" and data["benchmark"] is None
    assert [t["name"] for t in data["tests"]] == ["small", "bf16", "shapes differ"]
    assert offline_main(["judge", str(tmp_path), str(TOY / "solution.py")]) == 1
    assert "missing problem.toml" in capsys.readouterr().err


def test_the_offline_cli_is_a_module_entry_point() -> None:
    proc = run("-m", "sandbox", "judge", "--help")
    assert proc.returncode == 0 and "--mode" in proc.stdout


def test_manage_py_judge_has_the_exact_json_interface() -> None:
    env = {"DEBUG": "true", "JUDGE_BACKEND": "local", "JUDGE_PROBLEMS_DIR": str(FIXTURES)}
    proc = run(
        "manage.py",
        "judge",
        "900",
        str(TOY / "solutions" / "WA" / "ignores_alpha.py"),
        "--mode",
        "run",
        "--json",
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["verdict"] == "WA"
    assert {"verdict", "tests", "benchmark", "environment"} <= set(data)
    assert set(data["tests"][0]) >= {"name", "public", "verdict", "message"}
    assert data["tests"][0] == {
        **data["tests"][0],
        "name": "small",
        "public": True,
        "verdict": "WA",
    }
    assert data["environment"]["backend"] == "local"


@override_settings(JUDGE_PROBLEMS_DIR=FIXTURES, JUDGE_BACKEND="local", DEBUG=True)
def test_manage_py_judge_resolves_the_slug_and_reports_unknown_problems() -> None:
    out = StringIO()
    call_command("judge", "toy", str(TOY / "solution.py"), "--mode", "run", stdout=out)
    assert "verdict: AC" in out.getvalue()
    with pytest.raises(CommandError, match="no problem"):
        call_command("judge", "4242", str(TOY / "solution.py"), stdout=StringIO())


@override_settings(JUDGE_PROBLEMS_DIR=FIXTURES)
def test_manage_py_judge_seed_judges_with_that_secret_and_shows_what_a_student_sees(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--seed`` reaches the engine; the output is still the student's view (the JSON's keys
    unchanged, no seed in it; a hidden test says its category only). That a seed gives the
    same hidden inputs again: tests/sandbox/test_grader.py."""
    from sandbox.grader.contracts import JudgeResult, TestResult, Verdict, WrongKind

    seen: list[int | None] = []

    def fake_judge(engine: JudgeEngine, package: object, source: str, mode: object,
                   on_progress: object = None, secret_seed: int | None = None) -> JudgeResult:
        seen.append(secret_seed)
        large = TestResult("large", False, Verdict.WA, "values differ\nworst element at index [7]",
                           WrongKind.VALUE, 3.0, {"index": [7], "expected": 1.5, "got": 2.5})
        return JudgeResult(Verdict.WA, [large], None, {"backend": "local"}, "", "v1",
                           secret_seed if secret_seed is not None else 99)

    monkeypatch.setattr(JudgeEngine, "judge", fake_judge)
    wrong = str(TOY / "solutions" / "WA" / "hidden_only.py")
    out = StringIO()
    call_command("judge", "900", wrong, "--seed", "12345", "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert set(data) == {"verdict", "tests", "benchmark", "environment", "message",
                         "problem_version"}
    (large,) = data["tests"]
    assert large["message"] == "wrong answer: value" and large["details"] == {}
    assert "12345" not in out.getvalue() and seen == [12345]
    out = StringIO()
    call_command("judge", "900", wrong, stdout=out)
    assert seen[-1] is None and out.getvalue().rstrip().endswith("secret seed: 99")
    assert "worst element" not in out.getvalue()
    with pytest.raises(CommandError):
        call_command("judge", "900", wrong, "--seed", "-1", stdout=StringIO())


@override_settings(JUDGE_BACKEND="local", DEBUG=False, JUDGE_ALLOW_LOCAL_BACKEND=False)
def test_the_site_refuses_the_local_backend_in_production() -> None:
    with pytest.raises(ImproperlyConfigured, match="not a security boundary"):
        JudgeEngine().backend()
    with override_settings(JUDGE_ALLOW_LOCAL_BACKEND=True):
        assert JudgeEngine().backend().name == "local"


@override_settings(JUDGE_GPU_IDS=["GPU-1234"])
def test_only_gpu_problems_get_this_workers_gpu() -> None:
    toy = load_package(TOY)
    assert gpu_for(toy) is None
    gpu_toy = toy.__class__(**{**toy.__dict__, "device": "gpu"})
    assert gpu_for(gpu_toy) == "GPU-1234"
