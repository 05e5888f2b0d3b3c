"""The site's Content-Security-Policy (own scripts and styles only) in a real Chromium: the
problem page (CodeMirror, KaTeX, the page's scripts) works without one violation, and the
policy really refuses what it should (an inline script), so the check above is not vacuous.

The ``page`` fixture fails any test whose pages cause a violation (see conftest.py)."""

from __future__ import annotations

import pytest
from browser_kit import CSP_LISTENER

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_problem_page_works_under_the_policy(page, problem48):
    response = page.goto("/problems/48/")
    policy = response.headers["content-security-policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";") if d.strip())
    assert directives["script-src"] == "'self'" and directives["style-src"] == "'self'"
    assert "unsafe" not in policy.replace("style-src-attr 'unsafe-inline'", "")
    page.wait_for_selector(".CodeMirror")
    math = page.locator("#statement .math")
    assert math.count() > 0
    assert math.count() == page.locator("#statement .math.katex-done").count()
    page.goto("/accounts/login/")
    page.goto("/leaderboard/")


def test_an_inline_script_is_refused_and_reported(browser, live_server, built_assets, problem48):
    context = browser.new_context(base_url=live_server.url)
    context.add_init_script(CSP_LISTENER)
    tab = context.new_page()
    seen: list[str] = []
    tab.on("console", lambda msg: seen.append(msg.text))
    try:
        tab.goto("/problems/48/")
        tab.evaluate(
            """() => {
            const s = document.createElement("script");
            s.textContent = "window.__inlineRan = true";
            document.body.appendChild(s);
        }"""
        )
        for _ in range(50):  # the report is asynchronous: wait for it, up to ~10 s
            if any("CSP_VIOLATION" in text for text in seen):
                break
            tab.wait_for_timeout(200)
        assert any("CSP_VIOLATION script-src" in text for text in seen), seen
        assert tab.evaluate("() => window.__inlineRan === undefined")
    finally:
        context.close()
