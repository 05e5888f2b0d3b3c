"""Measure the statistical tests of problems 74 and 77: how often they reject correct and wrong
samplers.

For each judging (a secret 0..N-1), every case of the sampling function with a statistical
check is drawn as the grader draws it (``case_seed``) and the sampler under test runs in
process. The script prints, per file, the fraction of judgings rejected by the check as the
package uses it (alpha = tests.ALPHA), and, for calibration, the fraction in which some
chi-square p-value falls below looser alphas (a correct sampler should land near k * alpha
there, k the number of tests: rows for 74, the checks' tests for 77). Not part of CI; the
figures go into docs/sampling_tests.md.

    scripts/measure_sampling_tests -n 10000                  # problem 74's reference
    scripts/measure_sampling_tests -n 1000 --files WA/*.py   # tagged files, relative to solutions/
    scripts/measure_sampling_tests --problem 77 -n 10000     # 77: speculative_step's StepCheck
"""

from __future__ import annotations

import argparse
import sys
import time

import torch

from sandbox.grader.kinds.tensor import case_seed
from sandbox.grader.package import find_package
from sandbox.tools import CATALOG, load_file

LOOSE = (1e-2, 1e-3, 1e-4)


def _judging_74(module, tests, cases, secret):  # type: ignore[no-untyped-def]
    """One judging of problem 74's ``sample``: (rejected, smallest p-value)."""
    failed, smallest = False, 1.0
    for case in cases:
        call = case.make(torch.Generator().manual_seed(case_seed(case, secret)))
        got = module.sample(*call.args, **call.kwargs)
        failed |= case.check(None, got) is not None
        logits, draws, _, temperature, top_k, top_p = call.args
        probs = tests.true_probs(logits.tolist(), temperature, top_k, top_p)
        for row in range(probs.shape[0]):
            counts = torch.bincount(got[row], minlength=probs.shape[1])
            if bool(((counts > 0) & (probs[row] == 0)).any()):
                smallest = 0.0
            else:
                smallest = min(smallest, tests.chi_square_p_value(counts, probs[row]))
    return failed, smallest


def _judging_checks(module, tests, cases, secret):  # type: ignore[no-untyped-def]
    """One judging through checks that report their p-values (``check.judge(got)``, 77)."""
    failed, smallest = False, 1.0
    for case in cases:
        call = case.make(torch.Generator().manual_seed(case_seed(case, secret)))
        message, p_values = case.check.judge(getattr(module, case.fn)(*call.args, **call.kwargs))
        failed |= message is not None
        smallest = min([smallest, *p_values])
    return failed, smallest


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-n", type=int, default=10000, help="judgings per file")
    parser.add_argument("--no-reference", action="store_true", help="only the --files")
    parser.add_argument("--first", type=int, default=0, help="the first secret (to split a run)")
    parser.add_argument("--problem", default="74", choices=["74", "77"])
    parser.add_argument("--files", nargs="*", default=[], help="solutions/<...> files (default: solution.py)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    package = find_package(CATALOG, args.problem)
    tests = load_file(package.path / "tests.py", f"_measure{args.problem}_tests")
    if args.problem == "74":
        cases = [c for c in tests.CASES if c.fn == "sample" and c.check is not None]
        count = sum(c.make(torch.Generator()).args[0].shape[0] for c in cases)
        unit, judging = "rows", _judging_74
    else:
        cases = [c for c in tests.CASES if not c.public and hasattr(c.check, "judge")]
        count = sum(len(c.check.tests) + (c.check.accepted_dist is not None) for c in cases)
        unit, judging = "tests", _judging_checks
    files = [] if args.no_reference else [package.path / "solution.py"]
    files += [package.path / "solutions" / f for f in args.files]
    for path in files:
        module = load_file(path, f"_measure{args.problem}_{path.parent.name}_{path.stem}")
        rejected, raised, loose, start = 0, 0, dict.fromkeys(LOOSE, 0), time.perf_counter()
        for secret in range(args.first, args.first + args.n):
            try:
                failed, smallest = judging(module, tests, cases, secret)
            except Exception as exc:  # noqa: BLE001 - a raising sampler is rejected
                failed, smallest = True, 0.0
                if not raised:
                    print(f"  {path.name}: raised {type(exc).__name__}: {exc} (first of its judgings)")
                raised += 1
            rejected += failed
            for alpha in LOOSE:
                loose[alpha] += smallest < alpha
        took = time.perf_counter() - start
        label = path.relative_to(package.path)
        print(f"{label}: rejected {rejected}/{args.n} judgings at alpha={tests.ALPHA:g} "
              f"({count} {unit} per judging); "
              + ", ".join(f"min p < {a:g}: {loose[a]}/{args.n}" for a in LOOSE)
              + f"  [{took:.0f} s]", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
