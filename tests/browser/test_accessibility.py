"""The main pages pass an automated accessibility check (axe-core, run in the page by Playwright)
with no serious or critical violation, in the light theme and in the dark one the system asks
for; a keyboard user can skip to the content and leave the code editor without a mouse.

axe-core is a devDependency of package.json (scripts/build_assets's ``npm ci`` installs it into
node_modules/; it is never served). It is evaluated through the DevTools protocol, so the
page's Content-Security-Policy stays as strict as in production (the page fixture fails on a
violation). No worker: the result pages are submissions judged inline by the fake engine
(tests/judge_cast.py), their benchmark given a roofline to draw.
"""

from __future__ import annotations

import subprocess
from typing import Any

import pytest
from browser_kit import ARTIFACTS, PROBLEM_48, ROOT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

AXE = ROOT / "node_modules" / "axe-core" / "axe.min.js"
BLOCKING = {"serious", "critical"}
PEAK = {"memory_gbps": 20.0, "gflops": 100.0, "measured_at": "2026-12-05T04:00:00+00:00",
        "source": "measured"}
BENCH = {
    "speedup": 1.5, "submission_ms": 2.0, "baseline_ms": 3.0,
    "shapes": [
        {"name": "logits", "submission_ms": 2.0, "baseline_ms": 3.0, "speedup": 1.5,
         "sol_ms": 0.5, "sol_fraction": 0.25, "bound": "compute",
         "bytes": 3 * 2**20, "flops": 2**28},
        {"name": "gather", "submission_ms": 0.5, "baseline_ms": 1.0, "speedup": 2.0,
         "sol_ms": 0.1, "sol_fraction": 0.2, "bound": "memory", "bytes": 2**21, "flops": 0},
    ],
}


@pytest.fixture(scope="module")
def axe_source() -> str:
    if not AXE.is_file():  # node_modules/ predates the devDependency: build_assets installs it
        proc = subprocess.run([str(ROOT / "scripts" / "build_assets")], capture_output=True, text=True)
        assert proc.returncode == 0, f"scripts/build_assets failed:\n{proc.stdout}\n{proc.stderr}"
    return AXE.read_text()


def violations(page: Any, axe_source: str) -> list[str]:
    """The serious and critical violations axe finds on the page as it is now, one line each
    (rule, impact, the first offending elements)."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(axe_source)
    found = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, help: v.help,"
        " nodes: v.nodes.slice(0, 3).map(n => n.target.join(' ') + ': ' + n.failureSummary)}))"
    )
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {v['nodes']}"
        for v in found if v["impact"] in BLOCKING
    ]


def check(page: Any, axe_source: str, name: str) -> None:
    """No blocking violation in the light theme, then in the dark one."""
    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        found = violations(page, axe_source)
        if found or scheme == "dark":  # the dark one is kept for a person to look at
            page.screenshot(path=str(ARTIFACTS / f"a11y-{name}-{scheme}.png"), full_page=True)
        assert not found, f"{name} ({scheme}): " + "\n".join(found)
    page.emulate_media(color_scheme="light")


def judged(user: Any, problem: Any, code: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """A Submit judged at once by the fake engine (as tests/pages' inline_judging)."""
    from judge_cast import FakeEngine

    from judge_site.submissions import services

    monkeypatch.setattr(services, "_judge_source", FakeEngine())
    monkeypatch.setattr(services, "_load_package", lambda path: object())
    monkeypatch.setattr(
        services, "_enqueue", lambda sid, queue, countdown=0: services.submission_judge(sid)
    )
    return services.submission_create(user, problem, code, "submit")


def log_in(page: Any, username: str) -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", f"{username}-pass-123")
    page.click("main button[type=submit]")
    page.wait_for_selector(".nav-user .username")


def focused(page: Any) -> str:
    """The focused element: its id, else its tag and text."""
    return page.evaluate(
        "() => { const e = document.activeElement;"
        " return e.id || (e.tagName.toLowerCase() + ':' + (e.textContent || '').trim()); }"
    )


def test_the_main_pages_have_no_serious_violation_in_either_theme(
    page, axe_source, problem48, monkeypatch
):
    from judge_cast import grant, make_user

    from judge_site.courses.models import Membership, Role
    from judge_site.courses.services import assignment_create, course_create
    from judge_site.submissions.models import Submission

    alice, ines = make_user("alice"), make_user("ines")
    grant(ines, "courses.create_course")
    course = course_create(ines, "LLM internals")
    Membership.objects.create(course=course, user=alice, role=Role.STUDENT)
    assignment_create(ines, course, {
        "title": "Week 1", "problems": [48],
        "opens_at": "2026-01-01T00:00:00+00:00", "due_at": "2036-01-01T00:00:00+00:00",
    })
    correct = (PROBLEM_48 / "solutions" / "AC" / "gather.py").read_text()
    wrong = judged(alice, problem48, "# WRONG\n" + correct, monkeypatch)
    right = judged(alice, problem48, correct, monkeypatch)
    Submission.objects.filter(pk=right.pk).update(benchmark=BENCH, environment={"peak": PEAK})

    page.goto("/accounts/login/")  # the anonymous layout, links inside sentences
    check(page, axe_source, "login")
    log_in(page, "alice")
    page.goto("/")
    check(page, axe_source, "problem-list")

    page.goto("/problems/48/")
    page.wait_for_selector(".CodeMirror")
    page.wait_for_selector("#statement .math.katex-done")
    check(page, axe_source, "problem")

    page.goto(f"/submissions/{wrong.pk}/")
    page.wait_for_selector(".status-line[data-status=done]")
    check(page, axe_source, "result-wa")
    page.goto(f"/submissions/{right.pk}/")
    page.wait_for_selector("svg.roofline")
    check(page, axe_source, "result-ac")

    page.goto(f"/courses/{course.pk}/")
    check(page, axe_source, "course")
    # The dark theme is the system's choice, applied by CSS alone.
    page.emulate_media(color_scheme="dark")
    background = page.evaluate("() => getComputedStyle(document.body).backgroundColor")
    page.emulate_media(color_scheme="light")
    assert background != page.evaluate("() => getComputedStyle(document.body).backgroundColor")


def test_a_keyboard_user_skips_to_the_content_and_leaves_the_editor(page, problem48):
    # Anonymous: no draft is saved, so no request of the page outlives the test (a draft's
    # beacon when the page closes would race the database's flush).
    page.goto("/problems/48/")
    editor = page.wait_for_selector(".CodeMirror")

    page.keyboard.press("Tab")  # the first stop of every page is the skip link
    assert focused(page) == "a:Skip to content"
    page.keyboard.press("Enter")
    assert focused(page) == "content"

    hint = page.locator("#editor-keys")
    assert "Esc" in hint.inner_text() and hint.is_visible()
    described = page.evaluate(
        "() => document.querySelector('.CodeMirror').CodeMirror.getInputField()"
        ".getAttribute('aria-describedby')"
    )
    assert "editor-keys" in (described or "").split()

    editor.click()
    page.keyboard.press("Control+Home")
    page.keyboard.press("Tab")  # Tab indents inside the editor and keeps the focus there
    value = page.evaluate("() => document.querySelector('.CodeMirror').CodeMirror.getValue()")
    assert value.startswith("    ")
    assert page.evaluate("() => document.querySelector('.CodeMirror').CodeMirror.hasFocus()")

    page.keyboard.press("Escape")  # Esc then Tab: out, to the next control after the editor
    page.keyboard.press("Tab")
    assert focused(page) == "a:Log in to run or submit"
    page.keyboard.press("Shift+Tab")  # a plain Shift+Tab from there comes back in
    assert page.evaluate("() => document.querySelector('.CodeMirror').CodeMirror.hasFocus()")
    page.keyboard.press("Escape")  # Esc then Shift+Tab: out, to the control before it
    page.keyboard.press("Shift+Tab")
    assert not page.evaluate("() => document.querySelector('.CodeMirror').CodeMirror.hasFocus()")
    assert page.evaluate("() => document.activeElement.closest('#statement, .page-title') !== null")

    # Without CodeMirror (scripts/build_assets not run) the plain textarea keeps the same keys.
    page.route("**/vendor/codemirror/**", lambda route: route.abort())
    page.goto("/problems/48/")
    assert page.locator(".CodeMirror").count() == 0  # the page has loaded: no editor was made
    page.focus("#code")
    page.keyboard.press("Control+Home")
    page.keyboard.press("Tab")
    assert page.input_value("#code").startswith("    ") and focused(page) == "code"
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert focused(page) == "a:Log in to run or submit"
