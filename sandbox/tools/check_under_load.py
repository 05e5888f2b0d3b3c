"""The catalog's package check with CPU hogs running beside it: does load turn correct code
into anything but AC? (issue 41: a time limit is CPU time, so it must not). Figures, not a test.

    scripts/check_under_load                          # every problem, full check, 2 hogs per core
    scripts/check_under_load --problems 48,54 --ac-only
    scripts/check_under_load --hogs-per-core 0        # the same check without hogs (the control)
    scripts/check_under_load --backend docker         # the Docker sandbox (images built)

Starts ``--hogs-per-core`` x cores busy-looping processes (each pinned to one core, each ending
by itself after ``--max-s`` even if this script is killed), then checks each package as
``manage.py check_problems`` does (sandbox.grader.check.check_package, local backend by
default, the package's own limits: no stretch), or with ``--ac-only`` judges only its reference
and solutions/AC files. Prints, per problem, the verdict of every AC file and the machine's
load average, then the count of AC files that did not get AC and what the hogs used. The
hogs are stopped (by their ids) at the end. Exit status 1 when an AC file did not get AC.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import signal
import subprocess
import sys
import time

from sandbox.grader.check import CheckItem, check_package
from sandbox.grader.contracts import Mode, Verdict
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.host.backends.base import Backend, get_backend
from sandbox.host.backends.local import proc_cpu_ns
from sandbox.tools import CATALOG

# One hog: pinned to its core, busy until its deadline (bounded even if nobody stops it).
HOG = """
import os, sys, time
os.sched_setaffinity(0, {int(sys.argv[2])})
end = time.monotonic() + float(sys.argv[1])
while time.monotonic() < end:
    pass
"""


def load_avg() -> str:
    one, five, _ = os.getloadavg()
    return f"load {one:.1f}/{five:.1f}"


class Hogs:
    """``count`` busy processes, hog i on core i mod cores, each ending after ``max_s``."""

    def __init__(self, count: int, max_s: float) -> None:
        cores = sorted(os.sched_getaffinity(0))
        self.started = time.monotonic()
        self.procs = [
            subprocess.Popen(
                [sys.executable, "-c", HOG, str(max_s), str(cores[i % len(cores)])],
                start_new_session=True,
            )
            for i in range(count)
        ]

    @staticmethod
    def _cpu_s(pid: int) -> float | None:
        """A hog's CPU time (it has no children: utime + stime)."""
        ns = proc_cpu_ns(pid)
        return None if ns is None else ns / 1e9

    def report(self) -> str:
        """What the hogs still running have used: CPU-s each and their share of the wall time."""
        wall = time.monotonic() - self.started
        used = [
            c for c in (self._cpu_s(p.pid) for p in self.procs if p.poll() is None) if c is not None
        ]
        if not self.procs:
            return "no hogs"
        if not used or wall <= 0:
            return f"{len(self.procs)} hogs: none running at the end (ended by --max-s?)"
        share = sum(used) / len(used) / wall
        return (
            f"{len(self.procs)} hogs ran {wall:.0f} s: {len(used)} still running, "
            f"{sum(used):.0f} CPU-s in all, each {100 * share:.0f} % of a core on average"
        )

    def stop(self) -> None:
        for proc in self.procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def backend_for(
    package: ProblemPackage, args: argparse.Namespace, cache: dict[str, Backend]
) -> Backend:
    if args.backend == "local":
        return cache.setdefault("local", get_backend("local"))
    image = args.triton_image if "triton" in package.requires else args.image
    if image not in cache:
        cache[image] = get_backend("docker", image=image)
    return cache[image]


def ac_items(package: ProblemPackage, backend: Backend, full: bool) -> list[CheckItem]:
    """The check's items for the reference and each solutions/AC file (the whole check when
    ``full``: its other items are returned too, after these)."""
    if full:
        report = check_package(package, backend, bench=False)
        if report.skipped:
            return [CheckItem(f"skipped: {report.skipped}", True)]
        return report.items
    from sandbox.grader.entry import judge
    from sandbox.grader.kernels_source import inline_kernels

    no_bench = dataclasses.replace(package, benchmark=None)
    files = [package.answer_file] + [f for v, f in package.solutions() if v == "AC"]
    items = []
    for file in files:
        started = time.monotonic()
        source = file.read_text()
        if file == package.answer_file and package.language == "python":
            source = inline_kernels(source, filename=str(file))  # as the check judges it
        result = judge(no_bench, source, mode=Mode.SUBMIT, backend=backend)
        name = (
            f"reference ({file.name}) is AC"
            if file == package.answer_file
            else f"solutions/AC/{file.name} gets AC"
        )
        detail = "" if result.verdict == Verdict.AC else why(result)
        items.append(
            CheckItem(name, result.verdict == Verdict.AC, detail, time.monotonic() - started)
        )
    return items


def why(result: object) -> str:
    """The first test that was not AC, or the result's message."""
    for test in result.tests:  # type: ignore[attr-defined]
        if test.verdict not in (Verdict.AC, Verdict.SK):
            return f"{test.verdict} in {test.name}: {test.message[:160]}"
    return f"{result.verdict}: {str(result.message)[:160]}"  # type: ignore[attr-defined]


def is_ac_item(name: str) -> bool:
    return name.startswith("reference (") or (
        name.startswith("solutions/AC/") and name.endswith(" gets AC")
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="check_under_load",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--problems", default="", help="comma-separated numbers (default: all)")
    parser.add_argument("--hogs-per-core", type=int, default=2)
    parser.add_argument(
        "--max-s",
        type=float,
        default=3600.0,
        help="the hogs end by themselves after this long; no problem starts after it",
    )
    parser.add_argument(
        "--ac-only",
        action="store_true",
        help="judge only the reference and solutions/AC files (not the whole check)",
    )
    parser.add_argument("--backend", choices=["local", "docker"], default="local")
    parser.add_argument("--image", default="tensor-judge-sandbox:cpu")
    parser.add_argument("--triton-image", default="tensor-judge-sandbox:triton")
    args = parser.parse_args(argv)
    wanted = {int(p) for p in args.problems.split(",") if p.strip()}
    folders = sorted(p for p in CATALOG.iterdir() if (p / "problem.toml").is_file())
    packages = [pkg for pkg in map(load_package, folders) if not wanted or pkg.number in wanted]

    cores = len(os.sched_getaffinity(0))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # the finally below stops the hogs
    print(
        f"{len(packages)} problem(s), {args.backend} backend, {'AC files only' if args.ac_only else 'full check'}; "
        f"{args.hogs_per_core * cores} hogs on {cores} cores; {load_avg()} before",
        flush=True,
    )
    hogs = Hogs(args.hogs_per_core * cores, args.max_s)
    backends: dict[str, Backend] = {}
    ac_total = ac_bad = other_bad = 0
    bad_lines: list[str] = []
    started = time.monotonic()
    try:
        time.sleep(2.0)  # the hogs are running before the first judging
        for package in packages:
            if time.monotonic() - started > args.max_s:
                print(f"stopped: --max-s {args.max_s:g} s passed", flush=True)
                break
            t0 = time.monotonic()
            items = ac_items(package, backend_for(package, args, backends), full=not args.ac_only)
            ac = [i for i in items if is_ac_item(i.name)]
            others = [i for i in items if not is_ac_item(i.name) and not i.ok]
            ac_total += len(ac)
            ac_bad += sum(not i.ok for i in ac)
            other_bad += len(others)
            verdicts = ", ".join(
                f"{i.name.split(' ')[0].removeprefix('solutions/AC/')} "
                f"{'AC' if i.ok else 'NOT AC'} {i.seconds:.1f}s"
                for i in ac
            )
            print(
                f"{package.folder_name}: {sum(i.ok for i in ac)}/{len(ac)} AC [{verdicts}] "
                f"{time.monotonic() - t0:.0f} s, {load_avg()}",
                flush=True,
            )
            for item in [i for i in ac if not i.ok] + others:
                line = f"  FAIL {package.folder_name} {item.name}: {item.detail}"
                bad_lines.append(line)
                print(line, flush=True)
        print(hogs.report())
    finally:
        hogs.stop()
    print(
        f"AC files not AC under load: {ac_bad} of {ac_total}; other check items failed: {other_bad}; "
        f"{time.monotonic() - started:.0f} s, {load_avg()} at the end"
    )
    for line in bad_lines:
        print(line)
    return 1 if ac_bad else 0


if __name__ == "__main__":
    sys.exit(main())
