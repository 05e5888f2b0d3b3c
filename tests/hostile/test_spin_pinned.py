"""Submissions that burn CPU between their own calls (submissions/spin_*.py), judged with both
sandboxes pinned to ONE CPU, as a worker process pins them (sandbox/host/backends/cpu_sets.py):
there the spinner would halve the baseline's share of the CPU and double the speedup. The
baseline's calls then wait for the CPU (its run delay, ``baseline_waited``), so its figure is
capped at its times with the student's sandbox stopped (the quiet baseline,
sandbox/bench/trust.py ``baseline_quiet_cap``), and the speedup stays near the true one
(about 1: the control is as fast as the baseline), whatever the trust says."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import machine_load
import pytest

from sandbox.grader.contracts import Limits, Mode, Verdict
from sandbox.grader.package import load_package
from sandbox.host.backends.base import get_backend

pytestmark = [pytest.mark.docker, pytest.mark.slow]

SUBMISSIONS = Path(__file__).with_name("submissions")
PROBLEM = Path(__file__).resolve().parents[2] / "problems" / "048-embedding-tied-head-padding"
LIMITS = Limits(time_s=2.0, memory_mib=512, output_kib=64, pids=128, tmpfs_mib=32)
MAX_SPEEDUP = 1.3  # a spinner on one CPU gave ~2x before the cap


def source_of(name: str) -> str:
    lines = []
    for line in (SUBMISSIONS / f"{name}.py").read_text().splitlines(keepends=True):
        if line.startswith("# @include "):
            line = (SUBMISSIONS / f"{line.split()[-1]}.py").read_text() + "\n"
        lines.append(line)
    return "".join(lines)


@pytest.mark.parametrize("name", ["spin_thread"])  # spin_child: refused (a process left running)
def test_a_spinner_on_the_shared_cpu_gains_nothing(
    name: str, docker_client: Any, sandbox_image: str
) -> None:
    from sandbox.grader.entry import judge

    package = load_package(PROBLEM)
    assert package.benchmark is not None
    bench = dataclasses.replace(package.benchmark, max_time_s=2.0)
    package = dataclasses.replace(package, limits=LIMITS, benchmark=bench)
    cpu = str(min(os.sched_getaffinity(0)))
    backend = get_backend("docker", image=sandbox_image, cpuset=cpu)
    # A second judging only when the first is above the bound: a burst of load from the rest
    # of a busy host on that CPU can slow one judging's baseline (quiet rounds included); the
    # spinner slowed every judging's (1.5-1.7x for spin_thread without the cap).
    speedups, notes = [], []
    try:
        for _ in range(2):
            result = judge(package, source_of(name), mode=Mode.SUBMIT, backend=backend)
            assert result.verdict == Verdict.AC, result.message
            assert result.benchmark is not None
            # a rejected timing has no figure (and gains nothing): below any bound
            speedups.append(result.benchmark.speedup or 0.0)
            notes.append(result.benchmark.note)
            if speedups[-1] < MAX_SPEEDUP:
                break
    finally:
        backend.close()
    if min(speedups) < MAX_SPEEDUP:
        return
    # Above the bound twice: excused only on a host busy beyond its CPUs (the suite's other
    # sessions on this CPU slow the quiet rounds too, so the cap bounds less), and then the
    # baseline must have been bounded by its time with the spinner stopped in every judging.
    load = machine_load.stretch()
    assert machine_load.quiet_cap_excuses(notes, load), (speedups, notes, f"load x{load:.1f}")


def test_an_honest_file_beside_the_hosts_load_is_not_capped(
    docker_client: Any, sandbox_image: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other side of the rule: a process of the host (not the student's) spinning on the
    same CPU makes the baseline wait, but the student's sandbox, blocked on its channel, uses
    no CPU meanwhile (its cgroup's count, ``ran_beside``): no quiet block, no cap, and nothing
    in the note about it. Before, every such wait capped an honest speedup at random."""
    import subprocess
    import sys

    import sandbox.bench as bench
    from sandbox.bench import trust
    from sandbox.grader.entry import judge

    package = load_package(PROBLEM)
    assert package.benchmark is not None
    bench_cfg = dataclasses.replace(package.benchmark, max_time_s=2.0)
    package = dataclasses.replace(package, limits=LIMITS, benchmark=bench_cfg)
    cpu = min(os.sched_getaffinity(0))
    backend = get_backend("docker", image=sandbox_image, cpuset=str(cpu))
    seen: list[tuple[float | None, float | None]] = []
    real = bench.needs_quiet_cap

    def spy(base: Any, policy: Any = trust.POLICY) -> bool:
        seen.append((trust.wait_share(base), trust.beside_share(base)))
        return real(base, policy)

    monkeypatch.setattr(bench, "needs_quiet_cap", spy)
    hog = subprocess.Popen(
        [sys.executable, "-c", f"import os; os.sched_setaffinity(0, {{{cpu}}})\nwhile True: pass"]
    )
    results = []
    try:
        # Up to three judgings, until one's baseline waited for the hog: a waking thread may
        # preempt the spinner at once (the kernel's scheduler favours a sleeper that wakes;
        # one judging of the CI machine's waited 0.2-1.1 % of its time, below the rule's 2 %),
        # and then the judging did not meet the situation this test is about.
        for _ in range(3):
            results.append(
                judge(package, source_of("correct_control"), mode=Mode.SUBMIT, backend=backend)
            )
            if waited(seen):
                break
    finally:
        hog.kill()
        hog.wait()
        backend.close()
    assert waited(seen), seen
    assert all(share is not None and share <= trust.POLICY.beside_cpu_fraction for _, share in seen), seen
    for result in results:
        assert result.verdict == Verdict.AC, result.message
        assert result.benchmark is not None
        assert "bounds it" not in result.benchmark.note
        assert "baseline_quiet_cap" not in result.benchmark.rule


def waited(seen: list[tuple[float | None, float | None]]) -> bool:
    """Whether any baseline series seen waited for a CPU beyond the quiet rule's share."""
    from sandbox.bench import trust

    return any(wait is not None and wait > trust.POLICY.quiet_wait_fraction for wait, _ in seen)
