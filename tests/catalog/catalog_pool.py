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

from sandbox.check import CheckReport

WORKERS = 2


def check_local(package_dir: str, bench: bool) -> CheckReport:
    """check_package(package, local backend): the job of one worker process."""
    from sandbox.backends.base import get_backend
    from sandbox.check import check_package
    from sandbox.problem import load_package

    return check_package(load_package(Path(package_dir)), get_backend("local"), bench=bench)


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
