"""Judge every known-correct solution (problems/*/solutions/AC/*.py) N times in Submit mode,
benchmark included, and print how often each was rejected, and why. Not part of CI: it is long
(N judgings per file, each with its benchmark). A correct file must be accepted N times out of N:
a rejection is a judge bug (a flaky hidden test, a re-verification stricter than the tests).

    scripts/check_ac_stability                      # every problem, N=20, docker backend
    scripts/check_ac_stability -n 3 --problems 52,53 --backend local
    scripts/check_ac_stability --bench-max-time-s 2  # shorter benchmarks (still re-verified)
    scripts/check_ac_stability --pool 2 --pause-file /tmp/pause  # as a worker; pausable
    scripts/check_ac_stability --pool 1 --cpuset 1  # pinned as a worker process is
    scripts/check_ac_stability --problems 60 --files scatter_and_mask.py

Exit status 1 when any file was rejected at least once.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import os
import secrets
import sys
import time

from sandbox.grader.contracts import JudgeResult, Mode, Verdict
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.host.backends.base import Backend, get_backend
from sandbox.tools import CATALOG

QUIET_WAIT_S = 10.0  # as a worker process waits for its pool's start in flight (worker/quiet.py)


def backend_for(package: ProblemPackage, args: argparse.Namespace, cache: dict[str, Backend]) -> Backend:
    if args.backend == "local":
        return cache.setdefault("local", get_backend("local"))
    image = args.triton_image if "triton" in package.requires else args.image
    if image not in cache:
        # --pool: as a worker process judges (warm sandboxes, the baseline's sandbox kept).
        cache[image] = get_backend(
            "docker", image=image, pool_size=args.pool, cpuset=args.cpuset or None
        )
    return cache[image]


def wait_while_paused(path: str) -> None:
    """Between judgings: wait while ``path`` exists (frees the machine for a measurement
    without cutting a judging short)."""
    announced = False
    while path and os.path.exists(path):
        if not announced:
            print(f"    paused while {path} exists", flush=True)
            announced = True
        time.sleep(1.0)


def judge_as_worker(package: ProblemPackage, source: str, backend: Backend) -> JudgeResult:
    """A Submit under a fresh secret. With a warm pool, as a worker process times it
    (judge_site/worker/engine.py, quiet.py): no refill from the start of the judging, and the pool's
    sandboxes still importing torch frozen (or at the lowest CPU weight) while it is timed."""
    from sandbox.grader.entry import judge
    from sandbox.host.phases import TimedBackend

    pool = getattr(backend, "pool", None)
    if pool is None or package.benchmark is None:
        return judge(package, source, mode=Mode.SUBMIT, backend=backend,
                     secret_seed=secrets.randbits(63))
    pool.hold()
    timed = TimedBackend(backend, before_timing=lambda: pool.quiet(QUIET_WAIT_S),
                         after_timing=pool.resume, close_in_background=False)
    try:
        return judge(package, source, mode=Mode.SUBMIT, backend=timed,
                     secret_seed=secrets.randbits(63))
    finally:
        timed.finish()
        pool.resume()


def why(result: object) -> str:
    for test in result.tests:  # type: ignore[attr-defined]
        if test.verdict not in (Verdict.AC, Verdict.SK):
            return f"{test.name}: {test.verdict} {test.message[:120]}"
    return str(result.message)[:160]  # type: ignore[attr-defined]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=20, help="judgings per file (default 20)")
    parser.add_argument("--problems", default="", help="comma-separated numbers (default: all)")
    parser.add_argument("--files", default="",
                        help="comma-separated file names under solutions/AC (default: all)")
    parser.add_argument("--backend", choices=["docker", "local"], default="docker")
    parser.add_argument("--image", default="tensor-judge-sandbox:cpu")
    parser.add_argument("--triton-image", default="tensor-judge-sandbox:triton")
    parser.add_argument("--bench-max-time-s", type=float, default=0.0,
                        help="cap each benchmark's time budget (default: the package's own)")
    parser.add_argument("--pool", type=int, default=0,
                        help="docker: keep this many sandboxes warm and the baseline's sandbox "
                        "between judgings, as a worker process does (default 0: fresh ones)")
    parser.add_argument("--pause-file", default="",
                        help="wait between judgings while this file exists")
    parser.add_argument("--cpuset", default="",
                        help="run every sandbox on these CPUs (e.g. 1 or 2-3) and this "
                        "script too, as a pinned worker process does (default: any CPU)")
    args = parser.parse_args()
    if args.cpuset:  # before torch is imported here: its thread pool follows the set
        from sandbox.host.backends.cpu_sets import parse_cpu_list

        cpus = parse_cpu_list(args.cpuset)
        os.sched_setaffinity(0, cpus)
        os.environ["OMP_NUM_THREADS"] = str(len(cpus))
    wanted = {int(p) for p in args.problems.split(",") if p.strip()}
    files = {f.strip() for f in args.files.split(",") if f.strip()}
    backends: dict[str, Backend] = {}
    failed = False
    started = time.monotonic()
    for folder in sorted(p for p in CATALOG.iterdir() if (p / "problem.toml").is_file()):
        package = load_package(folder)
        if wanted and package.number not in wanted:
            continue
        if args.bench_max_time_s and package.benchmark is not None:
            capped = dataclasses.replace(package.benchmark, max_time_s=args.bench_max_time_s)
            package = dataclasses.replace(package, benchmark=capped)
        backend = backend_for(package, args, backends)
        for verdict, file in package.solutions():
            if verdict != "AC" or (files and file.name not in files):
                continue
            source = file.read_text()
            rejections: collections.Counter[str] = collections.Counter()
            speedups = []
            trusts: collections.Counter[str] = collections.Counter()
            t0 = time.monotonic()
            for _ in range(args.n):
                wait_while_paused(args.pause_file)
                result = judge_as_worker(package, source, backend)
                if result.verdict != Verdict.AC:
                    rejections[f"{result.verdict}: {why(result)}"] += 1
                elif result.benchmark is not None:
                    if result.benchmark.speedup is not None:  # None: a rejected timing
                        speedups.append(result.benchmark.speedup)
                    rule = result.benchmark.rule
                    trusts[str(result.benchmark.trust) + (f" ({rule})" if rule else "")] += 1
            accepted = args.n - sum(rejections.values())
            failed |= bool(rejections)
            label = f"{folder.name}/solutions/AC/{file.name}"
            figures = f"speedup {min(speedups):.2f}-{max(speedups):.2f}" if speedups else "no benchmark"
            if trusts:
                figures += ", timing " + " ".join(f"{k} {v}" for k, v in sorted(trusts.items()))
            print(f"{'ok  ' if not rejections else 'FAIL'} {label}: accepted {accepted}/{args.n} "
                  f"({figures}; {time.monotonic() - t0:.0f} s)", flush=True)
            for reason, count in rejections.most_common():
                print(f"       {count}x {reason}", flush=True)
    for backend in backends.values():
        backend.close()
    print(f"done in {time.monotonic() - started:.0f} s", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
