"""A rejected timing has no speedup: no figure on any page or in the API, no rank on the
problem's board, and the result page says why and invites a resubmit (issue 36). The grader
stores no figure for one (tests/sandbox/test_grader.py); a result stored before it stopped
still holds its figures, and they are never read."""

from __future__ import annotations

from test_judge_pages import GOOD, login

from judge_site.submissions import leaderboards, services
from judge_site.submissions.aggregates import stats_refresh_pairs
from judge_site.submissions.models import BestResult, Status, Submission
from sandbox.grader import manifest as package_manifest
from sandbox.grader.contracts import REJECTED_NEXT

# As a result stored before the grader dropped a rejected timing's figures (issue 36's
# finding on problem 65: credited x3.98 on a shape and 2.08 overall).
OLD_REJECTED = {
    "speedup": 2.08,
    "submission_ms": 41.7,
    "baseline_ms": 86.7,
    "repetitions": 20,
    "shape": "add_rms_norm, add_rms_norm_backward",
    "trust": "rejected",
    "rule": "prepare_excess",
    "note": "timing rejected: building the inputs ...; speedup from the grader's own clock",
    "shapes": [
        {"name": "add_rms_norm", "submission_ms": 9.83, "baseline_ms": 39.1, "speedup": 3.98,
         "sol_ms": 3.8, "sol_fraction": 0.387, "bound": "memory"},
        {"name": "add_rms_norm_backward", "submission_ms": 31.9, "baseline_ms": 47.6,
         "speedup": 1.09, "sol_ms": 3.8, "sol_fraction": 0.119, "bound": "memory"},
    ],
}


def judged(user, problem, bench: dict | None) -> Submission:
    """A finished AC Submit with ``bench`` stored, its aggregates refreshed as a verdict's
    write refreshes them."""
    sub = services.submission_create(user, problem, GOOD, "submit")
    Submission.objects.filter(pk=sub.pk).update(status=Status.DONE, verdict="AC", benchmark=bench)
    stats_refresh_pairs([(user.pk, problem.pk)])
    return Submission.objects.get(pk=sub.pk)


def believed(speedup: float) -> dict:
    return {"speedup": speedup, "submission_ms": 1.0, "baseline_ms": speedup, "trust": "verified"}


def test_it_never_ranks_a_rejected_timing(alice, bob, problem, enqueued) -> None:
    judged(alice, problem, OLD_REJECTED)
    judged(bob, problem, believed(1.1))
    board = leaderboards.leaderboard_problem_page(problem)
    assert [row.username for row in board.rows] == ["bob"]
    assert board.total == 1 and board.rows[0].rank == 1
    alice_row = BestResult.objects.get(user=alice, problem=problem)
    assert alice_row.accepted == 1 and alice_row.best_trust == "rejected"
    assert alice_row.best_speedup is None and alice_row.best_geomean is None


def test_a_believed_timing_ranks_by_its_own_figure_whatever_a_rejected_one_claimed(
    alice, bob, problem, enqueued
) -> None:
    judged(alice, problem, believed(1.5))
    judged(alice, problem, {**OLD_REJECTED, "speedup": 9.0})  # later, "faster", not believed
    judged(bob, problem, believed(2.0))
    rows = leaderboards.leaderboard_problem_page(problem).rows
    assert [(row.username, row.speedup, row.trust) for row in rows] == [
        ("bob", 2.0, "verified"),
        ("alice", 1.5, "verified"),
    ]


def test_an_old_stored_row_with_a_rejected_best_is_off_the_board_before_any_refresh(
    alice, bob, problem, enqueued
) -> None:
    """A BestResult written by the old rule (a rejected figure as the user's best) ranks
    nowhere even before stats_reconcile recomputes it: the board's query leaves it out."""
    sub = judged(alice, problem, OLD_REJECTED)
    judged(bob, problem, believed(1.1))
    BestResult.objects.filter(user=alice, problem=problem).update(
        best_speedup=2.08, best_trust="rejected", best_submission=sub
    )
    assert [row.username for row in leaderboards.leaderboard_problem_page(problem).rows] == ["bob"]


def test_the_api_shows_no_figure_of_a_rejected_timing(client, alice, problem, enqueued) -> None:
    sub = judged(alice, problem, OLD_REJECTED)
    bench = login(client, alice).get(f"/api/v1/submissions/{sub.pk}").json()["benchmark"]
    assert set(OLD_REJECTED) | {"verified"} <= set(bench)  # every key kept, some null
    assert bench["speedup"] is None and bench["submission_ms"] is None
    assert bench["verified"] is False and bench["baseline_ms"] == 86.7
    for shape in bench["shapes"]:
        assert shape["speedup"] is None and shape["sol_fraction"] is None
        assert shape["submission_ms"] is None and shape["sol_ms"] == 3.8


def test_the_result_page_says_why_and_invites_a_resubmit(client, alice, problem, enqueued) -> None:
    problem.manifest = {
        "limits": {"time_s": 5},
        "benchmark": {"shapes": [
            {"name": "add_rms_norm", "cost": {"params": {"n": 1024}, "bytes": "16 * n * n",
                                              "flops": "5 * n * n"}},
        ]},
    }
    problem.save(update_fields=["manifest"])
    sub = judged(alice, problem, OLD_REJECTED)
    Submission.objects.filter(pk=sub.pk).update(
        environment={"peak": {"memory_gbps": 20.0, "gflops": 100.0, "measured_at": "now"}}
    )
    page = login(client, alice).get(f"/submissions/{sub.pk}/").content.decode()
    assert "No speedup: timing rejected" in page
    assert "work was done ahead, while the inputs were prepared" in page  # the rule, in words
    assert REJECTED_NEXT.split(":")[0] in page and "Resubmit" in page
    for figure in ("2.08", "3.98", "1.09", "38.7 %", "11.9 %"):
        assert figure not in page, figure
    assert "Speedup " not in page and 'class="bars"' not in page
    assert "point yours" not in page  # no point of the submission's on the roofline
    history = client.get("/submissions/").content.decode()
    assert "2.08" not in history and "rejected" in history


def test_a_result_page_evaluates_no_cost_expression(
    client, alice, problem, enqueued, monkeypatch
) -> None:
    """The grader stores each shape's bytes and flops with the result; a page reads them. A
    result stored before has its problem's tables parsed once per process, not per view."""
    import sandbox.grader.cost

    calls: list[str] = []
    real = sandbox.grader.cost.evaluate

    def spy(expression: str, params: dict) -> float:
        calls.append(expression)
        return real(expression, params)

    monkeypatch.setattr(sandbox.grader.cost, "evaluate", spy)
    problem.manifest = {
        "limits": {"time_s": 5},
        "benchmark": {"shapes": [
            {"name": "product", "cost": {"params": {"n": 512}, "bytes": "12 * n * n",
                                         "flops": "2 * n ** 3"}},
        ]},
    }
    problem.save(update_fields=["manifest"])
    shape = {"name": "product", "submission_ms": 10.0, "baseline_ms": 5.0, "speedup": 0.5,
             "sol_ms": 2.5, "sol_fraction": 0.25, "bound": "compute",
             "bytes": 12.0 * 512 * 512, "flops": 2.0 * 512**3}
    bench = {**believed(0.5), "shapes": [shape]}
    peak = {"memory_gbps": 20.0, "gflops": 100.0, "measured_at": "now"}
    stored = judged(alice, problem, bench)
    Submission.objects.filter(pk=stored.pk).update(environment={"peak": peak})
    package_manifest._table_figures.cache_clear()
    page = login(client, alice).get(f"/submissions/{stored.pk}/").content.decode()
    assert page.count('class="point ') == 2 and calls == []  # the stored figures, nothing walked
    # Stored before the figures were: its problem's table, evaluated once for every view.
    old = {k: v for k, v in shape.items() if k not in ("bytes", "flops")}
    before = judged(alice, problem, {**believed(0.5), "shapes": [old]})
    Submission.objects.filter(pk=before.pk).update(environment={"peak": peak})
    for _ in range(3):
        page = client.get(f"/submissions/{before.pk}/").content.decode()
        assert page.count('class="point ') == 2
    assert sorted(calls) == ["12 * n * n", "2 * n ** 3"]


# ------------------------------------------------------------------ a contended timing (issue 41)

def test_a_busy_machines_timing_is_said_to_be_contended_never_verified() -> None:
    from sandbox.grader.contracts import BenchmarkResult, Trust, contended

    why = "the timed sandboxes waited for a CPU 58 % of the time"
    verified = BenchmarkResult(speedup=0.54, submission_ms=2.0, baseline_ms=1.08)
    busy = contended(verified, why)
    assert busy.trust == Trust.CONTENDED and busy.rule == "contended"
    assert why in busy.note and "not verified" in busy.note and "Submit again" in busy.note
    assert busy.speedup == 0.54  # the figure is kept, said plainly to be unverified
    assert verified.to_json()["verified"] is True
    assert busy.to_json()["verified"] is False  # the JSON's old flag never says verified
    charged = contended(BenchmarkResult(1.2, 1.0, 1.2, trust=Trust.CHARGED, rule="gap_excess",
                                        note="charged 0.1 ms"), why)
    assert (charged.trust, charged.rule) == (Trust.CONTENDED, "gap_excess; contended")
    assert charged.note.startswith("charged 0.1 ms; timed while the machine was busy")
    rejected = BenchmarkResult(None, None, 1.0, trust=Trust.REJECTED, rule="gap_excess")
    assert contended(rejected, why) is rejected  # a rejected timing stays rejected
    assert Trust.worst([Trust.CHARGED, Trust.CONTENDED]) == Trust.CONTENDED
    assert Trust.worst([Trust.CONTENDED, Trust.REJECTED]) == Trust.REJECTED


def test_the_result_page_and_the_board_say_contended(client, alice, problem, enqueued) -> None:
    busy = {"speedup": 0.54, "submission_ms": 2.0, "baseline_ms": 1.08, "repetitions": 20,
            "shape": "embed", "trust": "contended", "rule": "contended",
            "note": "timed while the machine was busy (the timed sandboxes waited for a CPU 58 % "
                    "of the time): the figures passed every check but are not verified",
            "shapes": []}
    sub = judged(alice, problem, busy)
    login(client, alice)
    page = client.get(f"/submissions/{sub.pk}/").content.decode()
    assert "timing <strong class=\"trust-contended\">contended</strong>" in page
    assert "waited for a CPU 58 %" in page and "timing <strong class=\"trust-verified\">" not in page
    (row,) = leaderboards.leaderboard_problem_page(problem).rows
    assert (row.username, row.trust) == ("alice", "contended")
    board = client.get(f"/problems/{problem.number}/leaderboard/").content.decode()
    assert "(contended)" in board
