"""The student's pages through Django's test client (the judging is the fake engine)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.test import Client
from judge_cast import make_problem

from judge_site.submissions import services
from judge_site.submissions.models import Status, Submission

pytestmark = pytest.mark.django_db(transaction=True)

GOOD = "def embed(ids, weight, pad_id):\n    return weight[ids]\n"
JSON = {"HTTP_ACCEPT": "application/json"}


def login(client: Client, user) -> Client:
    client.force_login(user)
    return client


def test_the_problem_list_shows_problems_marks_and_acceptance(
    client, alice, problem, inline_judging
):
    make_problem(50, slug="draft", published=False, title="Secret draft")
    make_problem(51, slug="other", title="Another one", difficulty="hard", tags=["softmax"])
    services.submission_create(alice, problem, GOOD, "submit")
    services.submission_create(alice, problem, "WRONG", "submit")
    page = login(client, alice).get("/").content.decode()
    assert "Problem number 48" in page and "Another one" in page
    assert "Secret draft" not in page
    assert 'title="solved"' in page
    assert "50%" in page  # one AC of two judged submissions


def test_the_problem_list_filters(client, alice, problem, inline_judging):
    make_problem(51, slug="other", title="Another one", difficulty="hard", tags=["softmax"])
    services.submission_create(alice, problem, GOOD, "submit")
    login(client, alice)
    assert "Another one" not in client.get("/?difficulty=medium").content.decode()
    assert "Problem number 48" not in client.get("/?tag=softmax").content.decode()
    solved = client.get("/?status=solved").content.decode()
    assert "Problem number 48" in solved and "Another one" not in solved
    todo = client.get("/?status=todo").content.decode()
    assert "Problem number 48" not in todo and "Another one" in todo


def test_the_problem_page_renders_statement_math_code_and_editor(client, alice, problem):
    page = login(client, alice).get("/problems/48/").content.decode()
    assert '<span class="math inline">y = W x</span>' in page
    assert '<div class="math display">\\|x\\|_2 = 1</div>' in page
    assert 'class="highlight"' in page  # Pygments
    assert 'id="code"' in page and "return weight[ids]" in page
    assert "time 5 s per test" in page
    assert 'id="run-btn"' in page and 'id="submit-btn"' in page


def test_anonymous_users_read_but_must_log_in_to_submit(client, problem):
    page = client.get("/problems/48/").content.decode()
    assert "Log in to run or submit" in page and 'id="run-btn"' not in page
    response = client.post("/problems/48/submit", {"code": GOOD, "mode": "run"}, **JSON)
    assert response.status_code == 401 and "log in" in response.json()["error"]
    assert client.post("/problems/48/submit", {"code": GOOD}).status_code == 302
    assert Submission.objects.count() == 0


def test_unpublished_problems_are_404_for_students_and_visible_to_staff(client, alice, charlie):
    make_problem(50, slug="draft", published=False)
    assert login(client, alice).get("/problems/50/").status_code == 404
    assert client.post("/problems/50/submit", {"code": GOOD}, **JSON).status_code == 404
    assert login(Client(), charlie).get("/problems/50/").status_code == 200


def test_run_from_the_page_returns_the_polling_url(client, alice, problem, enqueued):
    response = login(client, alice).post(
        "/problems/48/submit", {"code": GOOD, "mode": "run"}, **JSON
    )
    assert response.status_code == 201
    body = response.json()
    assert body["poll"] == f"/api/v1/submissions/{body['id']}"
    poll = client.get(body["poll"]).json()  # the session is enough to read one's own
    assert (poll["status"], poll["queue_position"]) == ("queued", 1)


@pytest.mark.parametrize(
    ("code", "mode", "words"),
    [("", "run", "code is empty"), ("x" * 70_000, "run", "limit is"), (GOOD, "nope", "mode")],
)
def test_bad_input_gets_a_clear_message(client, alice, problem, enqueued, code, mode, words):
    response = login(client, alice).post(
        "/problems/48/submit", {"code": code, "mode": mode}, **JSON
    )
    assert response.status_code == 400
    assert words in response.json()["error"]
    assert Submission.objects.count() == 0


def test_the_rate_limit_message_is_shown(client, alice, problem, enqueued, settings):
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 1
    login(client, alice).post("/problems/48/submit", {"code": GOOD, "mode": "run"}, **JSON)
    response = client.post("/problems/48/submit", {"code": GOOD, "mode": "run"}, **JSON)
    assert response.status_code == 429 and "per minute" in response.json()["error"]
    assert response["Retry-After"] == "60"
    follow = client.post("/problems/48/submit", {"code": GOOD, "mode": "run"}, follow=True)
    assert "per minute" in follow.content.decode()  # without JS: a message on the page


def test_an_unfinished_submission_is_resumed_on_refresh(client, alice, problem, enqueued):
    sub = services.submission_create(alice, problem, GOOD, "run")
    page = login(client, alice).get("/problems/48/").content.decode()
    assert f'data-resume="/api/v1/submissions/{sub.pk}"' in page


def test_the_submission_page_shows_tests_feedback_and_benchmark(
    client, alice, problem, inline_judging
):
    good = services.submission_create(alice, problem, GOOD, "submit")
    wrong = services.submission_create(alice, problem, "# WRONG\n", "run")
    login(client, alice)
    page = client.get(f"/submissions/{good.pk}/").content.decode()
    assert (
        "Speedup 2.50×" in page
        and "<svg" in page
        and 'hidden_1 <span class="muted">(hidden)</span>' in page
    )
    assert "v-test-1" in page and "return weight[ids]" in page
    page = client.get(f"/submissions/{wrong.pk}/").content.decode()
    assert 'data-verdict="WA"' in page
    assert "worst element at index [1, 2]: expected 0, got 0.5 (abs error 0.5)" in page
    assert "3 of 12 elements differ" in page
    # The lines are computed once: the page's script renders the API's very lines.
    (test,) = [t for t in client.get(f"/api/v1/submissions/{wrong.pk}").json()["tests"]
               if t["verdict"] == "WA"]
    assert test["feedback"] == [
        {"text": "values differ at 3 of 12 elements", "cls": ""},
        {"text": "worst element at index [1, 2]: expected 0, got 0.5 (abs error 0.5)",
         "cls": "worst"},
        {"text": "3 of 12 elements differ", "cls": ""},
    ]
    for line in test["feedback"]:
        cls = f' class="{line["cls"]}"' if line["cls"] else ""
        assert f"<div{cls}>{line['text']}</div>" in page


def test_a_live_submission_page_polls(client, alice, problem, enqueued):
    import json
    import re

    from judge_site.submissions.models import VerdictChoice
    from sandbox.grader.contracts import VERDICT_TEXT

    sub = services.submission_create(alice, problem, GOOD, "run")
    page = login(client, alice).get(f"/submissions/{sub.pk}/").content.decode()
    assert 'id="live-progress"' in page and "position 1 in the queue" in page
    # progress.js reads the verdict words of sandbox/grader/contracts.py, the site's choices too.
    found = re.search(r'<script id="verdict-words" type="application/json">(.*?)</script>', page)
    assert found, "the page carries the verdict words for its script"
    words = json.loads(found.group(1))
    assert words["IE"] == {"label": "Internal error", "says": "internal error (ours, not yours)"}
    assert set(words) == {str(v) for v in VERDICT_TEXT}
    assert dict(VerdictChoice.choices) == {v: words[v]["label"] for v in VerdictChoice.values}


def test_only_the_author_and_staff_see_a_submission(client, alice, bob, charlie, problem, enqueued):
    sub = services.submission_create(alice, problem, GOOD, "run")
    assert login(client, bob).get(f"/submissions/{sub.pk}/").status_code == 404
    staff_page = login(Client(), charlie).get(f"/submissions/{sub.pk}/").content.decode()
    assert "return weight[ids]" in staff_page


def test_history_is_mine_filterable_and_staff_can_see_everyone(
    client, alice, bob, charlie, problem, inline_judging
):
    mine = services.submission_create(alice, problem, GOOD, "submit")
    wrong = services.submission_create(alice, problem, "WRONG", "submit")
    bobs = services.submission_create(bob, problem, GOOD, "submit")
    login(client, alice)
    page = client.get("/submissions/").content.decode()
    assert f'data-id="{mine.pk}"' in page and f'data-id="{bobs.pk}"' not in page
    page = client.get("/submissions/?verdict=WA&problem=48").content.decode()
    assert f'data-id="{wrong.pk}"' in page and f'data-id="{mine.pk}"' not in page
    page = client.get("/submissions/?who=all").content.decode()
    assert f'data-id="{bobs.pk}"' not in page  # only staff may ask for everyone
    page = login(Client(), charlie).get("/submissions/?who=all").content.decode()
    assert f'data-id="{bobs.pk}"' in page and f'data-id="{mine.pk}"' in page


def test_the_leaderboards_rank_speedups_and_solved_counts(
    client, alice, bob, problem, inline_judging
):
    first = services.submission_create(alice, problem, GOOD, "submit")
    second = services.submission_create(bob, problem, GOOD, "submit")
    Submission.objects.filter(pk=second.pk).update(
        benchmark={"speedup": 3.0, "submission_ms": 1, "baseline_ms": 3}
    )
    services.submission_create(bob, problem, GOOD, "run")  # Run never counts
    page = client.get("/problems/48/leaderboard/").content.decode()
    assert page.index("bob") < page.index("alice")
    assert "3.00×" in page and "2.50×" in page
    assert first.pk != second.pk
    overall = client.get("/leaderboard/").content.decode()
    assert "alice" in overall and "bob" in overall


def test_a_tie_goes_to_the_earlier_submission(client, alice, bob, problem, inline_judging):
    services.submission_create(bob, problem, GOOD, "submit")
    services.submission_create(alice, problem, GOOD, "submit")
    page = client.get("/problems/48/leaderboard/").content.decode()
    assert page.index("bob") < page.index("alice")


def test_the_token_page_creates_and_shows_a_token(client, alice):
    login(client, alice)
    assert "no API token yet" in client.get("/accounts/token/").content.decode()
    page = client.post("/accounts/token/", {"action": "create"}).content.decode()
    import re

    from judge_site.accounts.models import ApiToken, token_digest

    shown = re.search(r'id="api-token">([0-9a-f]+)<', page)
    assert shown and token_digest(shown[1]) == ApiToken.objects.get(user=alice).digest


def test_a_queued_submission_shows_queued_in_history(client, alice, problem, enqueued):
    services.submission_create(alice, problem, GOOD, "run")
    page = login(client, alice).get("/submissions/?verdict=queued").content.decode()
    assert Status.QUEUED in page


def test_a_finished_judging_is_shown_again_only_for_a_while(client, alice, problem, inline_judging):
    from datetime import timedelta

    from django.utils import timezone

    sub = services.submission_create(alice, problem, GOOD, "run")
    login(client, alice)
    assert (
        f'data-resume="/api/v1/submissions/{sub.pk}"'
        in client.get("/problems/48/").content.decode()
    )
    Submission.objects.filter(pk=sub.pk).update(created_at=timezone.now() - timedelta(hours=1))
    assert "data-resume=" not in client.get("/problems/48/").content.decode()


def test_the_problem_page_degrades_to_a_textarea_without_built_assets(
    client, alice, problem, monkeypatch
):
    from judge_site.catalog.templatetags import judge_assets

    judge_assets._url.cache_clear()
    monkeypatch.setattr(judge_assets.finders, "find", lambda path: None)
    monkeypatch.setattr(judge_assets.staticfiles_storage, "exists", lambda path: False)
    try:
        page = login(client, alice).get("/problems/48/").content.decode()
    finally:
        judge_assets._url.cache_clear()
    assert "codemirror not built" in page and "vendor/codemirror" not in page
    assert "katex not built" in page and "vendor/katex" not in page
    assert '<textarea id="code"' in page and "judge/problem.js" in page
    assert '<span class="math inline">y = W x</span>' in page  # TeX source stays readable


def test_history_pages_keep_the_filters(client, charlie, problem, enqueued, settings):
    settings.JUDGE_RATE_LIMIT_PER_MINUTE = 100
    settings.JUDGE_MAX_QUEUED_PER_USER = 0  # 51 waiting judgings of one user
    for _ in range(51):
        services.submission_create(charlie, problem, GOOD, "run")
    page = login(client, charlie).get("/submissions/?who=all&problem=48").content.decode()
    assert 'href="?problem=48&amp;who=all&amp;page=2"' in page


NOTES_MARK = "Zero the padding rows after the gather"


def test_solution_notes_reach_a_user_only_after_their_accepted_submit(
    client, alice, bob, inline_judging, tmp_path
):
    """A package's notes.md (any package, not only a practice one) shows on the problem page
    after the user's own AC on a Submit: never before (anonymous, a WA, a Run, someone else's
    AC), never in the API's JSON."""
    (tmp_path / "notes.md").write_text(
        f"**{NOTES_MARK}**: `weight[ids]` copies the pad row.\n\n<script>alert('n')</script>\n"
    )
    problem = make_problem(package_dir=str(tmp_path))
    from judge_site.accounts.models import ApiToken

    key = ApiToken.objects.create(user=alice, key=ApiToken.generate_key()).key
    api = Client(HTTP_AUTHORIZATION=f"Token {key}")
    alice_page = login(client, alice)
    bob_page = login(Client(), bob)

    def everything_seen() -> list[str]:
        return [Client().get("/problems/48/").content.decode(),
                alice_page.get("/problems/48/").content.decode(),
                bob_page.get("/problems/48/").content.decode(),
                api.get("/api/v1/problems").content.decode()]

    anonymous, before, _, listing = everything_seen()
    assert 'id="solution-notes-locked"' in anonymous and 'id="solution-notes-locked"' in before
    # A WA Submit and an accepted Run unlock nothing; neither does the API.
    services.submission_create(alice, problem, "WRONG", "submit")
    services.submission_create(alice, problem, GOOD, "run")
    for seen in everything_seen() + [api.get(f"/api/v1/submissions/{s.pk}").content.decode()
                                     for s in Submission.objects.all()]:
        assert NOTES_MARK not in seen and 'id="solution-notes"' not in seen
    # Alice's AC opens them to her, rendered and sanitized; to nobody else.
    services.submission_create(alice, problem, GOOD, "submit")
    anonymous, after, bobs, listing = everything_seen()
    assert 'id="solution-notes"' in after and f"<strong>{NOTES_MARK}</strong>" in after
    assert "<code>weight[ids]</code>" in after and "alert('n')" not in after
    for seen in (anonymous, bobs, listing):
        assert NOTES_MARK not in seen
    assert 'id="solution-notes-locked"' in anonymous and 'id="solution-notes-locked"' in bobs
    for submission in Submission.objects.filter(user=alice):
        assert NOTES_MARK not in api.get(f"/api/v1/submissions/{submission.pk}").content.decode()


def test_a_problem_without_notes_says_nothing_about_them(client, alice, problem, inline_judging):
    services.submission_create(alice, problem, GOOD, "submit")
    page = login(client, alice).get("/problems/48/").content.decode()
    assert "solution-notes" not in page


def test_a_cuda_problem_opens_its_editor_in_cpp_mode(client, alice, problem):
    make_problem(82, starter_code='extern "C" void solve(const float* x) {}\n',
                 manifest={"language": "cuda", "limits": {"time_s": 20}})
    page = login(client, alice).get("/problems/82/").content.decode()
    assert 'data-language="cuda"' in page
    if "vendor/codemirror/codemirror.js" in page:  # built assets: C++ highlighting is loaded
        assert "vendor/codemirror/mode/clike/clike.js" in page
    assert 'data-language="python"' in client.get("/problems/48/").content.decode()


def test_a_cpp_practice_problem_opens_its_editor_in_cpp_mode(client, alice, problem):
    harness = {"harness": "cpp", "sanitize": "", "main": "test.cpp", "files": ["judge.hpp"]}
    make_problem(83, starter_code="#include <vector>\nlong total(const std::vector<int>& xs);\n",
                 manifest={"kind": "practice", "language": "cpp", "practice": harness})
    # one imported before packages had a language: its [practice] harness says C++
    make_problem(84, starter_code="int f();\n", manifest={"kind": "practice", "practice": harness})
    for number in (83, 84):
        page = login(client, alice).get(f"/problems/{number}/").content.decode()
        assert 'data-language="cpp"' in page
        if "vendor/codemirror/codemirror.js" in page:  # built assets: C++ highlighting is loaded
            assert "vendor/codemirror/mode/clike/clike.js" in page
    # the editor's script opens "cpp" and "cuda" in clike's C++ mode, the rest as Python
    script = (Path(__file__).resolve().parents[2] / "judge_site" / "catalog" / "static" / "judge"
              / "problem.js").read_text()
    modes = re.search(r"EDITOR_MODES = (\{[^}]*\})", script)
    assert modes is not None
    assert json.loads(re.sub(r"(\w+):", r'"\1":', modes.group(1))) == {
        "python": "python", "cuda": "text/x-c++src", "cpp": "text/x-c++src"}
