"""The problem page's statistics: acceptance, fast_p over those who submitted (rejected timings
never count), and the histogram of each user's best accepted speedup."""

from __future__ import annotations

from test_judge_pages import GOOD

from judge_site.submissions import services
from judge_site.submissions.aggregates import stats_refresh_pairs
from judge_site.submissions.models import Status, Submission
from judge_site.submissions.problem_statistics import problem_statistics


def judged(user, problem, verdict: str, speedup: float | None = None, trust: str = "verified") -> None:
    sub = services.submission_create(user, problem, GOOD, "submit")
    bench = {"speedup": speedup, "submission_ms": 1.0, "baseline_ms": speedup, "trust": trust}
    Submission.objects.filter(pk=sub.pk).update(
        status=Status.DONE, verdict=verdict, benchmark=bench if speedup else None
    )
    stats_refresh_pairs([(user.pk, problem.pk)])  # what a verdict's write does


def test_it_counts_acceptance_fast_p_and_the_best_speedups(alice, bob, charlie, problem, enqueued) -> None:
    judged(alice, problem, "AC", 1.2)
    judged(alice, problem, "AC", 2.5)  # alice's best
    judged(bob, problem, "AC", 0.8)  # bob's best believed
    judged(charlie, problem, "AC", 9.0, trust="rejected")  # not believed: no speedup counts
    judged(charlie, problem, "WA")
    stats = problem_statistics(problem)
    assert (stats.submitters, stats.accepted) == (3, 3)
    assert stats.fast_p == {"1.0": 1 / 3, "1.5": 1 / 3, "2.0": 1 / 3}
    counts = {row["label"]: row["count"] for row in stats.histogram}
    assert counts["2-4×"] == 1 and counts["0.5-1×"] == 1 and sum(counts.values()) == 2


def test_the_problem_page_shows_them(client, alice, problem, enqueued) -> None:
    judged(alice, problem, "AC", 1.7)
    page = client.get(f"/problems/{problem.number}/").content.decode()
    assert 'id="problem-stats"' in page and "1 submitted, 1 accepted (100%)" in page
    assert "p = 1.5: 100%" in page and "p = 2.0: 0%" in page and '<svg class="histogram"' in page


def test_a_problem_nobody_submitted_shows_no_statistics(client, problem) -> None:
    assert 'id="problem-stats"' not in client.get(f"/problems/{problem.number}/").content.decode()


def test_the_cached_statistics_follow_every_change_of_the_best_results(
    alice, bob, problem, enqueued
) -> None:
    """Cached under the problem's counters: a new submitter, a new AC, and a better speedup
    with the same counts (a rejudge's case: only the board's generation moves) all show."""
    from judge_site.submissions.models import BestResult

    judged(alice, problem, "WA")
    assert (problem_statistics(problem).submitters, problem_statistics(problem).accepted) == (1, 0)
    judged(bob, problem, "AC", 1.2)
    stats = problem_statistics(problem)
    assert (stats.submitters, stats.accepted, stats.fast_p["1.5"]) == (2, 1, 0.0)
    # The same counts, a faster best (as a rejudge would leave): the board's generation moves.
    sub = Submission.objects.filter(user=bob, problem=problem).get()
    Submission.objects.filter(pk=sub.pk).update(benchmark={**sub.benchmark, "speedup": 1.8})
    stats_refresh_pairs([(bob.pk, problem.pk)])
    assert BestResult.objects.filter(user=bob, problem=problem, best_speedup=1.8).exists()
    assert problem_statistics(problem).fast_p["1.5"] == 0.5
