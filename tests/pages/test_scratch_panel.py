"""The problem page's scratchpad panel and its starter snippets (judge_site/submissions/scratch.py)."""

from __future__ import annotations

import json
import re

import pytest
from django.test import Client
from judge_cast import make_problem

from judge_site.submissions.scratch import snippets_for

pytestmark = pytest.mark.django_db


def snippet_json(html: str) -> dict[str, str]:
    found = re.search(r'<script id="scratch-snippets" type="application/json">(.*?)</script>', html,
                      re.S)
    assert found, "no snippets on the page"
    return json.loads(found.group(1))


def test_the_problem_page_offers_the_scratchpad_with_its_chapters_snippets(
    client: Client, alice, problem
):
    client.force_login(alice)
    html = client.get("/problems/48/").content.decode()
    assert 'id="scratchpad"' in html and 'id="scratch-script"' in html
    assert 'data-api="/api/v1/submissions"' in html and "scratch/scratch.js" in html
    snippets = snippet_json(html)
    assert set(snippets) == {"input", "time", "compare"}
    # Problem 48's starter: embed(ids, weight, pad_id); the chapter compares with F.embedding.
    assert "out = embed(ids, weight, pad_id)\nprint(out)" in snippets["input"]
    assert "ids = torch.tensor([1, 5, 0, 7])" in snippets["input"]
    assert "torch.nn.functional.embedding(ids, weight)" in snippets["compare"]
    assert "time.perf_counter()" in snippets["time"]
    for text in snippets.values():
        compile(text, "snippet", "exec")  # every snippet is Python that parses


def test_a_visitor_is_asked_to_log_in_and_gets_no_editor(client: Client, problem):
    html = client.get("/problems/48/").content.decode()
    assert 'id="scratchpad"' in html and 'id="scratch-script"' not in html
    assert "to run your own lines in the sandbox" in html


def test_snippets_skip_kernels_and_helpers_and_survive_a_starter_without_functions(db):
    triton = make_problem(60, slug="k", chapter="Triton kernels", starter_code=(
        "import triton\n\n@triton.jit\ndef softmax_kernel(x_ptr, n):\n    pass\n\n"
        "def _helper(a):\n    return a\n\ndef softmax(x, dim=-1):\n    return x\n"))
    (make, *_rest) = snippets_for(triton)
    assert "out = softmax(x)\n" in make.text and "# your function: def softmax(x, dim)" in make.text
    broken = make_problem(61, slug="b", chapter="Nowhere", starter_code="def f(:\n")
    (only,) = snippets_for(broken)
    assert only.key == "input" and "print(x)" in only.text
    odd = make_problem(62, slug="o", chapter="Nowhere", starter_code="def g(tokens, n=2):\n    ...\n")
    texts = [s.text for s in snippets_for(odd)]
    assert "tokens = torch.randn(2, 8)  # the shape and dtype the statement asks for" in texts[0]
    assert "expected = out  # write torch's own computation of it here" in texts[2]


def test_a_scratch_runs_page_shows_its_lines_and_what_they_printed(client: Client, alice, problem):
    from judge_site.submissions.models import Submission

    done = Submission.objects.create(
        user=alice, problem=problem, mode="scratch", code="x = 1\n", script="print(x + 1)\n",
        status="done", verdict="", output="2\n",
        tests=[{"name": "script", "public": True, "verdict": "AC", "message": "your script ran "
                "to its end", "wrong_kind": None, "time_ms": 3.0, "details": {}}],
    )
    queued = Submission.objects.create(user=alice, problem=problem, mode="scratch", code="x = 1\n",
                                       script="print(x)\n")
    client.force_login(alice)
    html = client.get(f"/submissions/{done.pk}/").content.decode()
    assert 'id="scratch-lines"' in html and "print(x + 1)" in html
    assert '<pre id="scratch-printed" tabindex="0">2\n</pre>' in html
    assert "(nothing yet)" in client.get(f"/submissions/{queued.pk}/").content.decode()


# One problem per chapter: its first snippet runs as it is with the package's own correct file.
RUNS_AS_IT_IS = ["048", "057", "065", "069", "072", "074", "080"]


def test_the_first_snippet_runs_as_it_is_on_a_problem_of_each_chapter() -> None:
    from pathlib import Path
    from types import SimpleNamespace

    from sandbox.grader.contracts import Mode
    from sandbox.grader.entry import judge
    from sandbox.grader.package import load_package
    from sandbox.host.backends.base import get_backend

    catalog = Path(__file__).resolve().parents[2] / "problems"
    backend = get_backend("local")
    for prefix in RUNS_AS_IT_IS:
        (folder,) = catalog.glob(f"{prefix}-*")
        package = load_package(folder)
        mine = sorted((folder / "solutions" / "AC").glob("*.py"))[0].read_text()
        page = SimpleNamespace(starter_code=(folder / "starter.py").read_text(),
                               chapter=package.chapter)
        first = snippets_for(page)[0]  # type: ignore[arg-type]
        result = judge(package, mine, mode=Mode.SCRATCH, backend=backend, script=first.text)
        assert result.shown_verdict is None, (folder.name, result.tests[0].message)
        assert "tensor(" in (result.output or ""), folder.name


def test_a_harness_problem_has_no_scratchpad_and_the_api_says_why(client: Client, alice):
    """A practice problem whose tests are a C++ program: the panel says why there is no
    scratchpad (no script box, no script), and a scratch run through the API is refused (400,
    field mode) with nothing stored; a Run of the same problem is not refused for it."""
    from judge_cast import token_for

    from judge_site.submissions.models import Submission

    make_problem(60, manifest={"language": "cpp", "practice": {"harness": "cpp"}},
                 starter_code="#include <vector>\n")
    client.force_login(alice)
    html = client.get("/problems/60/").content.decode()
    assert 'id="scratchpad"' in html and "Not on this problem: the scratchpad runs Python" in html
    assert 'id="scratch-script"' not in html and "scratch/scratch.js" not in html
    body = {"problem": 60, "code": "int x;\n", "mode": "scratch", "script": "print(1)\n"}
    response = client.post("/api/v1/submissions", data=json.dumps(body),
                           content_type="application/json",
                           HTTP_AUTHORIZATION=f"Token {token_for(alice)}")
    assert response.status_code == 400, response.content
    error = response.json()["error"]
    assert error.startswith("mode: the scratchpad runs Python lines") and "C++" in error, error
    assert not Submission.objects.exists()
