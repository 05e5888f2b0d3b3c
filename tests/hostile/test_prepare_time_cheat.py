"""The prepare-time cheat on problem 65 (issue 36): correct answers, with the forward's work
done while the timed inputs are built (submissions/065/prepare_ahead.py). It was credited
x3.98 on that shape and 2.08 overall (honest: about 1.0) and ranked first on the problem's
board as "2.08x (rejected)".

Judged for real (the grader, the runner, two sandboxes of the local backend: the rules compare
the two sandboxes' input builds, whatever the backend), it keeps its AC, since its outputs are
right, and its timing is rejected by ``prepare_excess``: no speedup, no time and no fraction
of the speed of light, overall or per shape. Stored by the site as a worker stores it, it is on
no board and its page shows no figure. The rejection itself is what is under test: the input
builds of the cheat's timed calls take its whole forward pass (tens of milliseconds here, one
under load) beyond the baseline's, several times the rule's threshold (half the call's own
time)."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
from judge_cast import alice, bob, enqueued, fake_engine, inline_judging, make_problem  # noqa: F401

from sandbox.grader import contracts
from sandbox.grader.contracts import BenchmarkResult, JudgeResult, Mode, Trust, Verdict
from sandbox.grader.feedback import format_result
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.host.backends.base import get_backend

pytestmark = [pytest.mark.slow]

ROOT = Path(__file__).resolve().parents[2]
PROBLEM = ROOT / "problems" / "065-fused-add-rmsnorm"
CHEAT = Path(__file__).with_name("submissions") / "065" / "prepare_ahead.py"
# The keys ``manage.py judge --json`` has always given a benchmark: kept, some now null.
BENCH_KEYS = {
    "speedup", "submission_ms", "baseline_ms", "submission_spread", "baseline_spread",
    "repetitions", "shape", "trust", "rule", "note", "shapes", "verified",
}


# Session-scoped: pytest-django runs transactional tests after the others, which splits this
# module's two tests apart, and a module-scoped judging was judged twice (25 s each in CI).
@pytest.fixture(scope="session")
def package() -> ProblemPackage:
    found = load_package(PROBLEM)
    assert found.benchmark is not None
    return dataclasses.replace(
        found, benchmark=dataclasses.replace(found.benchmark, max_time_s=2.0)
    )


@pytest.fixture(scope="session")
def judged(package: ProblemPackage) -> JudgeResult:
    from sandbox.grader.entry import judge

    return judge(package, CHEAT.read_text(), mode=Mode.SUBMIT, backend=get_backend("local"))


def test_the_cheat_keeps_its_ac_and_its_timing_is_rejected_with_no_figure(
    judged: JudgeResult,
) -> None:
    assert judged.verdict == Verdict.AC, judged.message  # its outputs are right
    bench = judged.benchmark
    assert bench is not None
    assert bench.trust == Trust.REJECTED and not bench.verified, bench
    assert "prepare_excess" in bench.rule.split("; "), bench
    assert bench.speedup is None and bench.submission_ms is None, bench
    assert len(bench.shapes) == 2, bench
    for shape in bench.shapes:
        assert shape["speedup"] is None and shape["sol_fraction"] is None, bench
        assert shape["submission_ms"] is None and shape["baseline_ms"] > 0, bench
    assert "work was done ahead" in bench.note and "Resubmit" in bench.note, bench.note
    assert not re.search(r"x\d+\.\d", bench.note), bench.note  # no shape's figure either
    data = judged.to_json()["benchmark"]
    assert set(data) == BENCH_KEYS and data["speedup"] is None and data["verified"] is False
    said = format_result(judged)
    assert "timing rejected, no speedup" in said and "Resubmit" in said, said


@pytest.mark.django_db(transaction=True)  # the judging is enqueued on commit
def test_the_cheat_ranks_nowhere_and_its_page_shows_no_figure(
    judged: JudgeResult,
    alice: Any,  # noqa: F811
    bob: Any,  # noqa: F811
    inline_judging: None,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    client: Any,
) -> None:
    """Stored as a worker stores a result (services.submission_judge), beside an honest
    solver's: the board has the honest solver only, the API and the page no figure."""
    from judge_site.submissions import leaderboards, selectors, services
    from judge_site.submissions.problem_statistics import problem_statistics

    honest = JudgeResult(
        Verdict.AC,
        [contracts.TestResult("hidden_1", False, Verdict.AC, "", None, 3.0)],
        BenchmarkResult(speedup=1.01, submission_ms=40.0, baseline_ms=40.4, repetitions=20),
        {"backend": "local"},
    )
    cheat = CHEAT.read_text()

    def engine(package: Any, source: str, mode: Any, on_progress: Any, secret_seed: Any = None) -> JudgeResult:
        return judged if source == cheat else honest

    monkeypatch.setattr(services, "_judge_source", engine)
    problem = make_problem(65, slug="fused-add-rmsnorm", title="RMSNorm with the residual add")
    mine = services.submission_create(alice, problem, cheat, "submit")
    services.submission_create(bob, problem, "def add_rms_norm(): ...\n", "submit")
    mine.refresh_from_db()
    assert mine.verdict == "AC" and mine.benchmark["trust"] == "rejected"
    rows = leaderboards.leaderboard_problem_page(problem).rows
    assert [(row.rank, row.username) for row in rows] == [(1, "bob")]
    assert problem_statistics(problem).fast_p["1.0"] == 0.5  # bob's 1.01 only, of two
    assert selectors.submission_to_json(mine)["benchmark"]["speedup"] is None
    client.force_login(alice)
    page = client.get(f"/submissions/{mine.pk}/").content.decode()
    assert "No speedup: timing rejected" in page and "Resubmit" in page
    assert "Speedup " not in page
    client.logout()  # the board as anyone reads it (a logged-in page names its user)
    board = client.get(f"/problems/{problem.number}/leaderboard/").content.decode()
    assert "bob" in board and "alice" not in board
