"""submission_judge with the real engine (local backend) on problem 48, as the worker runs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from judge_site.submissions import services
from judge_site.submissions.models import Status, Submission

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

PACKAGE = Path(__file__).resolve().parents[2] / "problems" / "048-embedding-tied-head-padding"


@pytest.fixture
def problem48(db, settings):
    from judge_site.catalog.models import Problem
    from judge_site.catalog.services import problem_sync
    from sandbox.grader.package import load_package

    settings.JUDGE_BACKEND = "local"
    settings.JUDGE_ALLOW_LOCAL_BACKEND = True  # pytest-django runs with DEBUG off
    problem_sync(load_package(PACKAGE))
    return Problem.objects.get(number=48)


def test_the_starter_fails_its_public_tests_with_feedback(alice, problem48, enqueued):
    starter = (PACKAGE / "starter.py").read_text()
    sub = services.submission_create(alice, problem48, starter, "run")
    assert services.submission_judge(sub.pk).action == "judged"
    sub = Submission.objects.get(pk=sub.pk)
    assert sub.status == Status.DONE and sub.verdict == "WA"
    assert sub.tests and all(t["public"] for t in sub.tests)
    wrong = [t for t in sub.tests if t["verdict"] == "WA"]
    assert wrong and "index" in wrong[0]["details"]
    assert sub.problem_version == problem48.version
    assert sub.benchmark is None  # Run never benchmarks


def test_a_syntax_error_is_ce_not_ie(alice, problem48, enqueued):
    sub = services.submission_create(alice, problem48, "def embed(:\n", "run")
    services.submission_judge(sub.pk)
    sub = Submission.objects.get(pk=sub.pk)
    assert (sub.status, sub.verdict) == (Status.DONE, "CE")


def test_a_misconfigured_judge_gives_ie_at_once(alice, problem48, enqueued, settings):
    settings.JUDGE_ALLOW_LOCAL_BACKEND = False
    sub = services.submission_create(alice, problem48, "x = 1\n", "run")
    assert services.submission_judge(sub.pk).action == "failed"
    sub = Submission.objects.get(pk=sub.pk)
    assert (sub.verdict, sub.attempts) == ("IE", 1)
    assert enqueued == [(sub.pk, "cpu", 0)]  # not re-enqueued
