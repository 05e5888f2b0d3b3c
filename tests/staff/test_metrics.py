"""/metrics scraped as Prometheus would: prometheus-client's exposition, read back by its own
parser; the counters and histograms count what the judgings wrote (queue wait, judging time,
each phase, verdicts by mode and queue, timing trust outcomes)."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from judge_site.submissions.models import Status, Submission


def _judged(user: Any, problem: Any, *, verdict: str, mode: str, wait_s: float, judge_s: float,
            phases: dict[str, float], trust: str | None = None) -> Submission:
    submission = Submission.objects.create(
        user=user, problem=problem, code="x", mode=mode, status=Status.DONE, verdict=verdict,
        environment={"phases": phases},
        benchmark={"speedup": 1.0, "trust": trust} if trust else None,
    )
    created = submission.created_at
    Submission.objects.filter(pk=submission.pk).update(
        started_at=created + timedelta(seconds=wait_s),
        finished_at=created + timedelta(seconds=wait_s + judge_s),
    )
    return submission


def _scrape(client: Any, settings: Any) -> dict[str, Any]:
    settings.JUDGE_METRICS_TOKEN = "scrape-token-for-tests"
    response = client.get("/metrics", HTTP_AUTHORIZATION="Bearer scrape-token-for-tests")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=0.0.4")
    return {family.name: family for family in text_string_to_metric_families(response.content.decode())}


def _samples(family: Any, name: str, **labels: str) -> dict[str, float]:
    """{le or '': value} of ``name``'s samples whose labels include ``labels``."""
    return {
        sample.labels.get("le", ""): sample.value
        for sample in family.samples
        if sample.name == name and all(sample.labels.get(k) == v for k, v in labels.items())
    }


@pytest.mark.django_db
def test_the_histograms_and_counters_count_what_the_judgings_wrote(
    client: Any, settings: Any, alice: Any, problem: Any
) -> None:
    _judged(alice, problem, verdict="AC", mode="submit", wait_s=0.2, judge_s=12.0,
            phases={"tests": 0.4, "benchmark": 9.0, "queue_wait": 0.2}, trust="verified")
    _judged(alice, problem, verdict="WA", mode="run", wait_s=3.0, judge_s=0.8,
            phases={"tests": 0.3, "queue_wait": 3.0})
    _judged(alice, problem, verdict="AC", mode="submit", wait_s=40.0, judge_s=15.0,
            phases={"tests": 2.0, "benchmark": 11.0}, trust="rejected")
    Submission.objects.create(user=alice, problem=problem, code="y")  # queued: not counted

    families = _scrape(client, settings)

    wait = _samples(families["judge_queue_wait_seconds"], "judge_queue_wait_seconds_bucket")
    assert (wait["0.25"], wait["2.5"], wait["5"], wait["60"], wait["+Inf"]) == (1, 1, 2, 3, 3)
    total = _samples(families["judge_queue_wait_seconds"], "judge_queue_wait_seconds_sum")[""]
    assert total == pytest.approx(43.2, abs=0.01)
    judging = _samples(families["judge_judging_seconds"], "judge_judging_seconds_bucket")
    assert (judging["1"], judging["10"], judging["20"], judging["+Inf"]) == (1, 1, 3, 3)

    phase = families["judge_phase_seconds"]
    tests = _samples(phase, "judge_phase_seconds_bucket", phase="tests")
    assert (tests["0.25"], tests["0.5"], tests["2.5"], tests["+Inf"]) == (0, 2, 3, 3)
    bench = _samples(phase, "judge_phase_seconds_bucket", phase="benchmark")
    assert (bench["5"], bench["10"], bench["30"], bench["+Inf"]) == (0, 1, 2, 2)
    assert _samples(phase, "judge_phase_seconds_count", phase="queue_wait")[""] == 2
    assert not _samples(phase, "judge_phase_seconds_count", phase="shutdown")  # none recorded

    judgings = families["judge_judgings"]
    assert _samples(judgings, "judge_judgings_total", verdict="AC", mode="submit",
                    queue="cpu")[""] == 2
    assert _samples(judgings, "judge_judgings_total", verdict="WA", mode="run")[""] == 1
    trust = families["judge_timing_trust"]
    assert _samples(trust, "judge_timing_trust_total", trust="verified")[""] == 1
    assert _samples(trust, "judge_timing_trust_total", trust="rejected")[""] == 1

    assert families["judge_judgings_queued"].samples[0].value == 1
    assert families["judge_queue_wait_seconds"].type == "histogram"


@pytest.mark.django_db
def test_a_scrape_is_a_fixed_number_of_queries_whatever_the_history(
    client: Any, settings: Any, alice: Any, problem: Any, django_assert_max_num_queries: Any
) -> None:
    for index in range(30):
        _judged(alice, problem, verdict="AC", mode="submit", wait_s=index, judge_s=1.0,
                phases={"tests": 0.1 * index}, trust="verified")
    with django_assert_max_num_queries(40):
        families = _scrape(client, settings)
    assert _samples(families["judge_queue_wait_seconds"], "judge_queue_wait_seconds_count")[""] == 30


@pytest.mark.django_db
def test_the_grafana_dashboard_reads_only_metrics_that_exist(client: Any, settings: Any) -> None:
    import json
    import re
    from pathlib import Path

    dashboard = json.loads(
        (Path(__file__).resolve().parents[2] / "docs" / "grafana-dashboard.json").read_text()
    )
    families = _scrape(client, settings)
    served = {sample.name for family in families.values() for sample in family.samples}
    served |= {name for name, family in families.items() if family.type in ("histogram", "counter")}
    exprs = [t["expr"] for p in dashboard["panels"] for t in p["targets"]]
    names = {n for e in exprs for n in re.findall(r"\bjudge_[a-z_]+\b", e)}
    assert names and names <= served | {f"{n}_bucket" for n in served} | {f"{n}_total" for n in served}
