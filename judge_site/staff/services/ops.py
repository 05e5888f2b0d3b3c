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

from judge_site.staff.models import RejudgeItem, RejudgeStatus
from judge_site.submissions.models import Status, Submission, VerdictChoice
from judge_site.worker import heartbeat

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
    # One per worker host seen (hosts_from_beats): alive, stopped (left cleanly) or gone.
    hosts: list[dict[str, Any]] = field(default_factory=list)

    @property
    def judgings_per_minute(self) -> float:
        return self.judged_last_hour / 60.0


def queue_names() -> list[str]:
    names = ["cpu", "gpu", settings.JUDGE_REJUDGE_QUEUE, settings.JUDGE_CHECK_QUEUE,
             settings.JUDGE_GPU_REJUDGE_QUEUE]
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


def hosts_from_beats(beats: list[dict[str, Any]], now_s: float,
                     held: dict[str, int] | None = None) -> list[dict[str, Any]]:
    """The worker hosts, from their workers' last beats (heartbeat.HOSTS_KEY), by name:
    ``{"host", "state", "queues", "capacity", "in_flight", "age_s", "workers", "held"}``.

    A worker is alive while its last beat is younger than heartbeat.HEARTBEAT_TTL_S, stopped
    when it said goodbye, gone when its beat lapsed. A host is alive when one of its workers
    is, else gone when one of them went without a goodbye, else stopped. ``capacity`` and
    ``in_flight`` (tasks running) add up its live workers (its last known ones when none is);
    ``held``: judgings still ``running`` under its workers' names (a gone host's wait for the
    reaper), from ``held`` (worker node name -> count)."""
    held = held or {}
    by_host: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    for beat in beats:
        age = max(0.0, now_s - float(beat.get("at", 0.0)))
        if beat.get("stopped"):
            state = "stopped"
        else:
            state = "alive" if age <= heartbeat.HEARTBEAT_TTL_S else "gone"
        name = str(beat.get("host") or beat.get("hostname", "").partition("@")[2] or "?")
        by_host.setdefault(name, []).append((state, {**beat, "age_s": age}))
    hosts = []
    for name, members in sorted(by_host.items()):
        states = {state for state, _ in members}
        state = "alive" if "alive" in states else "gone" if "gone" in states else "stopped"
        counted = [beat for s, beat in members if s == "alive"] or [b for _, b in members]
        hosts.append({
            "host": name,
            "state": state,
            "queues": sorted({q for _, b in members for q in b.get("queues", [])}),
            "capacity": sum(int(b.get("concurrency") or 0) for b in counted),
            "in_flight": sum(int(b.get("in_flight") or 0) for b in counted) if state == "alive"
            else 0,
            "age_s": round(min(b["age_s"] for _, b in members), 1),
            "workers": sorted(str(b.get("hostname", "")) for _, b in members),
            "held": sum(held.get(str(b.get("hostname", "")), 0) for _, b in members),
        })
    return hosts


def _hosts() -> list[dict[str, Any]]:
    """The record of worker hosts (Redis), forgetting those silent for HOST_FORGET_S."""
    client = _redis()
    now_s = time.time()
    beats = []
    for field_name, raw in client.hgetall(heartbeat.HOSTS_KEY).items():
        try:
            beat = json.loads(raw)
        except ValueError:
            beat = {}
        keep_s = heartbeat.STOPPED_FORGET_S if beat.get("stopped") else heartbeat.HOST_FORGET_S
        if now_s - float(beat.get("at", 0.0)) > keep_s:
            client.hdel(heartbeat.HOSTS_KEY, field_name)
            continue
        beats.append(beat)
    held = dict(
        Submission.objects.filter(status=Status.RUNNING).exclude(worker="")
        .values("worker").annotate(n=Count("pk")).order_by().values_list("worker", "n")
    )
    return hosts_from_beats(beats, now_s, held)


def ops_figures(now: Any = None) -> OpsFigures:
    now = now or timezone.now()
    hour_ago = now - timedelta(hours=1)
    lengths, workers, redis_error = _queues_and_workers()
    try:
        hosts = _hosts() if not redis_error else []
    except Exception as exc:  # the rest of the page still shows
        hosts, redis_error = [], f"Redis: {type(exc).__name__}: {exc}"
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
        hosts=hosts,
    )
