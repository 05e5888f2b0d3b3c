"""An LTI launch in a real browser: from the simulated LMS's course page (tests/lti/
lti_platform.py, a real HTTP server with its own key pair) the student follows the tool's
link, the tool's OIDC login sends the browser to the platform's authorization endpoint, whose
auto-posting form delivers the signed id_token to /lti/launch/; the student lands signed in on
the assignment's problem, presses Submit, and the grade reaches the platform's AGS endpoint,
sent by the Celery worker that wrote the verdict (on the worker's own queue).

The worker runs the fake engine of tests/judge_cast.py (the course journey's reason: the grade
needs the verdict only), on the local backend: no compose stack."""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import pytest
from browser_kit import JudgeWorker, private_queue

from tests.lti.lti_platform import CLIENT_ID, CONTEXT_ID, DEPLOYMENT_ID, ISSUER, Platform

pytestmark = [pytest.mark.browser, pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_launch_from_the_lms_to_a_grade_in_its_gradebook(
    page: Any, live_server: Any, problem48: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lti_tool.models import LtiContext, LtiDeployment, LtiRegistration

    from judge_site.lti.models import CourseLink, GradePush, PushState
    from tests.courses.course_cast import instructor, make_assignment, make_course

    queue = private_queue(monkeypatch, "lti")
    worker = JudgeWorker(queue, env={"JUDGE_BROWSER_FAKE_ENGINE": "1", "LTI_GRADE_QUEUE": queue},
                         name="lti-worker")
    worker.start()
    try:
        with Platform() as platform:
            # The browser reaches the LMS by the live server's host name: one site, as a
            # platform and a tool on one campus domain are.
            platform.url = platform.url.replace("127.0.0.1", urlsplit(live_server.url).hostname)
            registration = LtiRegistration.objects.create(
                name="Example LMS", issuer=ISSUER, client_id=CLIENT_ID,
                auth_url=f"{platform.url}/auth", token_url=f"{platform.url}/token",
                keyset_url=f"{platform.url}/jwks",
            )
            deployment = LtiDeployment.objects.create(
                registration=registration, deployment_id=DEPLOYMENT_ID, is_active=True
            )
            course = make_course(instructor(), "LLM internals")
            context = LtiContext.objects.create(deployment=deployment, id_on_platform=CONTEXT_ID)
            CourseLink.objects.create(context=context, course=course)
            week = make_assignment(course, [problem48], title="Week 1")
            with urllib.request.urlopen(f"{live_server.url}/lti/jwks/") as answer:
                platform.tool_jwks = json.load(answer)
            platform.launch_form = {
                "tool": live_server.url, "sub": "lms-sam",
                "custom": {"assignment_id": str(week.pk)},
            }

            page.goto(f"{platform.url}/course")
            page.click("#tool-link")
            page.wait_for_url("**/problems/48/")
            assert page.inner_text(".nav-user .username").startswith("sam-student-")
            page.wait_for_selector(".CodeMirror")
            page.evaluate("(c) => document.querySelector('.CodeMirror').CodeMirror.setValue(c)",
                          "def embed(ids, weight, pad_id):\n    return weight[ids]\n")
            page.click("#submit-btn")
            done = page.wait_for_selector("#results .status-line[data-status=done]",
                                          timeout=60_000)
            assert done.get_attribute("data-verdict") == "AC"

            deadline = time.monotonic() + 60
            while platform.latest_score(1) is None and time.monotonic() < deadline:
                time.sleep(0.3)
            score = platform.latest_score(1)
            assert score is not None, f"no score reached the platform:\n{worker.log()[-3000:]}"
            assert score["scoreGiven"] == 1 and score["userId"] == "lms-sam"
            assert GradePush.objects.get().state == PushState.SENT
    finally:
        worker.stop()
