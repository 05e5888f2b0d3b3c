"""The catalog's package checks, two at a time in worker processes (test_catalog_check.py):
every package's local check, the Triton packages' too (Triton's interpreter, in the venv).

Each check is mostly fresh runner processes starting and importing torch, one after the other:
one core's work. Two checks side by side use both cores of a CI machine, and the catalog's
checks take about half the wall time. Each check runs whole in its own process (spawned, not
forked: no torch or Django state of the test process is shared), exactly as in the test process.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from sandbox.grader.check import CheckReport

WORKERS = 2
# The per-test time limit of the checks here, times this. The local backend's limit is wall
# time, and these checks run two at a time beside the other line of the suite (load 6-15 on two
# cores): stop 36's run 4 got TLE for 054's correct fused_function.py on big_vocab_with_grads
# (its 20 s limit), the false TLE issue 41 describes (a CPU-time limit is its real fix). The
# catalog ships no solutions/TLE file (a package that does keeps its limit), so no expected
# verdict depends on the limit's size.
TIME_STRETCH = 3.0


def check_local(package_dir: str, bench: bool) -> CheckReport:
    """check_package(package, local backend): the job of one worker process."""
    import dataclasses

    from sandbox.grader.check import check_package
    from sandbox.grader.package import load_package
    from sandbox.host.backends.base import get_backend

    package = load_package(Path(package_dir))
    if not any(verdict == "TLE" for verdict, _ in package.solutions()):
        limits = dataclasses.replace(package.limits, time_s=package.limits.time_s * TIME_STRETCH)
        package = dataclasses.replace(package, limits=limits)
    return check_package(package, get_backend("local"), bench=bench)


class CheckPool:
    """Checks submitted up front, the longest first; each test waits for its own. ``jobs``:
    (package, bench) for the local backend."""

    def __init__(self, jobs: list[tuple[Path, bool]], first: list[str]) -> None:
        self._executor = ProcessPoolExecutor(
            max_workers=WORKERS, mp_context=multiprocessing.get_context("spawn")
        )
        # The long checks first (named in ``first``), so that no long one is left for the end.
        def rank(job: tuple[Path, bool]) -> tuple[int, str, bool]:
            prefix = job[0].name[:3]
            return (first.index(prefix) if prefix in first else len(first), job[0].name, job[1])

        order = sorted(jobs, key=rank)
        self._futures: dict[tuple[str, bool], Future[CheckReport]] = {
            (path.name, bench): self._executor.submit(check_local, str(path), bench)
            for path, bench in order
        }

    def report(self, package_dir: Path, bench: bool = False) -> CheckReport:
        """The check of ``package_dir``; without the benchmark, the one with it if that is the
        one submitted (it judges the same files)."""
        key = (package_dir.name, bench)
        if key not in self._futures and not bench:
            key = (package_dir.name, True)
        return self._futures[key].result()

    def close(self) -> None:
        self._executor.shutdown(wait=True, cancel_futures=True)
