"""The editor's draft, kept on the server per user and problem (the page saves it as the
student types; the browser journey in tests/browser checks the page's side)."""

from __future__ import annotations

import html

import pytest
from django.test import Client
from judge_cast import make_problem

from judge_site.catalog.models import Draft

pytestmark = pytest.mark.django_db(transaction=True)

MINE = "# my attempt <b>\ndef embed(ids, weight, pad_id):\n    return None\n"


def editor_text(page: str) -> str:
    start = page.index(">", page.index('aria-label="Your solution"')) + 1
    raw = page[start : page.index("</textarea>", start)]
    return html.unescape(raw.removeprefix("\n"))  # a browser drops the textarea's first newline


def test_a_draft_is_kept_for_its_user_and_problem_only(client: Client, alice, bob, problem):
    other = make_problem(51, slug="other")
    client.force_login(alice)
    assert client.post("/problems/48/draft", {"code": MINE}).status_code == 204
    assert editor_text(client.get("/problems/48/").content.decode()) == MINE
    assert editor_text(client.get("/problems/51/").content.decode()) == other.starter_code
    # Saving again updates the one draft.
    assert client.post("/problems/48/draft", {"code": MINE + "# more\n"}).status_code == 204
    assert Draft.objects.get(user=alice, problem=problem).code.endswith("# more\n")
    assert Draft.objects.count() == 1
    # Bob (and an anonymous reader) see the starter, never Alice's code.
    bob_client = Client()
    bob_client.force_login(bob)
    assert editor_text(bob_client.get("/problems/48/").content.decode()) == problem.starter_code
    assert "my attempt" not in Client().get("/problems/48/").content.decode()


def test_reset_and_the_starter_itself_leave_no_draft(client: Client, alice, problem):
    client.force_login(alice)
    client.post("/problems/48/draft", {"code": MINE})
    assert client.post("/problems/48/draft", {"reset": "1"}).status_code == 204
    assert not Draft.objects.exists()
    client.post("/problems/48/draft", {"code": MINE})
    client.post("/problems/48/draft", {"code": problem.starter_code.replace("\n", "\r\n")})
    assert not Draft.objects.exists()
    assert editor_text(client.get("/problems/48/").content.decode()) == problem.starter_code


def test_bad_drafts_are_refused_with_a_message(client: Client, alice, problem, settings):
    settings.JUDGE_MAX_CODE_BYTES = 100
    # Anonymous: nothing kept, a message that says to log in.
    response = Client().post("/problems/48/draft", {"code": MINE})
    assert response.status_code == 401 and "log in" in response.json()["error"]
    client.force_login(alice)
    response = client.post("/problems/48/draft", {"code": "#" * 101})
    assert response.status_code == 400 and "limit is 100 bytes" in response.json()["error"]
    response = client.post("/problems/48/draft", {"code": "x = 1\x00"})
    assert response.status_code == 400 and "NUL" in response.json()["error"]
    assert client.post("/problems/99/draft", {"code": MINE}).status_code == 404
    make_problem(50, slug="hidden", published=False)
    assert client.post("/problems/50/draft", {"code": MINE}).status_code == 404
    assert client.get("/problems/48/draft").status_code == 405
    assert not Draft.objects.exists()


def test_a_draft_needs_the_csrf_token(alice, problem):
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice)
    assert client.post("/problems/48/draft", {"code": MINE}).status_code == 403
    assert not Draft.objects.exists()
