"""How long similarity takes on a seeded class (figures, not a test).

    scripts/bench_similarity [--students 200] [--seed 40] [--threshold 0.6]

Writes the class of judge_site/similarity/seeded.py (each student's code for 10 real
problems written independently, 5 copies planted: renamed, reordered, reformatted) and times the
comparison the task and ``manage.py similarity`` run (judge_site/similarity/compare.py), in
this process, without a database. Prints the seconds, the pairs at or above the threshold, and
whether they are exactly the planted ones. The target (issue 40): 200 students x 10 problems
within a minute on 2 cores.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from judge_site.similarity import compare
from judge_site.similarity.seeded import seeded_class


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--seed", type=int, default=40)
    parser.add_argument("--threshold", type=float, default=compare.DEFAULT_THRESHOLD)
    args = parser.parse_args()
    if args.students < 2 * 5:
        parser.error("--students: at least 10 (five pairs are planted)")

    started = time.perf_counter()
    seeded = seeded_class(students=args.students, seed=args.seed)
    generated = time.perf_counter() - started
    inputs = [
        compare.ProblemInput(p.number, p.starter, [
            compare.Entry(name, i * 1000 + j, seeded.code[(name, p.number)])
            for i, name in enumerate(seeded.students)])
        for j, p in enumerate(seeded.problems)
    ]
    size_kib = sum(len(e.code) for p in inputs for e in p.entries) / 1024
    cpu0, wall0 = time.process_time(), time.perf_counter()
    report = compare.compare(inputs, args.threshold)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0

    planted = {(p.problem, frozenset((p.original, p.copier))) for p in seeded.planted}
    found = {(m.problem, frozenset((m.a, m.b))) for m in report.matches}
    print(f"class: {args.students} students x {len(inputs)} problems = {report.documents} "
          f"solutions ({size_kib:.0f} KiB), written in {generated:.1f} s")
    print(f"compare: {wall:.1f} s wall, {cpu:.1f} s CPU, {report.pairs_scored} pairs scored "
          f"(machine: {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f})")
    for m in report.matches[:10]:
        mark = "planted" if (m.problem, frozenset((m.a, m.b))) in planted else "NOT PLANTED"
        print(f"  {m.score:.3f}  problem {m.problem}  {m.a} ~ {m.b}  ({mark})")
    ok = found == planted
    print(f"target: under 60 s -> {'PASS' if wall < 60 else 'FAIL'}; exactly the "
          f"{len(planted)} planted pairs at or above {args.threshold:g} -> {'PASS' if ok else 'FAIL'}")
    return 0 if ok and wall < 60 else 1


if __name__ == "__main__":
    sys.exit(main())
