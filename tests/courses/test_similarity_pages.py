"""Similarity pages: only the course's instructors and site staff (a student 403, anyone else
404); a run started from the page goes to a task whose progress the page polls; a pair reads
side by side, escaped."""

from __future__ import annotations

from typing import Any

import pytest
from course_cast import ago, make_assignment, make_course, quick_user
from judge_cast import grant
from similarity_cast import COPY, ORIGINAL, OTHER, accepted

from judge_site.core.roles import READ_SUBMISSIONS
from judge_site.similarity import services
from judge_site.similarity.models import RunStatus, SimilarityPair, SimilarityRun


@pytest.fixture
def setting(db: Any, problem: Any, alice: Any, bob: Any) -> Any:
    """ines teaches alice, bob and cid; cid copied alice's code."""
    ines, cid = quick_user("ines"), quick_user("cid")
    course = make_course(ines, "LLM internals", alice, bob, cid)
    assignment = make_assignment(course, [problem])
    accepted(alice, problem, ORIGINAL + '\nNOTE = "<script>alert(1)</script>"\n', ago(hours=2))
    accepted(bob, problem, OTHER, ago(hours=2))
    accepted(cid, problem, COPY + '\nHINT = "<script>alert(1)</script>"\n', ago(hours=1))
    return ines, course, assignment


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, tuple[Any, ...], str]]:
    """The Celery send replaced by a list of (task, args, queue)."""
    calls: list[tuple[str, tuple[Any, ...], str]] = []
    monkeypatch.setattr(services, "enqueue",
                        lambda name, args, queue, countdown=0: calls.append((name, args, queue)))
    return calls


def _base(course: Any, assignment: Any) -> str:
    return f"/courses/{course.pk}/assignments/{assignment.pk}/similarity"


def _run_now(client: Any, base: str, sent: list[Any], django_capture_on_commit_callbacks: Any,
             threshold: str = "0.6") -> SimilarityRun:
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post(f"{base}/run", {"threshold": threshold})
    assert response.status_code == 302
    name, args, queue = sent[-1]
    assert name == "similarity.run" and queue == "rejudge"
    services.run_execute(*args)
    return SimilarityRun.objects.get(pk=args[0])


def test_it_answers_a_student_403_and_a_stranger_404(
    client: Any, setting: Any, alice: Any, sent: list[Any]
) -> None:
    ines, course, assignment = setting
    base = _base(course, assignment)
    run = SimilarityRun.objects.create(assignment=assignment, threshold=0.6, status="done")
    pair = SimilarityPair.objects.create(
        run=run, problem=assignment.items.get().problem, score=0.9,
        a_submission=alice.submissions.get(), b_submission=alice.submissions.get())
    urls = [base, f"{base}/runs/{run.pk}/progress", f"{base}/pairs/{pair.pk}"]
    assert client.get(base).status_code == 302  # anonymous: the login page
    client.force_login(alice)
    assert [client.get(u).status_code for u in urls] == [403, 403, 403]
    assert client.post(f"{base}/run").status_code == 403
    client.force_login(quick_user("stranger"))
    assert [client.get(u).status_code for u in urls] == [404, 404, 404]
    assert client.post(f"{base}/run").status_code == 404
    assert not sent and SimilarityRun.objects.count() == 1
    client.force_login(ines)
    assert [client.get(u).status_code for u in urls] == [200, 200, 200]
    other = make_assignment(course, [], title="Week 2")
    assert client.get(f"{_base(course, other)}/pairs/{pair.pk}").status_code == 404
    assert client.get(f"/courses/{course.pk}/assignments/999999/similarity").status_code == 404


def test_the_course_manage_page_links_each_assignments_similarity(client: Any, setting: Any) -> None:
    ines, course, assignment = setting
    client.force_login(ines)
    assert f'href="{_base(course, assignment)}"' in client.get(f"/courses/{course.pk}/manage").content.decode()


def test_site_staff_who_may_read_students_code_may_read_it_without_being_in_the_course(
    client: Any, setting: Any, bare_staff: Any
) -> None:
    _, course, assignment = setting
    client.force_login(bare_staff)
    response = client.get(_base(course, assignment))
    assert response.status_code == 403 and b"staff.read_submissions" in response.content
    grant(bare_staff, READ_SUBMISSIONS)
    page = client.get(_base(course, assignment))
    assert page.status_code == 200
    assert f'href="/courses/{course.pk}/manage"' not in page.content.decode()  # not his course


def test_a_run_from_the_page_shows_its_progress_then_the_ranked_pairs(
    client: Any, setting: Any, sent: list[Any], django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ines, course, assignment = setting
    base = _base(course, assignment)
    client.force_login(ines)
    page = client.get(base).content.decode()
    assert 'id="similarity-run-btn"' in page and 'value="0.6"' in page

    seen: list[tuple[str, int, int]] = []
    real_compare = services.compare.compare

    def watched(inputs: Any, threshold: float, progress: Any = None) -> Any:
        def spy(done: int, total: int) -> None:
            progress(done, total)
            run = SimilarityRun.objects.get()
            seen.append((run.status, run.done, run.total))
        return real_compare(inputs, threshold, spy)

    monkeypatch.setattr(services.compare, "compare", watched)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"{base}/run", {"threshold": "0.6"})
    run = SimilarityRun.objects.get()
    progress = client.get(f"{base}/runs/{run.pk}/progress").json()
    assert progress == {"status": "queued", "done": 0, "total": 0, "percent": 0,
                        "finished": False, "message": ""}
    page = client.get(base).content.decode()
    assert "data-progress-url" in page and "similarity.js" in page and "disabled" in page
    services.run_execute(*sent[-1][1])
    assert seen and seen[-1] == ("running", 4, 4)  # three solutions and one problem
    progress = client.get(f"{base}/runs/{run.pk}/progress").json()
    assert progress["status"] == "done" and progress["percent"] == 100 and progress["finished"]

    page = client.get(base).content.decode()
    assert "data-progress-url" not in page
    rows = SimilarityPair.objects.filter(run=run)
    assert [(p.a_submission.user.username, p.b_submission.user.username) for p in rows] == [
        ("alice", "cid")]
    assert 'data-a="alice" data-b="cid"' in page and "bob" not in page.split("similarity-pairs")[1]


def test_the_pair_page_shows_both_sides_escaped_with_the_shared_runs_marked(
    client: Any, setting: Any, sent: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    ines, course, assignment = setting
    client.force_login(ines)
    base = _base(course, assignment)
    run = _run_now(client, base, sent, django_capture_on_commit_callbacks)
    pair = run.pairs.get()
    page = client.get(f"{base}/pairs/{pair.pk}").content.decode()
    assert "<script>alert(1)" not in page and "&lt;script&gt;alert(1)" in page
    assert page.count("<mark>") > 2 and "make_batch" in page and "pad_batch" in page
    assert 'id="pair-score">0.9' in page
    for student in ("alice", "cid"):
        user_id = (pair.a_submission if student == "alice" else pair.b_submission).user_id
        assert f'href="/courses/{course.pk}/students/{user_id}/problems/48"' in page


def test_a_second_run_waits_for_the_first_and_a_lost_one_is_given_up(
    client: Any, setting: Any, sent: list[Any], django_capture_on_commit_callbacks: Any
) -> None:
    ines, course, assignment = setting
    client.force_login(ines)
    base = _base(course, assignment)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"{base}/run", {"threshold": "0.5"})
        response = client.post(f"{base}/run", {"threshold": "0.5"}, follow=True)
    assert "already going: wait for it" in response.content.decode()
    assert SimilarityRun.objects.count() == 1 and len(sent) == 1
    SimilarityRun.objects.update(created_at=ago(hours=1))
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"{base}/run", {"threshold": "0.5"})
    first, second = SimilarityRun.objects.order_by("id")
    assert first.status == RunStatus.FAILED and "did not finish within 15 minutes" in first.message
    assert second.status == RunStatus.QUEUED and len(sent) == 2


@pytest.mark.parametrize("threshold", ["2", "-1", "abc", "nan"])
def test_a_bad_threshold_is_refused_with_the_range(
    client: Any, setting: Any, sent: list[Any], threshold: str
) -> None:
    ines, course, assignment = setting
    client.force_login(ines)
    response = client.post(f"{_base(course, assignment)}/run", {"threshold": threshold}, follow=True)
    assert response.status_code == 200 and "must be a number from 0 to 1" in response.content.decode()
    assert not SimilarityRun.objects.exists()


def test_a_run_the_queue_cannot_take_says_so(
    client: Any, setting: Any, monkeypatch: pytest.MonkeyPatch,
    django_capture_on_commit_callbacks: Any,
) -> None:
    ines, course, assignment = setting

    def down(*args: Any, **kwargs: Any) -> None:
        raise ConnectionError("redis is down")

    monkeypatch.setattr(services, "enqueue", down)
    client.force_login(ines)
    with django_capture_on_commit_callbacks(execute=True):
        client.post(f"{_base(course, assignment)}/run", {"threshold": "0.6"})
    run = SimilarityRun.objects.get()
    assert run.status == RunStatus.FAILED and "task queue could not be reached" in run.message
    assert "task queue could not be reached" in client.get(_base(course, assignment)).content.decode()


def test_a_run_keeps_its_highest_pairs_and_says_how_many_it_found(
    client: Any, setting: Any, sent: list[Any], django_capture_on_commit_callbacks: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ines, course, assignment = setting
    monkeypatch.setattr(SimilarityPair, "MAX_STORED", 1)
    client.force_login(ines)
    base = _base(course, assignment)
    run = _run_now(client, base, sent, django_capture_on_commit_callbacks, threshold="0")
    assert run.pairs_found == 3 and run.pairs.count() == 1
    assert run.pairs.get().a_submission.user.username == "alice"  # alice ~ cid, the highest
    page = " ".join(client.get(base).content.decode().split())
    assert "3 at or above 0; the 1 highest are listed" in page

