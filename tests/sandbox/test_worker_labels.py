"""A worker's graders carry its name, package checks' included, and its shutdown removes what
it started: a compose stop ends the judging processes without their own shutdown, and a grader
of a staff upload's check outlived `docker compose down` (stop 45's new-user check)."""

from __future__ import annotations

from typing import Any

import pytest

from judge_site.worker import confinement
from judge_site.worker.engine import WORKER_LABEL, JudgeEngine


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    monkeypatch.setattr(confinement, "_graders", {})
    monkeypatch.setattr(confinement, "_worker_labels", {})
    seen: dict[str, Any] = {}
    real = confinement._spec

    def spec(labels: dict[str, str]) -> Any:
        seen["labels"] = dict(labels)
        return real(labels)

    monkeypatch.setattr(confinement, "_spec", spec)
    return seen


def test_a_package_checks_grader_carries_the_workers_name(isolated: dict[str, Any]) -> None:
    JudgeEngine(worker_name="rejudge@test-worker-labels")
    confinement.graders("local")  # what check_package and the practice import ask, no labels
    assert isolated["labels"][WORKER_LABEL] == "rejudge@test-worker-labels"
    assert isolated["labels"][confinement.GRADER_LABEL] == "grader"


def test_an_unnamed_engine_labels_nothing(isolated: dict[str, Any]) -> None:
    JudgeEngine()
    confinement.graders("local")
    assert WORKER_LABEL not in isolated["labels"]


def test_the_workers_shutdown_removes_its_own_sandboxes(monkeypatch: pytest.MonkeyPatch) -> None:
    from judge_site.submissions import tasks

    calls: list[str] = []
    engine = JudgeEngine(worker_name="cpu@test-worker-labels")
    monkeypatch.setattr(engine, "close", lambda: calls.append("close"))
    monkeypatch.setattr(engine, "remove_own_sandboxes", lambda: calls.append("own") or 0)
    monkeypatch.setattr(tasks, "judge_engine", lambda: engine)
    monkeypatch.setattr(tasks, "remove_own_pooled", lambda: calls.append("pooled") or 0)
    tasks._remove_pooled()
    assert calls == ["close", "pooled", "own"]
