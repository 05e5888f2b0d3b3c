"""Security headers: the Content-Security-Policy on every page, and templates that need no
inline code to work under it (the browser suite checks the same in Chromium)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted((ROOT / "judge_site").glob("**/templates/**/*.html"))
# Inline code the policy refuses: <script> with a body, <style> elements, on* handler
# attributes, javascript: URLs (a <script src=...></script> is fine).
INLINE = [
    re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I),
    re.compile(r"<style\b", re.I),
    re.compile(r"""\son[a-z]+\s*=\s*["']""", re.I),
    re.compile(r"javascript:", re.I),
    re.compile(r"""\sstyle\s*=\s*["']""", re.I),
]


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda p: str(p.relative_to(ROOT)))
def test_templates_hold_no_inline_code(template: Path) -> None:
    text = template.read_text()
    found = [m.group(0) for pattern in INLINE for m in pattern.finditer(text)]
    assert not found, f"{template.name}: move {found} to a static file (the CSP refuses it)"


@pytest.mark.django_db
def test_every_page_carries_the_policy(client: Client) -> None:
    for path in ["/", "/accounts/login/", "/accounts/signup/", "/leaderboard/", "/healthz"]:
        policy = client.get(path)["Content-Security-Policy"]
        directives = dict(d.strip().split(" ", 1) for d in policy.split(";") if d.strip())
        assert directives["default-src"] == "'self'"
        assert directives["script-src"] == "'self'"
        assert directives["style-src"] == "'self'"
        assert directives["frame-ancestors"] == "'none'"
        assert directives["object-src"] == "'none'"


def test_the_pygments_stylesheet_is_current() -> None:
    from judge_site.catalog.templatetags.judge_markdown import _pygments_css

    shipped = (ROOT / "judge_site/catalog/static/judge/pygments.css").read_text()
    assert _pygments_css() in shipped, "regenerate judge_site/catalog/static/judge/pygments.css"
