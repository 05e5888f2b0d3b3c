"""Operations figures for the staff dashboard and /metrics (reads only)."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db.models import Count, Min
from django.utils import timezone

from judge_site.staff import heartbeat
from judge_site.staff.models import RejudgeItem, RejudgeStatus
from judge_site.submissions.models import Status, Submission, VerdictChoice

# Kombu's Redis transport keeps a queue's messages in a list named like the queue, plus one
# list per non-default priority step ("cpu\x06\x163", ...).
PRIORITY_SEPARATOR = "\x06\x16"
PRIORITY_STEPS = (3, 6, 9)


@dataclass(frozen=True)
class OpsFigures:
    queue_lengths: dict[str, int | None]  # None: Redis did not answer
    judgings_running: int
    judgings_queued: int
    oldest_waiting_s: float | None
    rejudges_running: int
    rejudges_waiting: int
    workers: list[dict[str, Any]]  # hostname, queues, age_s of the last heartbeat
    judged_last_hour: int
    verdict_mix: dict[str, int]  # over the last hour
    recent_internal_errors: list[dict[str, Any]] = field(default_factory=list)
    redis_error: str = ""

    @property
    def judgings_per_minute(self) -> float:
        return self.judged_last_hour / 60.0


def queue_names() -> list[str]:
    names = ["cpu", "gpu", settings.JUDGE_REJUDGE_QUEUE, settings.JUDGE_CHECK_QUEUE]
    return list(dict.fromkeys(names))


def _redis() -> Any:
    return heartbeat.redis_client()


def _queues_and_workers() -> tuple[dict[str, int | None], list[dict[str, Any]], str]:
    lengths: dict[str, int | None] = {name: None for name in queue_names()}
    try:
        client = _redis()
        for name in lengths:
            keys = [name] + [f"{name}{PRIORITY_SEPARATOR}{step}" for step in PRIORITY_STEPS]
            lengths[name] = sum(int(client.llen(key)) for key in keys)
        workers = []
        now = time.time()
        for key in sorted(client.scan_iter(match=heartbeat.HEARTBEAT_PREFIX + "*", count=200)):
            raw = client.get(key)
            if not raw:
                continue
            beat = json.loads(raw)
            workers.append({"hostname": beat.get("hostname", ""),
                            "queues": beat.get("queues", []),
                            "age_s": round(max(0.0, now - float(beat.get("at", now))), 1)})
        return lengths, workers, ""
    except Exception as exc:  # the dashboard still shows what the database knows
        return lengths, [], f"Redis: {type(exc).__name__}: {exc}"


def ops_figures(now: Any = None) -> OpsFigures:
    now = now or timezone.now()
    hour_ago = now - timedelta(hours=1)
    lengths, workers, redis_error = _queues_and_workers()
    queued = Submission.objects.filter(status=Status.QUEUED)
    oldest = queued.aggregate(oldest=Min("created_at"))["oldest"]
    finished = Submission.objects.filter(status=Status.DONE, finished_at__gte=hour_ago)
    mix = {row["verdict"]: row["n"] for row in
           finished.values("verdict").annotate(n=Count("pk")).order_by("verdict")}
    errors = [
        {"id": s.pk, "problem": s.problem.number, "user": s.user.get_username(),
         "at": s.finished_at, "message": s.message}
        for s in Submission.objects.filter(status=Status.DONE, verdict=VerdictChoice.IE)
        .select_related("problem", "user").order_by("-finished_at")[:10]
    ]
    return OpsFigures(
        queue_lengths=lengths,
        judgings_running=Submission.objects.filter(status=Status.RUNNING).count(),
        judgings_queued=queued.count(),
        oldest_waiting_s=(now - oldest).total_seconds() if oldest else None,
        rejudges_running=RejudgeItem.objects.filter(status=RejudgeStatus.RUNNING).count(),
        rejudges_waiting=RejudgeItem.objects.filter(status=RejudgeStatus.PENDING).count(),
        workers=workers,
        judged_last_hour=finished.count(),
        verdict_mix=mix,
        recent_internal_errors=errors,
        redis_error=redis_error,
    )


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def prometheus_text(figures: OpsFigures) -> str:
    """The figures in Prometheus' text exposition format (version 0.0.4)."""
    lines: list[str] = []

    def metric(name: str, kind: str, help_text: str,
               samples: list[tuple[dict[str, str], float]]) -> None:
        lines.append(f"# HELP {name} {help_text}")
        lines.append(f"# TYPE {name} {kind}")
        for labels, value in samples:
            text = ",".join(f'{k}="{_escape(v)}"' for k, v in labels.items())
            lines.append(f"{name}{{{text}}} {value:g}" if text else f"{name} {value:g}")

    metric("judge_queue_length", "gauge", "Messages waiting in each Celery queue.",
           [({"queue": q}, n) for q, n in figures.queue_lengths.items() if n is not None])
    metric("judge_judgings_running", "gauge", "Submissions being judged now.",
           [({}, figures.judgings_running)])
    metric("judge_judgings_queued", "gauge", "Submissions waiting for a worker.",
           [({}, figures.judgings_queued)])
    metric("judge_oldest_waiting_seconds", "gauge",
           "Age of the oldest submission waiting for a worker (0 when none).",
           [({}, figures.oldest_waiting_s or 0.0)])
    metric("judge_rejudges_running", "gauge", "Rejudge items being judged now.",
           [({}, figures.rejudges_running)])
    metric("judge_rejudges_waiting", "gauge", "Rejudge items waiting.",
           [({}, figures.rejudges_waiting)])
    metric("judge_workers_alive", "gauge", "Workers whose heartbeat is fresh.",
           [({}, len(figures.workers))])
    metric("judge_judgings_per_minute", "gauge", "Judgings finished per minute, last hour.",
           [({}, round(figures.judgings_per_minute, 3))])
    metric("judge_verdicts_last_hour", "gauge", "Judgings finished in the last hour by verdict.",
           [({"verdict": v or "none"}, n) for v, n in figures.verdict_mix.items()])
    metric("judge_redis_up", "gauge", "1 when Redis answered this scrape.",
           [({}, 0 if figures.redis_error else 1)])
    return "\n".join(lines) + "\n"
