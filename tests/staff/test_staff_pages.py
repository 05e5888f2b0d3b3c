"""The staff pages, the admin's problems and submissions, the dashboard and /metrics."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
from judge_cast import grant, make_user

from judge_site.accounts.models import ApiToken
from judge_site.core.roles import PUBLISH, READ_SUBMISSIONS, REJUDGE, UPLOAD, VIEW_METRICS
from judge_site.staff.models import AuditEntry
from judge_site.submissions.models import Status, Submission

TEMPLATES = Path(__file__).resolve().parents[2] / "judge_site" / "staff" / "templates"


def _judged(user: Any, problem: Any, verdict: str = "WA", message: str = "") -> Submission:
    return Submission.objects.create(
        user=user, problem=problem, code="def f(): WRONG", status=Status.DONE, verdict=verdict,
        message=message, problem_version=problem.version, finished_at=problem.created_at,
        started_at=problem.created_at,
        tests=[{"name": "hidden_1", "public": False, "verdict": "WA", "message": "values differ",
                "wrong_kind": "value", "time_ms": 3.0,
                "details": {"worst": "at [7]: expected 1.5, got 2.5"}}],
        environment={"backend": "local", "torch": "2.13.0"},
    )


@pytest.mark.django_db
@pytest.mark.parametrize("url", ["/staff/", "/staff/upload/", "/staff/problems/48/",
                                 "/admin/catalog/problem/", "/admin/submissions/submission/",
                                 "/admin/staff/auditentry/"])
def test_staff_pages_are_for_staff_only(client: Any, alice: Any, charlie: Any, problem: Any,
                                        url: str) -> None:
    client.force_login(alice)
    response = client.get(url)
    assert response.status_code == 302 and "login" in response["Location"]
    client.force_login(charlie)
    charlie.is_superuser = True  # the admin's model pages also need model permissions
    charlie.save()
    assert client.get(url).status_code == 200


TOY_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "problems" / "900-toy"


@pytest.fixture(scope="module")
def hidden_failure() -> Any:
    """A real local judging (the real grader, the local backend) of the toy's solution that
    fails only its hidden test ``large``: the complete result, as the worker stores it."""
    from sandbox.grader.contracts import Mode
    from sandbox.grader.entry import judge
    from sandbox.grader.package import load_package
    from sandbox.host.backends.base import get_backend

    source = (TOY_DIR / "solutions" / "WA" / "hidden_only.py").read_text()
    result = judge(load_package(TOY_DIR), source, mode=Mode.SUBMIT, backend=get_backend("local"),
                   kernels_root=TOY_DIR / "kernels_root")
    return source, result


@pytest.mark.django_db
def test_a_submission_shows_staff_everything_and_the_student_what_the_policy_allows(
    client: Any, alice: Any, charlie: Any, problem: Any, hidden_failure: Any
) -> None:
    from judge_site.submissions.models import fields_from_result

    source, result = hidden_failure
    sub = Submission.objects.create(
        user=alice, problem=problem, code=source, status=Status.DONE, mode="submit",
        started_at=problem.created_at, finished_at=problem.created_at,
        **fields_from_result(result, problem.version),
    )
    large = next(t for t in sub.tests if t["name"] == "large")
    assert not large["public"] and large["verdict"] == "WA"
    assert "worst element at index" in large["message"], "the grader keeps the details"
    worst = f"expected {large['details']['expected']:.6g}"
    assert sub.secret_seed is not None and sub.secret_seed == result.secret_seed
    client.force_login(charlie)
    page = client.get(f"/staff/submissions/{sub.pk}/").content.decode()
    for text in ("if x.numel() &gt; 1000", "large", "worst element at index", worst,
                 f"--seed {sub.secret_seed}", "waited / judged"):
        assert text in page, text
    client.force_login(alice)  # the student: her page and the API say what the policy allows
    page = client.get(f"/submissions/{sub.pk}/").content.decode()
    api = client.get(f"/api/v1/submissions/{sub.pk}").json()
    (shown,) = [t for t in api["tests"] if t["name"] == "large"]
    assert shown["message"] == "wrong answer: value" and shown["details"] == {}
    assert shown["time_ms"] is None
    for text in (worst, "worst element", str(sub.secret_seed)):
        assert text not in page and text not in json.dumps(api), text
    assert "wrong answer: value" in page


@pytest.mark.django_db
def test_the_admin_lists_problems_with_counts_and_publishes_through_the_service(
    client: Any, alice: Any, bob: Any, charlie: Any, problem: Any
) -> None:
    _judged(alice, problem, "AC")
    _judged(bob, problem, "WA")
    charlie.is_superuser = True
    charlie.save()
    client.force_login(charlie)
    page = client.get("/admin/catalog/problem/").content.decode()
    assert re.search(r'field-solved">1<', page) and re.search(r'field-tried">2<', page)
    response = client.post("/admin/catalog/problem/", {
        "action": "unpublish", "_selected_action": [problem.pk]})
    assert response.status_code == 302
    problem.refresh_from_db()
    assert not problem.published
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.target, entry.actor) == ("problem.unpublish", "problem 48", charlie)
    page = client.get("/admin/submissions/submission/?verdict__exact=AC&q=alice").content.decode()
    assert "alice" in page and "bob" not in page


@pytest.mark.django_db
def test_the_staff_problem_page_publishes_and_unpublishes(client: Any, charlie: Any,
                                                         problem: Any) -> None:
    client.force_login(charlie)
    client.post("/staff/problems/48/publish/", {"published": "0"})
    problem.refresh_from_db()
    assert not problem.published
    client.post("/staff/problems/48/publish/", {"published": "1"})
    problem.refresh_from_db()
    assert problem.published
    assert [e.action for e in AuditEntry.objects.order_by("at")] == [
        "problem.unpublish", "problem.publish"]


@pytest.mark.django_db
def test_the_dashboard_shows_the_figures(client: Any, alice: Any, charlie: Any,
                                         problem: Any) -> None:
    _judged(alice, problem, "IE", message="internal error: the sandbox image is missing")
    Submission.objects.create(user=alice, problem=problem, code="x")  # waiting
    client.force_login(charlie)
    page = client.get("/staff/").content.decode()
    assert 'data-queue="cpu"' in page and 'data-queue="rejudge"' in page
    assert "the sandbox image is missing" in page
    assert "judgings waiting" in page


@pytest.mark.django_db
def test_metrics_refuse_a_staff_account_without_view_metrics(client: Any, settings: Any) -> None:
    settings.JUDGE_METRICS_TOKEN = "s3cret-metrics-token"
    dora = make_user("dora", staff=True)  # staff, every other capability, not view_metrics
    grant(dora, UPLOAD, PUBLISH, REJUDGE, READ_SUBMISSIONS)
    token = ApiToken.objects.create(user=dora, key=ApiToken.generate_key()).key
    client.force_login(dora)
    refused = client.get("/metrics")
    assert refused.status_code == 403 and VIEW_METRICS in refused.content.decode()
    assert "judge_" not in refused.content.decode()
    client.logout()
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 403
    client.force_login(make_user("eve", staff=True))  # staff with no permission at all
    assert client.get("/metrics").status_code == 403
    client.logout()
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-metrics-token").status_code == 200
    grant(dora, VIEW_METRICS)
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {token}").status_code == 200
    client.force_login(dora)
    assert "# TYPE judge_queue_length gauge" in client.get("/metrics").content.decode()
    root = make_user("root", staff=True)
    root.is_superuser = True
    root.save()
    client.force_login(root)
    assert client.get("/metrics").status_code == 200


@pytest.mark.django_db
def test_metrics_answer_staff_and_the_configured_token_only(
    client: Any, alice: Any, charlie: Any, problem: Any, settings: Any
) -> None:
    settings.JUDGE_METRICS_TOKEN = "s3cret-metrics-token"
    _judged(alice, problem, "AC")
    assert client.get("/metrics").status_code == 401
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer wrong").status_code == 401
    student_token = ApiToken.objects.create(user=alice, key=ApiToken.generate_key()).key
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {student_token}").status_code == 401
    client.force_login(alice)
    assert client.get("/metrics").status_code == 401
    client.logout()
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer s3cret-metrics-token")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    assert {"private", "no-store"} <= {p.strip() for p in response["Cache-Control"].split(",")}
    text = response.content.decode()
    assert "# TYPE judge_queue_length gauge" in text
    assert re.search(r'^judge_queue_length\{queue="rejudge"\} \d+\.0$', text, re.M)
    assert re.search(r'^judge_verdicts_last_hour\{verdict="AC"\} 1\.0$', text, re.M)
    assert re.search(r"^judge_judgings_per_minute [0-9.e-]+$", text, re.M)
    staff_token = ApiToken.objects.create(user=charlie, key=ApiToken.generate_key()).key
    assert client.get("/metrics", HTTP_AUTHORIZATION=f"Bearer {staff_token}").status_code == 200
    client.force_login(charlie)
    assert client.get("/metrics").status_code == 200
    # Every sample line parses as Prometheus text: name{labels} value.
    sample = re.compile(r'^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? -?[0-9.e+-]+$')
    for line in text.splitlines():
        assert line.startswith("# ") or sample.match(line), line
    settings.JUDGE_METRICS_TOKEN = ""
    client.logout()
    assert client.get("/metrics", HTTP_AUTHORIZATION="Bearer ").status_code == 401


@pytest.mark.django_db
def test_the_worker_heartbeat_counts_as_alive(settings: Any) -> None:
    from judge_site.staff.services.ops import ops_figures
    from judge_site.worker import heartbeat

    class Sender:
        hostname = f"test-heartbeat-{time.monotonic_ns()}@here"

        class app:  # noqa: N801
            class amqp:  # noqa: N801
                class queues:  # noqa: N801
                    consume_from = {"cpu": None}

    heartbeat._start_heartbeat(sender=Sender)
    try:
        deadline = time.monotonic() + 20
        while True:
            workers = [w for w in ops_figures().workers if w["hostname"] == Sender.hostname]
            if workers or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        assert workers and workers[0]["queues"] == ["cpu"]
    finally:
        heartbeat._stop_heartbeat(sender=Sender)
    raw = heartbeat.redis_client().get(heartbeat.HEARTBEAT_PREFIX + Sender.hostname)
    assert raw is None or json.loads(raw)["hostname"] == Sender.hostname
    heartbeat.redis_client().hdel(heartbeat.HOSTS_KEY, Sender.hostname)


def test_staff_templates_carry_no_inline_script_or_style() -> None:
    for template in TEMPLATES.rglob("*.html"):
        text = template.read_text()
        assert "style=" not in text, template
        assert not re.search(r"<script(?![^>]*\bsrc=)", text), template
        assert not re.search(r"\son[a-z]+=", text), template


@pytest.mark.django_db
def test_a_change_in_the_admin_forms_is_audited(client: Any, alice: Any, charlie: Any) -> None:
    charlie.is_superuser = True
    charlie.save()
    client.force_login(charlie)
    response = client.post(f"/admin/auth/user/{alice.pk}/change/", {
        "username": "alice", "is_active": "on", "is_staff": "on",
        "date_joined_0": "2026-01-01", "date_joined_1": "00:00:00",
        "initial-date_joined_0": "2026-01-01", "initial-date_joined_1": "00:00:00",
    })
    assert response.status_code == 302, response.content.decode()[:2000]
    entry = AuditEntry.objects.get(action="admin.change")
    assert entry.actor == charlie and entry.target == "user alice"
    assert "Staff status" in json.dumps(entry.detail) or "is_staff" in json.dumps(entry.detail)


@pytest.mark.django_db
def test_the_admin_index_and_the_site_link_to_the_staff_pages(client: Any, charlie: Any) -> None:
    client.force_login(charlie)
    assert 'href="/staff/upload/"' in client.get("/admin/").content.decode()
    assert '<a href="/staff/">Staff</a> <a href="/admin/">' in client.get("/staff/upload/").content.decode()
