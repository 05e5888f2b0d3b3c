"""Faults of the compose stack: no judging is lost or judged twice when a service restarts.

On the offline stack of `scripts/up` that test_platform_compose.py checks first (started once
for both, tests/platform/conftest.py; two worker processes), each round sends a burst of Run
judgings of problem 48 (three of one user, which exercises the per-user "busy" hand-off, and
one each of two others), waits until one is running, restarts one service (postgres, redis,
worker, web, beat), and then checks that every judging of the burst reaches its verdict within
two minutes of the service being back, that none was judged to the end twice (each worker
logs "submission N: judged ..." once per verdict it writes), that no sandbox is left behind,
and that the site answers again. It prints a table (fault, in flight, lost, duplicated,
retried, time to recover, site back). A last round stops the worker (SIGTERM, 60 s grace) in
the middle of two long judgings: it must stop in seconds, and both reach their verdict after.

The Docker engine itself is not restarted here: the suite does not own it (CI's dockerd also
runs every other test's containers).
"""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime

import machine_load
import pytest
from compose_stack import ROOT, Stack, config_json

pytestmark = [pytest.mark.docker, pytest.mark.slow]

FAULTS = ["postgres", "redis", "worker", "web", "beat"]
# docker restart's grace before SIGKILL: the worker is killed mid-judging (the harsh case).
STOP_GRACE_S = {"worker": 2}
RECOVER_WITHIN_S = 120
WORKER_CONCURRENCY = 2
SLEEP_S = 2  # each judging's import sleeps this long, so that the burst is in flight

BURST = """
import json
from pathlib import Path
from django.contrib.auth import get_user_model
from judge_site.catalog.models import Problem
from judge_site.submissions.services import submission_create
problem = Problem.objects.get(number=48)
code = "import time\\ntime.sleep({sleep_s})\\n" + Path("{path}").read_text() + {tail!r}
ids = []
for name, count in {users!r}:
    user, _ = get_user_model().objects.get_or_create(username=name)
    ids += [submission_create(user, problem, code, "run").pk for _ in range(count)]
print("IDS", json.dumps(ids))
"""


@dataclass
class Row:
    fault: str
    in_flight: int = 0
    lost: int = 0
    duplicated: int = 0
    retried: int = 0
    service_back_s: float = 0.0
    recover_s: float = 0.0
    site_back_s: float = 0.0
    notes: list[str] = field(default_factory=list)


ROWS: list[Row] = []
NOTES: list[str] = []


def test_the_compose_redis_keeps_its_queue_on_disk() -> None:
    services = config_json("-f", "docker-compose.yml", "-f", "docker-compose.offline.yml")
    redis = services["services"]["redis"]
    command = " ".join(redis["command"])
    assert "--appendonly yes" in command
    assert any(v.get("target") == "/data" and v.get("type") == "volume" for v in redis["volumes"])
    dockerfile = (ROOT / "docker" / "redis.Dockerfile").read_text()
    assert '"--appendonly", "yes"' in dockerfile


@pytest.fixture(scope="module")
def faulty_stack(stack: Stack, request: pytest.FixtureRequest) -> Iterator[Stack]:
    """The shared stack (conftest.py); at the end the table, and the logs when a judging was
    lost or duplicated."""
    assert stack.env["WORKER_CONCURRENCY"] == str(WORKER_CONCURRENCY), stack.env
    try:
        yield stack
    finally:
        _print_table(request)
        if any(r.lost or r.duplicated for r in ROWS):
            logs = stack.compose("logs", "--no-color", "--tail", "200", "worker", "beat").stdout
            artifacts = ROOT / "test-artifacts"
            artifacts.mkdir(exist_ok=True)
            (artifacts / "faults-logs.txt").write_text(logs)


def _print_table(request: pytest.FixtureRequest) -> None:
    if not ROWS and not NOTES:
        return
    lines = [
        "fault suite: time to recover = from the service answering again to the last verdict",
        f"{'fault':<10}{'in flight':>10}{'lost':>6}{'duplicated':>12}{'retried':>9}"
        f"{'service back':>14}{'time to recover':>17}{'site back':>11}",
    ]
    for r in ROWS:
        lines.append(
            f"{r.fault:<10}{r.in_flight:>10}{r.lost:>6}{r.duplicated:>12}{r.retried:>9}"
            f"{r.service_back_s:>12.0f} s{r.recover_s:>15.0f} s{r.site_back_s:>9.0f} s"
            + (f"  {'; '.join(r.notes)}" if r.notes else "")
        )
    lines += NOTES
    text = "\n".join(lines)
    (ROOT / "test-artifacts").mkdir(exist_ok=True)
    (ROOT / "test-artifacts" / "faults.txt").write_text(text + "\n")
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None:
        reporter.write_line("")
        for line in lines:
            reporter.write_line(line)
    else:
        print(text)


def _psql(stack: Stack, sql: str) -> list[list[str]] | None:
    """Rows of a query on the stack's Postgres, or None while it is unavailable."""
    proc = stack.psql(sql, timeout=30)
    if proc.returncode != 0:
        return None
    return [line.split("|") for line in proc.stdout.splitlines() if line.strip()]


def _states(stack: Stack, ids: list[int]) -> dict[int, tuple[str, str, int]] | None:
    rows = _psql(
        stack,
        "select id, status, verdict, attempts from submissions_submission "
        f"where id in ({','.join(map(str, ids))})",
    )
    if rows is None:
        return None
    return {int(r[0]): (r[1], r[2], int(r[3])) for r in rows}


def _site_answers(stack: Stack) -> bool:
    try:
        with urllib.request.urlopen(stack.url + "/healthz", timeout=5) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError):
        return False


def _judged_counts(stack: Stack) -> Counter[int]:
    logs = stack.compose("logs", "--no-color", "worker", timeout=60).stdout
    return Counter(int(m) for m in re.findall(r"submission (\d+): judged [A-Z]+ \(attempt", logs))


def _sandboxes_left(stack: Stack) -> list[str]:
    """Sandboxes the worker left behind: any judging sandbox labelled with its node name
    (every judging removes its own), and warm ones and confined graders (both live across
    judgings) its host started before the worker's current run."""
    import docker

    from sandbox.host.backends.docker import listed_labels

    client = docker.from_env()
    worker = client.containers.get(stack.compose("ps", "-q", "worker").stdout.strip())
    started = datetime.fromisoformat(worker.attrs["State"]["StartedAt"][:19] + "+00:00")
    host = worker.attrs["Config"]["Hostname"]
    left = []
    # sparse: the list's own fields, no inspect per container (one may go meanwhile)
    for c in client.containers.list(
        all=True, sparse=True, filters={"label": "tensor-judge.sandbox"}
    ):
        labels = listed_labels(c)
        created = float(labels.get("tensor-judge.created", "0"))
        before_restart = created < started.timestamp() - 1
        if labels.get("tensor-judge.worker") != f"cpu@{host}":
            pass
        elif labels.get("tensor-judge.role") == "grader":
            # the worker's confined graders live across judgings; one from before its
            # restart is left behind
            if before_restart:
                left.append(f"{c.short_id} (grader, from before the worker's restart)")
        else:
            left.append(f"{c.short_id} (judging sandbox, {c.attrs.get('State')})")
        if labels.get("tensor-judge.pool-owner") == host and before_restart:
            left.append(f"{c.short_id} (warm, from before the worker's restart)")
    return left


def _back(stack: Stack, fault: str, since: float) -> bool:
    """Whether the restarted service answers again: Postgres and Redis their ping, web its
    health check, a Celery worker (worker; beat's) its "ready." line."""
    if fault == "postgres":
        return stack.compose("exec", "-T", "postgres", "pg_isready", "-U", "judge").returncode == 0
    if fault == "redis":
        # (its password, once a join line was asked for: the health check's way)
        auth = '[ -z "$REDIS_PASSWORD" ] || export REDISCLI_AUTH="$REDIS_PASSWORD"; '
        ping = stack.compose("exec", "-T", "redis", "sh", "-c", auth + "redis-cli ping")
        return "PONG" in ping.stdout
    if fault == "web":
        return _site_answers(stack)
    iso = datetime.fromtimestamp(since, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    logs = stack.compose("logs", "--no-color", "--since", iso, fault).stdout
    return " ready." in logs


def _burst(
    stack: Stack, fault: str, sleep_s: float = SLEEP_S, counts: tuple[int, ...] = (3, 1, 1),
    tail: str = "",
) -> list[int]:
    accepted = sorted(ROOT.glob("problems/048-*/solutions/AC/*.py"))
    assert accepted, "problem 48 has no solutions/AC/ file"
    path = "/app/" + str(accepted[0].relative_to(ROOT))
    users = [(f"{fault}-{name}", n) for name, n in zip(("ann", "ben", "cat"), counts, strict=False)]
    out = stack.manage(
        "web", "shell", "-c", BURST.format(sleep_s=sleep_s, path=path, users=users, tail=tail)
    )
    return json.loads(out[out.index("IDS ") + 4 :].splitlines()[0])


def _wait_until_one_runs(stack: Stack, ids: list[int]) -> dict[int, tuple[str, str, int]]:
    deadline = time.monotonic() + 90
    while True:  # hit the burst while a judging runs
        states = _states(stack, ids) or {}
        if any(s[0] == "running" for s in states.values()):
            return states
        assert time.monotonic() < deadline, f"no judging of the burst started: {states}"
        time.sleep(0.3)


# A minute is the target; the margin is for a loaded CI machine, where the triton sandbox's
# first start (Triton and torch imported) competes with the warm pools filling up.
RUN_56_WITHIN_S = 90

RUN_56 = """
import time
from pathlib import Path
from django.contrib.auth import get_user_model
from judge_site.catalog.models import Problem
from judge_site.submissions.services import submission_create
user, _ = get_user_model().objects.get_or_create(username="triton-student")
problem = Problem.objects.get(number=56)
sub = submission_create(user, problem, Path("{path}").read_text(), "run")
deadline = time.monotonic() + {within_s}
while time.monotonic() < deadline and sub.status != "done":
    time.sleep(1)
    sub.refresh_from_db()
print("RESULT", sub.status, sub.verdict, "|", sub.environment.get("routing", ""), "|",
      sub.message, "| judged in",
      round((sub.finished_at - sub.created_at).total_seconds()) if sub.finished_at else "-", "s")
"""


def test_a_run_of_the_triton_problem_ends_with_a_verdict_on_the_default_stack(
    faulty_stack: Stack,
) -> None:
    """Problem 56 (device gpu) on a stack without GPU workers: judged on the CPU worker in the
    triton image's interpreter within a minute, and the result says so."""
    accepted = sorted(ROOT.glob("problems/056-*/solutions/AC/*.py"))
    assert accepted, "problem 56 has no solutions/AC/ file"
    path = "/app/" + str(accepted[0].relative_to(ROOT))
    out = faulty_stack.manage(
        "web", "shell", "-c", RUN_56.format(path=path, within_s=RUN_56_WITHIN_S)
    )
    result = out[out.index("RESULT") :].strip()
    NOTES.append(f"problem 56, Run on the default stack: {result}")
    assert result.startswith("RESULT done AC"), result
    assert "Triton's interpreter" in result


@pytest.mark.parametrize("fault", FAULTS)
def test_a_restart_loses_no_judging(faulty_stack: Stack, fault: str) -> None:
    stack = faulty_stack
    row = Row(fault)
    ROWS.append(row)
    ids = _burst(stack, fault)
    states = _wait_until_one_runs(stack, ids)
    row.in_flight = sum(1 for s in states.values() if s[0] != "done")

    grace = STOP_GRACE_S.get(fault, 5)
    restarted_at = time.time()
    restart = stack.compose("restart", "-t", str(grace), fault, timeout=180)
    assert restart.returncode == 0, restart.stderr
    started = time.monotonic()
    while not _back(stack, fault, restarted_at):
        assert time.monotonic() < started + 180, f"{fault} did not come back in 3 minutes"
        time.sleep(1)
    back = time.monotonic()
    row.service_back_s = back - started

    _check_recovery(stack, row, ids, started, back)


def _check_recovery(stack: Stack, row: Row, ids: list[int], started: float, back: float) -> None:
    """Every judging of the burst reaches its verdict (AC) within RECOVER_WITHIN_S of the
    service being back, none judged to the end twice, no sandbox left, the site answers."""
    fault = row.fault
    finished: float | None = None
    site_back: float | None = None
    # The bound is for a machine of its own: the busiest load seen during the recovery
    # stretches it (and the wait for it).
    stretch = machine_load.stretch()
    states: dict[int, tuple[str, str, int]] = {}
    while time.monotonic() < back + (RECOVER_WITHIN_S + 60) * stretch:
        stretch = max(stretch, machine_load.stretch())
        if site_back is None and _site_answers(stack):
            site_back = time.monotonic()
        states = _states(stack, ids) or states
        if len(states) == len(ids) and all(s[0] == "done" for s in states.values()):
            finished = time.monotonic()
            break
        time.sleep(1)
    while site_back is None and time.monotonic() < back + (RECOVER_WITHIN_S + 60) * stretch:
        if _site_answers(stack):
            site_back = time.monotonic()
        time.sleep(1)

    row.recover_s = (finished or time.monotonic()) - back
    row.site_back_s = (site_back or time.monotonic()) - started
    row.lost = sum(1 for sid in ids if states.get(sid, ("?",))[0] != "done")
    row.retried = sum(1 for s in states.values() if s[2] > 1)
    judged = _judged_counts(stack)
    row.duplicated = sum(1 for sid in ids if judged[sid] > 1)
    verdicts = Counter(s[1] for s in states.values())
    if set(verdicts) - {"AC"}:
        row.notes.append(f"verdicts {dict(verdicts)}")

    left: list[str] = []
    sweep_deadline = time.monotonic() + 30
    while time.monotonic() < sweep_deadline:
        left = _sandboxes_left(stack)
        if not left:
            break
        time.sleep(2)
    if left:
        row.notes.append(f"sandboxes left: {left}")

    assert row.lost == 0, f"{fault}: judgings never finished: {states}"
    assert row.duplicated == 0, f"{fault}: judged to the end twice: {judged}"
    assert verdicts == Counter({"AC": len(ids)}), f"{fault}: {states}"
    assert row.recover_s <= RECOVER_WITHIN_S * stretch, (
        f"{fault}: {row.recover_s:.0f} s to recover; load x{stretch:.1f}"
    )
    assert site_back is not None, f"{fault}: the site did not answer again"
    assert not left, f"{fault}: sandboxes left behind: {left}"


# A stop (SIGTERM, as `docker compose stop`, `scripts/up` and an upgrade send it) while judgings
# run: the worker lets them run CELERY_WORKER_SOFT_SHUTDOWN_TIMEOUT_S (10 s), then cancels them
# (their messages go back to the queue: acks_late) and exits, far below its 60 s grace; before,
# Celery's warm shutdown waited for the judgings however long they took (39 s here), and dockerd
# killed a worker whose judging outlasted the grace.
STOP_WITHIN_S = 25
# A Run of problem 48 that takes about 16 s: its import and each of its three public calls of
# `embed` sleep 4 s (each request's limit is 10 s): the stop comes 3 s into the import.
SLOW_S = 4
SLOW_EMBED = f"\n_embed = embed\ndef embed(*a, **k):\n    time.sleep({SLOW_S})\n    return _embed(*a, **k)\n"


def test_a_worker_stopped_mid_judging_stops_in_seconds_and_loses_nothing(
    faulty_stack: Stack,
) -> None:
    stack = faulty_stack
    row = Row("worker stop")
    ROWS.append(row)
    ids = _burst(stack, "stop", sleep_s=SLOW_S, counts=(1, 1), tail=SLOW_EMBED)
    states = _wait_until_one_runs(stack, ids)
    row.in_flight = sum(1 for s in states.values() if s[0] != "done")
    time.sleep(3)  # in the judging's sleeping import

    stopped_at = time.time()
    started = time.monotonic()
    stop = stack.compose("stop", "-t", "60", "worker", timeout=180)
    stop_s = time.monotonic() - started
    assert stop.returncode == 0, stop.stderr
    row.notes.append(f"stopped in {stop_s:.1f} s (grace 60 s)")
    iso = datetime.fromtimestamp(stopped_at, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    stopping = stack.compose("logs", "--no-color", "--since", iso, "worker").stdout
    # Cancelled, not waited for (a warm shutdown ends only after both verdicts).
    cut = [sid for sid, s in (_states(stack, ids) or {}).items() if s[0] != "done"]
    assert cut, f"the stop waited for the judgings to end:\n{stopping[-3000:]}"
    start = stack.compose("start", "worker", timeout=180)
    assert start.returncode == 0, start.stderr
    while not _back(stack, "worker", stopped_at):
        assert time.monotonic() < started + 180, "the worker did not come back in 3 minutes"
        time.sleep(1)
    back = time.monotonic()
    row.service_back_s = back - started

    _check_recovery(stack, row, ids, started, back)
    assert stop_s <= STOP_WITHIN_S * machine_load.stretch(), (
        f"the worker took {stop_s:.0f} s to stop mid-judging:\n{stopping[-3000:]}"
    )
