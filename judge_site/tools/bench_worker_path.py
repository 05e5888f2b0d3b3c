"""Judge one file N times the way a worker process does (warm pool, pinned CPU set, phases),
without the site: where a judging's time goes, for tuning (not a test; figures only).

    scripts/bench_worker_path [--problem 48] [--file FILE] [--mode submit] [-n 8] [--pool 2]
                              [--cpuset auto] [--gap-s 0.5]

Prints per judging: verdict, speedup, trust, wall time and the phases; then medians and the
speedup's CV. Uses the docker backend and the images of scripts/build_images, and the settings
of DJANGO_SETTINGS_MODULE (scripts/bench_worker_path: judge_site.settings_test unless set).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from sandbox.tools import CATALOG


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--problem", type=int, default=48)
    parser.add_argument("--file", type=Path)
    parser.add_argument("--mode", default="submit", choices=["run", "submit"])
    parser.add_argument("-n", type=int, default=8)
    parser.add_argument("--pool", type=int, default=2)
    parser.add_argument("--cpuset", default="auto", help="JUDGE_SANDBOX_CPUSETS ('' for none)")
    parser.add_argument("--gap-s", type=float, default=0.5, help="pause between judgings")
    parser.add_argument("--target-rel-error", type=float, default=0.0,
                        help="override the package's benchmark precision target")
    args = parser.parse_args()
    import django
    from django.conf import settings

    django.setup()
    settings.JUDGE_BACKEND = "docker"
    settings.JUDGE_SANDBOX_CPUSETS = args.cpuset
    from judge_site.worker.engine import JudgeEngine
    from sandbox.grader.package import load_package

    folder = next(CATALOG.glob(f"{args.problem:03d}-*"))
    package = load_package(folder)
    if args.target_rel_error and package.benchmark is not None:
        import dataclasses

        target = dataclasses.replace(package.benchmark, target_rel_error=args.target_rel_error)
        package = dataclasses.replace(package, benchmark=target)
    source_file = args.file or sorted((folder / "solutions" / "AC").glob("*.py"))[0]
    source = source_file.read_text()
    engine = JudgeEngine()  # as a worker process's: pooling, pinned
    engine.enable_pool(args.pool)
    engine.pin(0)
    print(f"problem {args.problem}, {source_file.name}, {args.mode}, pool {args.pool}, "
          f"cpuset {engine.cpuset or 'any'}")
    walls, speedups = [], []
    phases: dict[str, list[float]] = {}
    try:
        for i in range(args.n):
            start = time.monotonic()
            result = engine.judge(package, source, args.mode)
            wall = time.monotonic() - start
            walls.append(wall)
            bench = result.benchmark
            if bench is not None and bench.speedup is not None:  # None: a rejected timing
                speedups.append(bench.speedup)
            ph = result.environment.get("phases", {})
            for key, value in ph.items():
                phases.setdefault(key, []).append(value)
            env = result.environment
            print(
                f"{i:2d} {result.verdict.value} wall {wall:5.2f}s"
                + (f" x{bench.speedup or 0:.3f} n={bench.repetitions} {bench.trust.value} {bench.rule}" if bench else "")
                + f" sandbox={env.get('sandbox')} baseline={env.get('baseline_sandbox', '-')}"
                + f" contended={env.get('timing_contended', '-')}"
            )
            print("    " + " ".join(f"{k}={v:.3f}" for k, v in sorted(ph.items())))
            pool = getattr(engine.backend(requires=[]), "pool", None)
            if pool is not None:
                print(f"    pool: ready {pool.ready_count()} hits {pool.hits} misses {pool.misses} "
                      f"waited {pool.waited_hits}")
            time.sleep(args.gap_s)
    finally:
        engine.close()
    print(f"wall p50 {statistics.median(walls):.2f}s  min {min(walls):.2f}s  max {max(walls):.2f}s")
    for key, values in sorted(phases.items()):
        print(f"  {key:16s} median {statistics.median(values):.3f}s")
    if len(speedups) > 1:
        mean = statistics.fmean(speedups)
        print(f"speedup mean {mean:.3f} CV {100 * statistics.stdev(speedups) / mean:.2f}% "
              f"range {min(speedups):.3f}-{max(speedups):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
