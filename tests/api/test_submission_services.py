"""submission_create / submission_judge / submission_reap_stuck against the real database."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from judge_cast import FakeEngine, make_problem

from judge_site.submissions import reaper, services
from judge_site.submissions.models import Status, Submission

pytestmark = pytest.mark.django_db(transaction=True)

GOOD = "def embed(ids, weight, pad_id):\n    return weight[ids]\n"


def test_it_stores_a_queued_submission_and_enqueues_after_commit(alice, problem, enqueued):
    sub = services.submission_create(alice, problem, GOOD, "submit")
    assert sub.status == Status.QUEUED
    assert enqueued == [(sub.pk, "cpu", 0)]


def test_it_routes_gpu_problems_to_the_gpu_queue(alice, enqueued, settings):
    settings.JUDGE_GPU_ENABLED = True
    gpu_problem = make_problem(49, slug="gpu-one", device="gpu")
    sub = services.submission_create(alice, gpu_problem, GOOD, "run")
    assert enqueued == [(sub.pk, "gpu", 0)]


@pytest.mark.parametrize(
    ("code", "mode", "field"),
    [
        ("", "run", "code"),
        ("   \n\t", "submit", "code"),
        ("x" * 70_000, "submit", "code"),
        (GOOD, "bench", "mode"),
    ],
)
def test_it_rejects_bad_input_and_stores_nothing(alice, problem, enqueued, code, mode, field):
    with pytest.raises(services.SubmissionError) as info:
        services.submission_create(alice, problem, code, mode)
    assert info.value.field == field
    assert Submission.objects.count() == 0
    assert enqueued == []


def test_it_names_the_size_limit(alice, problem, enqueued, settings):
    settings.JUDGE_MAX_CODE_BYTES = 100
    with pytest.raises(services.SubmissionError, match="limit is 100 bytes"):
        services.submission_create(alice, problem, "#" * 101, "run")


def test_it_refuses_an_unpublished_problem(alice, enqueued):
    hidden = make_problem(50, slug="draft", published=False)
    with pytest.raises(services.SubmissionError, match="not published"):
        services.submission_create(alice, hidden, GOOD, "run")
    assert Submission.objects.count() == 0


def test_it_rate_limits_per_user(alice, bob, problem, enqueued, settings):
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 2
    services.submission_create(alice, problem, GOOD, "run")
    services.submission_create(alice, problem, GOOD, "run")
    with pytest.raises(services.SubmissionError, match="at most 2 runs") as info:
        services.submission_create(alice, problem, GOOD, "run")
    assert info.value.status == 429
    services.submission_create(bob, problem, GOOD, "run")  # bob has his own budget
    assert Submission.objects.filter(user=alice).count() == 2


def test_it_judges_and_records_progress_and_verdict(alice, problem, enqueued, fake_engine):
    sub = services.submission_create(alice, problem, GOOD, "submit")
    outcome = services.submission_judge(sub.pk)
    sub.refresh_from_db()
    assert outcome.action == "judged"
    assert (sub.status, sub.verdict) == (Status.DONE, "AC")
    assert [t["name"] for t in sub.tests] == ["public_small", "public_pad", "hidden_1"]
    assert sub.benchmark["speedup"] == 2.5
    assert sub.problem_version == "v-test-1"
    assert sub.attempts == 1 and sub.finished_at is not None


@pytest.mark.parametrize(("every_s", "expected"), [(0.0, [1, 2]), (3600.0, [1, 1])])
def test_it_writes_tests_as_they_finish_at_most_so_often(
    alice, problem, enqueued, monkeypatch, every_s, expected
):
    """The first finished test is written at once; later ones when PROGRESS_EVERY_S has passed
    since the last write (else with the next write or the verdict)."""
    monkeypatch.setattr(services, "PROGRESS_EVERY_S", every_s)
    seen: list[int] = []
    engine = FakeEngine()

    def spying(package, source, mode, on_progress):
        def spy(test):
            on_progress(test)
            seen.append(len(Submission.objects.get().tests))

        return engine(package, source, mode, spy)

    monkeypatch.setattr(services, "_judge_source", spying)
    monkeypatch.setattr(services, "_load_package", lambda path: object())
    sub = services.submission_create(alice, problem, GOOD, "run")
    services.submission_judge(sub.pk)
    assert seen == expected
    assert len(Submission.objects.get().tests) == 2  # the verdict's write has them all


def test_it_judges_only_once(alice, problem, enqueued, fake_engine):
    sub = services.submission_create(alice, problem, GOOD, "run")
    assert services.submission_judge(sub.pk).action == "judged"
    assert services.submission_judge(sub.pk).action == "skipped"
    assert len(fake_engine.calls) == 1


def test_it_queues_a_second_submission_while_one_runs(alice, bob, problem, enqueued, fake_engine):
    first = services.submission_create(alice, problem, GOOD, "run")
    second = services.submission_create(alice, problem, GOOD, "run")
    Submission.objects.filter(pk=first.pk).update(status=Status.RUNNING, started_at=timezone.now())
    sent = len(enqueued)
    outcome = services.submission_judge(second.pk)
    assert outcome.action == "busy"
    assert Submission.objects.get(pk=second.pk).status == Status.QUEUED
    assert len(enqueued) == sent  # no new message: the running judging hands off when it ends
    bobs = services.submission_create(bob, problem, GOOD, "run")
    assert services.submission_judge(bobs.pk).action == "judged"  # others are not held up
    Submission.objects.filter(pk=first.pk).update(status=Status.QUEUED)
    assert services.submission_judge(first.pk).action == "judged"
    assert enqueued[-1] == (second.pk, "cpu", 0)  # the hand-off


def test_it_retries_engine_faults_then_gives_ie(alice, problem, enqueued, fake_engine):
    sub = services.submission_create(alice, problem, "CRASH", "run")
    for _ in range(services.MAX_ATTEMPTS - 1):
        assert services.submission_judge(sub.pk).action == "retry"
        assert Submission.objects.get(pk=sub.pk).status == Status.QUEUED
    assert services.submission_judge(sub.pk).action == "failed"
    sub.refresh_from_db()
    assert (sub.status, sub.verdict, sub.attempts) == (Status.DONE, "IE", services.MAX_ATTEMPTS)
    assert "internal error" in sub.message


def test_a_stale_worker_cannot_overwrite_a_newer_result(alice, problem, enqueued, monkeypatch):
    sub = services.submission_create(alice, problem, GOOD, "run")
    engine = FakeEngine()

    def reaped_meanwhile(package, source, mode, on_progress):
        # The reaper gives the submission to someone else while we judge.
        Submission.objects.filter(pk=sub.pk).update(attempt_token=Submission.new_token())
        return engine(package, source, mode, on_progress)

    monkeypatch.setattr(services, "_judge_source", reaped_meanwhile)
    monkeypatch.setattr(services, "_load_package", lambda path: object())
    assert services.submission_judge(sub.pk).action == "skipped"
    sub.refresh_from_db()
    assert sub.status == Status.RUNNING and sub.tests == []


def test_the_reaper_requeues_once_then_fails(alice, problem, enqueued, settings):
    sub = services.submission_create(alice, problem, GOOD, "run")
    long_ago = timezone.now() - timedelta(seconds=settings.CELERY_TASK_TIME_LIMIT + 120)
    last = services.MAX_ATTEMPTS
    Submission.objects.filter(pk=sub.pk).update(
        status=Status.RUNNING, started_at=long_ago, attempts=last - 1,
        attempt_token=Submission.new_token(),
    )  # fmt: skip
    assert reaper.submission_reap_stuck() == {"requeued": 1, "failed": 0, "resent": 0}
    assert Submission.objects.get(pk=sub.pk).status == Status.QUEUED
    assert enqueued[-1][0] == sub.pk
    Submission.objects.filter(pk=sub.pk).update(
        status=Status.RUNNING, started_at=long_ago, attempts=last,
        attempt_token=Submission.new_token(),
    )  # fmt: skip
    assert reaper.submission_reap_stuck() == {"requeued": 0, "failed": 1, "resent": 0}
    sub.refresh_from_db()
    assert (sub.status, sub.verdict) == (Status.DONE, "IE")


def test_the_reaper_leaves_fresh_judgings_alone(alice, problem, enqueued):
    sub = services.submission_create(alice, problem, GOOD, "run")
    Submission.objects.filter(pk=sub.pk).update(status=Status.RUNNING, started_at=timezone.now())
    assert reaper.submission_reap_stuck() == {"requeued": 0, "failed": 0, "resent": 0}
