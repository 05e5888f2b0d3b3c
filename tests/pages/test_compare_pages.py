"""Answers one can compare: expected beside actual on the result page, the phases as a timeline,
and the diff of two submissions (who may see it, what bad input gets, its queries)."""

from __future__ import annotations

import pytest
import torch
from django.test import Client
from judge_cast import make_problem

from judge_site.submissions.models import Status, Submission
from sandbox.grader.compare_view import side_by_side
from sandbox.grader.contracts import TestResult, Verdict, WrongKind
from sandbox.grader.package import Tolerance

pytestmark = pytest.mark.django_db

OLD = "def embed(ids, weight, pad_id):\n    return weight[ids]\n"
NEW = "def embed(ids, weight, pad_id):\n    out = weight[ids]  # <b>keep</b>\n    return out\n"


def done(user, problem, code: str = OLD, **fields) -> Submission:
    return Submission.objects.create(
        user=user, problem=problem, code=code, mode="run", status=Status.DONE,
        verdict=fields.pop("verdict", "WA"), **fields,
    )


def login(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_the_result_page_shows_expected_beside_actual_with_the_difference_marked(alice, problem):
    e = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    g = torch.tensor([[1.0, 2.0], [3.0, 7.25]])
    picture = side_by_side(e, g, path="output", tol=Tolerance(1e-5, 1.3e-6), exact=False,
                           allow_nan=False)
    wrong = TestResult("small", True, Verdict.WA, "output: 1 of 4 elements differ",
                       WrongKind.VALUE, 2.0, {"mismatched": 1, "total": 4}, compare=picture)
    sub = done(alice, problem, tests=[wrong.to_json()])
    page = login(alice).get(f"/submissions/{sub.pk}/").content.decode()
    assert 'class="compare-row"' in page and 'data-compare="output"' in page
    assert "<figcaption>Expected</figcaption>" in page and "<figcaption>Yours</figcaption>" in page
    assert '<td class="bad"><mark>4</mark></td>' in page  # the expected side
    assert '<td class="bad"><mark>7.25</mark></td>' in page  # the student's
    assert "1 of 4 elements differ" in page and "first at [1, 1]" in page
    assert "submissions/results.css" in page


def test_a_test_without_a_picture_renders_as_before(alice, problem):
    plain = TestResult("hidden_1", False, Verdict.WA, "wrong answer: value", WrongKind.VALUE)
    sub = done(alice, problem, tests=[plain.to_json()])
    page = login(alice).get(f"/submissions/{sub.pk}/").content.decode()
    assert "hidden_1" in page and "compare-row" not in page


def test_the_phases_are_a_timeline_not_a_dict(alice, problem):
    phases = {"queue_wait": 12.5, "prepare": 0.01, "sandbox_start": 0.3, "runner_ready": 1.2,
              "load": 0.05, "tests": 2.0, "shutdown": 0.1, "save": 0.02, "sibling_start": 0.8,
              "mystery": 0.1, "broken": "x"}
    sub = done(alice, problem, environment={"backend": "local", "phases": phases})
    page = login(alice).get(f"/submissions/{sub.pk}/").content.decode()
    assert '<svg class="timeline"' in page and "{&#x27;" not in page
    assert "Waited 12.50 s in the queue" in page
    assert '<li data-phase="tests">' in page and '<li data-phase="mystery">' in page
    assert 'data-phase="broken"' not in page and 'data-phase="queue_wait"' not in page
    assert 'data-phase="sibling_start" class="beside"' in page
    assert "style=" not in page.split('<svg class="timeline"')[1].split("</svg>")[0]  # CSP
    old = done(alice, problem, environment={"backend": "local"})  # a result before phases
    page = login(alice).get(f"/submissions/{old.pk}/").content.decode()
    assert 'class="timeline"' not in page


def test_the_owner_diffs_two_submissions_escaped(alice, problem, django_assert_max_num_queries):
    a, b = done(alice, problem, OLD), done(alice, problem, NEW, verdict="AC")
    client = login(alice)
    with django_assert_max_num_queries(4):  # session, user, both submissions in one
        response = client.get(f"/submissions/diff/?s={b.pk}&s={a.pk}")
    page = response.content.decode()
    assert response.status_code == 200
    assert f"Diff of #{a.pk} and #{b.pk}" in page  # the older on the left, whatever the order
    assert "&lt;b&gt;keep&lt;/b&gt;" in page and "<b>keep</b>" not in page
    assert "<ins>" in page and 'id="diff-counts"' in page
    assert '<span class="cd-added">+2</span> <span class="cd-removed">−1</span>' in page


def test_diff_with_previous_and_a_first_submission(alice, bob, problem):
    a = done(alice, problem, OLD)
    done(bob, problem, "print('bob')\n")  # someone else's, between: never the previous
    b = done(alice, problem, NEW)
    client = login(alice)
    page = client.get(f"/submissions/{b.pk}/diff/").content.decode()
    assert f"Diff of #{a.pk} and #{b.pk}" in page
    page = client.get(f"/submissions/{a.pk}/diff/").content.decode()
    assert 'id="diff-none"' in page and "first submission" in page
    detail = client.get(f"/submissions/{b.pk}/").content.decode()
    assert f'href="/submissions/{b.pk}/diff/" id="diff-previous"' in detail


def test_only_the_author_and_staff_see_a_diff(alice, bob, charlie, problem):
    a, b = done(alice, problem, OLD), done(alice, problem, NEW)
    pair = f"/submissions/diff/?s={a.pk}&s={b.pk}"
    assert login(bob).get(pair).status_code == 404
    assert login(bob).get(f"/submissions/{b.pk}/diff/").status_code == 404
    mixed = done(bob, problem, OLD)
    assert login(bob).get(f"/submissions/diff/?s={a.pk}&s={mixed.pk}").status_code == 404
    assert login(charlie).get(pair).status_code == 200
    assert login(charlie).get(f"/submissions/{b.pk}/diff/").status_code == 200
    anonymous = Client().get(pair)
    assert anonymous.status_code == 302 and "/login" in anonymous["Location"]


@pytest.mark.parametrize(
    ("query", "words"),
    [
        ("", "pick exactly two"),
        ("?s=1", "pick exactly two"),
        ("?s=1&s=1", "pick exactly two"),
        ("?s=1&s=2&s=3", "pick exactly two"),
        ("?s=1&s=%3Cx%3E", "is not a submission number"),
    ],
)
def test_a_bad_pick_says_what_to_do(alice, query, words):
    response = login(alice).get(f"/submissions/diff/{query}")
    assert response.status_code == 400 and words in response.content.decode()
    assert response["Content-Type"].startswith("text/plain")  # never rendered as markup


def test_two_problems_cannot_be_diffed(alice, problem):
    other = make_problem(49)
    a, b = done(alice, problem), done(alice, other)
    response = login(alice).get(f"/submissions/diff/?s={a.pk}&s={b.pk}")
    assert response.status_code == 400 and "different problems" in response.content.decode()


def test_the_history_offers_to_pick_two(alice, problem):
    a = done(alice, problem)
    page = login(alice).get("/submissions/").content.decode()
    assert 'action="/submissions/diff/"' in page
    assert f'<input type="checkbox" name="s" value="{a.pk}"' in page
    assert "Diff the two ticked" in page


def test_the_diff_folds_long_unchanged_runs_and_marks_words():
    from judge_site.submissions.code_diff import code_diff

    body = [f"x{i} = {i}" for i in range(20)]
    old = "\n".join(["a = 1", *body, "return a + b"])
    new = "\n".join(["a = 2", *body, "return a - b", "# a rewrite of everything here"])
    diff = code_diff(old, new)
    kinds = [row["kind"] for row in diff["rows"]]
    assert kinds == ["replace", "equal", "equal", "equal", "skip", "equal", "equal", "equal",
                     "replace", "insert"]
    assert diff["rows"][4]["count"] == 14 and (diff["added"], diff["removed"]) == (3, 2)
    first = diff["rows"][0]
    assert [p["text"] for p in first["new"] if p["changed"]] == ["2"]
    assert [p["text"] for p in diff["rows"][8]["old"] if p["changed"]] == ["+"]
    assert code_diff(old, old)["same"] and code_diff(old, old)["rows"][0] == {"kind": "skip", "count": 22}


def test_the_api_adds_compare_to_a_public_test_and_changes_nothing_else(alice, problem):
    picture = side_by_side(torch.zeros(2), torch.ones(2), path="output",
                           tol=Tolerance(1e-5, 1.3e-6), exact=False, allow_nan=False)
    public = TestResult("small", True, Verdict.WA, "m", WrongKind.VALUE, 1.0, compare=picture)
    hidden = TestResult("big", False, Verdict.WA, "m", WrongKind.VALUE, 1.0, {"index": [0]})
    sub = done(alice, problem, tests=[public.to_json(), hidden.to_json()])
    small, big = login(alice).get(f"/api/v1/submissions/{sub.pk}").json()["tests"]
    before = ["name", "public", "verdict", "message", "wrong_kind", "time_ms", "details"]
    assert list(small) == [*before, "compare", "feedback"] and small["compare"] == picture
    assert list(big) == [*before, "feedback"]
