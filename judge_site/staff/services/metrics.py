"""/metrics through prometheus-client: the dashboard's gauges, counters of judgings by verdict,
mode and queue, of timing trust outcomes, and histograms of the queue wait, the judging time
and each phase of a judging (sandbox/host/phases.py and the site's own).

Where the figures come from: the judgings are recorded by workers on other hosts, so there is
no one process whose in-memory counters could be scraped (prometheus-client's multiprocess
mode needs a folder every process shares). Every figure is read at scrape time from what the
judgings wrote to the database (and the host record in Redis): the counters and histograms count
every finished judging still stored, so they only grow, except where a rejudge changes a
verdict or staff delete submissions (Prometheus' rate() treats a drop as a counter reset).
One scrape is a fixed number of aggregate queries (one per histogram and phase), not one per
submission.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

from django.db.models import (
    Count,
    DurationField,
    ExpressionWrapper,
    F,
    FloatField,
    Q,
    QuerySet,
    Sum,
)
from django.db.models.fields.json import KeyTextTransform, KeyTransform
from django.db.models.functions import Cast
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import (
    CounterMetricFamily,
    GaugeMetricFamily,
    HistogramMetricFamily,
    Metric,
)
from prometheus_client.registry import Collector

from judge_site.staff.services.ops import OpsFigures, ops_figures
from judge_site.submissions.models import Status, Submission
from sandbox.host.phases import PHASES

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
# Bucket bounds in seconds: a Run answers in a fraction of a second, a Submit with its
# benchmark takes tens of seconds, a queue may hold work for minutes under load.
WAIT_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 900.0)
JUDGING_BUCKETS = (0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 900.0)
PHASE_BUCKETS = (0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 120.0)
# The site's own phases (services._with_phases) beside the engine's.
SITE_PHASES = ("queue_wait", "prepare", "progress_writes", "save")


def _buckets_of(
    rows: QuerySet[Any], value: Any, buckets: Sequence[float], *, seconds: bool
) -> tuple[list[tuple[str, float]], float]:
    """Cumulative bucket counts and the sum of ``value`` over ``rows``, in one query.
    ``seconds``: ``value`` is a number of seconds; else a duration."""
    def bound(le: float) -> Any:
        return le if seconds else timedelta(seconds=le)

    aggregates: dict[str, Any] = {
        f"le{index}": Count("pk", filter=Q(v__lte=bound(le))) for index, le in enumerate(buckets)
    }
    aggregates["count"] = Count("pk")
    aggregates["total"] = Sum("v")
    row = rows.annotate(v=value).filter(v__isnull=False).aggregate(**aggregates)
    counts = [(_le(le), float(row[f"le{index}"])) for index, le in enumerate(buckets)]
    counts.append(("+Inf", float(row["count"])))
    total: Any = row["total"]
    if total is None:
        return counts, 0.0
    return counts, float(total) if seconds else total.total_seconds()


def _le(value: float) -> str:
    return f"{value:g}"


def _finished() -> QuerySet[Submission]:
    return Submission.objects.filter(status=Status.DONE)


def _duration(end: str, start: str) -> Any:
    return ExpressionWrapper(F(end) - F(start), output_field=DurationField())


class JudgeCollector(Collector):
    """The figures of one scrape."""

    def __init__(self, figures: OpsFigures) -> None:
        self.figures = figures

    def collect(self) -> Iterator[Metric]:
        yield from self._gauges()
        yield from self._counters()
        yield from self._histograms()

    def _gauges(self) -> Iterator[Metric]:
        f = self.figures

        def gauge(name: str, doc: str, labels: Sequence[str] = (),
                  samples: Sequence[tuple[Sequence[str], float]] = ()) -> GaugeMetricFamily:
            family = GaugeMetricFamily(name, doc, labels=list(labels))
            for values, value in samples:
                family.add_metric(list(values), value)
            return family

        yield gauge("judge_queue_length", "Messages waiting in each Celery queue.", ["queue"],
                    [([q], n) for q, n in f.queue_lengths.items() if n is not None])
        yield gauge("judge_judgings_running", "Submissions being judged now.",
                    samples=[((), f.judgings_running)])
        yield gauge("judge_judgings_queued", "Submissions waiting for a worker.",
                    samples=[((), f.judgings_queued)])
        yield gauge("judge_oldest_waiting_seconds",
                    "Age of the oldest submission waiting for a worker (0 when none).",
                    samples=[((), f.oldest_waiting_s or 0.0)])
        yield gauge("judge_rejudges_running", "Rejudge items being judged now.",
                    samples=[((), f.rejudges_running)])
        yield gauge("judge_rejudges_waiting", "Rejudge items waiting.",
                    samples=[((), f.rejudges_waiting)])
        yield gauge("judge_workers_alive", "Workers whose heartbeat is fresh.",
                    samples=[((), len(f.workers))])
        hosts = f.hosts
        yield gauge("judge_host_up",
                    "1 while a worker host's heartbeat is fresh, 0 once it lapsed or the host left.",
                    ["host", "state"],
                    [([h["host"], h["state"]], 1 if h["state"] == "alive" else 0) for h in hosts])
        yield gauge("judge_host_info", "The queues each worker host serves (always 1).",
                    ["host", "queues"], [([h["host"], ",".join(h["queues"])], 1) for h in hosts])
        yield gauge("judge_host_capacity", "Judgings a worker host runs at once (concurrency).",
                    ["host"], [([h["host"]], h["capacity"]) for h in hosts])
        yield gauge("judge_host_in_flight", "Tasks a worker host runs now.",
                    ["host"], [([h["host"]], h["in_flight"]) for h in hosts])
        yield gauge("judge_host_judgings_held",
                    "Judgings running under a worker host's workers (a gone host's wait for the "
                    "reaper).", ["host"], [([h["host"]], h["held"]) for h in hosts])
        yield gauge("judge_host_last_heartbeat_age_seconds",
                    "Seconds since a worker host's last heartbeat.",
                    ["host"], [([h["host"]], h["age_s"]) for h in hosts])
        yield gauge("judge_judgings_per_minute", "Judgings finished per minute, last hour.",
                    samples=[((), round(f.judgings_per_minute, 3))])
        yield gauge("judge_verdicts_last_hour", "Judgings finished in the last hour by verdict.",
                    ["verdict"], [([v or "none"], n) for v, n in f.verdict_mix.items()])
        yield gauge("judge_redis_up", "1 when Redis answered this scrape.",
                    samples=[((), 0 if f.redis_error else 1)])

    def _counters(self) -> Iterator[Metric]:
        judgings = CounterMetricFamily(
            "judge_judgings", "Finished judgings still stored, by verdict, mode and queue.",
            labels=["verdict", "mode", "queue"],
        )
        rows = (
            _finished().values("verdict", "mode", "problem__device")
            .annotate(n=Count("pk")).order_by()
        )
        totals: dict[tuple[str, str, str], float] = {}
        for row in rows:
            queue = "cpu" if (row["problem__device"] or "cpu") == "cpu" else "gpu"
            key = (row["verdict"] or "none", row["mode"], queue)
            totals[key] = totals.get(key, 0.0) + row["n"]
        for key, n in sorted(totals.items()):
            judgings.add_metric(list(key), n)
        yield judgings

        trust = CounterMetricFamily(
            "judge_timing_trust",
            "Benchmarked judgings by what the timing rules made of their figures "
            "(verified, contended, rejected, ...).", labels=["trust"],
        )
        outcome = KeyTextTransform("trust", "benchmark")
        for row in (
            _finished().filter(benchmark__isnull=False).annotate(t=outcome)
            .values("t").annotate(n=Count("pk")).order_by("t")
        ):
            trust.add_metric([row["t"] or "unknown"], row["n"])
        yield trust

    def _histograms(self) -> Iterator[Metric]:
        finished = _finished()
        for name, doc, rows, value, buckets in (
            ("judge_queue_wait_seconds", "From a submission's arrival to a worker starting it.",
             finished.filter(started_at__isnull=False), _duration("started_at", "created_at"),
             WAIT_BUCKETS),
            ("judge_judging_seconds", "From a worker starting a judging to its verdict.",
             finished.filter(started_at__isnull=False, finished_at__isnull=False),
             _duration("finished_at", "started_at"), JUDGING_BUCKETS),
        ):
            counts, total = _buckets_of(rows, value, buckets, seconds=False)
            yield HistogramMetricFamily(name, doc, buckets=counts, sum_value=total)

        phases = HistogramMetricFamily(
            "judge_phase_seconds",
            "Seconds per phase of a judging (sandbox_start, runner_ready, load, tests, benchmark, "
            "shutdown; the site's queue_wait, prepare, progress_writes and save).", labels=["phase"],
        )
        for phase in (*PHASES, *SITE_PHASES):
            seconds = Cast(KeyTextTransform(phase, KeyTransform("phases", "environment")),
                           FloatField())
            counts, total = _buckets_of(finished, seconds, PHASE_BUCKETS, seconds=True)
            if counts[-1][1]:
                phases.add_metric([phase], counts, total)
        yield phases


def exposition(figures: OpsFigures | None = None) -> bytes:
    """One scrape, in the exposition format prometheus-client writes."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(JudgeCollector(figures if figures is not None else ops_figures()))
    return generate_latest(registry)
