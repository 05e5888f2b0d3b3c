"""Sweep many secret seeds over every hidden case and every known-correct file, in-process.

For each problem, each hidden case and each secret 0..N-1, the case's inputs and upstream
gradient are drawn as the grader draws them (``case_seed``, ``grad_seed``); the reference
and every solutions/AC/*.py file (and solution.py itself) are run through
``wire.execute_call`` and compared with ``compare`` and the package's tolerances. A correct
file must be AC for every seed: a failure is a flaky hidden test (or a wrong AC file).
With ``--tagged``, tagged WA solutions are swept too: one that a case catches on some seeds
and not on others is reported (caught only sometimes), and so is a seed on which no hidden
case swept catches it at all (the rows "(every hidden case)": the one that matters) (see tests/catalog/test_catalog_hidden_cases.py).

No sandbox, no time or memory limits: not part of CI. Prints a table, one row per
(problem, file, case) that failed at least once; exit status 1 if any row.

    scripts/sweep_ac_seeds                       # problems 48-64, 50 seeds
    scripts/sweep_ac_seeds --problems 54 -n 200 --cases large_logits_grads
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from types import ModuleType
from typing import Any

import torch

from sandbox.grader.compare import compare
from sandbox.grader.kinds.tensor import case_seed, grad_seed
from sandbox.grader.package import ProblemPackage, find_package
from sandbox.problem import Case
from sandbox.runner import calls, wire, wire_decode
from sandbox.tools import CATALOG, load_file


def observe(module: ModuleType, case: Case, call: Any, upstream_seed: int) -> Any:
    """What ``module`` returns for ``call`` (and its gradients), through the wire as the grader
    reads a sandbox's answer."""
    obs = calls.execute_call(getattr(module, case.fn), list(call.args), dict(call.kwargs),
                            case.grad_wrt, upstream_seed)
    return wire_decode.decode(*wire.encode(obs), keep_class=True)


def same(a, b) -> bool:  # type: ignore[no-untyped-def]
    if isinstance(a, torch.Tensor) or isinstance(b, torch.Tensor):
        return (isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor) and a.shape == b.shape
                and a.dtype == b.dtype and bool(torch.equal(a, b)))
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def judge_seed(package: ProblemPackage, reference, modules, case: Case, secret: int):  # type: ignore[no-untyped-def]
    """{file name: (verdict, message)} for one case at one secret."""
    seed = case_seed(case, secret)
    call = case.make(torch.Generator().manual_seed(seed))
    upstream_seed = grad_seed(seed)
    expected = wire_decode.strip_classes(observe(reference, case, call, upstream_seed))
    out = {}
    for name, module in modules:
        try:
            got = observe(module, case, call, upstream_seed)
        except Exception as exc:  # noqa: BLE001 - reported as a row
            out[name] = ("ERR", repr(exc)[:100])
            continue
        result = compare(expected, got, case, package.tolerances)
        out[name] = (result.verdict.value, str(getattr(result, "message", ""))[:100])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", type=int, default=50, help="secrets per case (default 50)")
    parser.add_argument("--first", type=int, default=0, help="first secret (default 0)")
    parser.add_argument("--problems", default="48-64", help="e.g. 54 or 48-64 or 52,54")
    parser.add_argument("--cases", default="", help="comma-separated case names (default: all hidden)")
    parser.add_argument("--tagged", action="store_true", help="also sweep tagged wrong solutions")
    parser.add_argument("--skip", default="", help="skip cases whose name contains any of these "
                        "comma-separated words (e.g. big,long: the memory-limit cases are slow)")
    args = parser.parse_args()

    numbers: list[int] = []
    for part in args.problems.split(","):
        lo, _, hi = part.partition("-")
        numbers += range(int(lo), int(hi or lo) + 1)
    wanted = {c for c in args.cases.split(",") if c}
    torch.set_num_threads(1)

    rows = []  # (problem, file, case, failures, n, first failing seed, message)
    for number in numbers:
        try:
            package = find_package(CATALOG, str(number))
        except Exception:  # noqa: BLE001 - no such problem
            continue
        if package.requires:
            missing = [m for m in package.requires if importlib.util.find_spec(m) is None]
            if missing or package.device == "gpu" and not torch.cuda.is_available():
                print(f"{number}: skipped (needs {package.requires}, device {package.device})",
                      file=sys.stderr)
                continue
        reference = package.load_reference()
        modules = [("solution.py", load_file(package.path / "solution.py", f"_sweep_{number}_ref"))]
        for verdict, path in package.solutions():
            if verdict == "AC" or (args.tagged and verdict == "WA"):
                tag = f"{verdict}/{path.name}"
                modules.append((tag, load_file(path, f"_sweep_{number}_{verdict}_{path.stem}")))
        caught: dict[str, set[int]] = {name: set() for name, _ in modules if name.startswith("WA/")}
        for case in package.load_cases():
            if case.public or (wanted and case.name not in wanted):
                continue
            if any(word and word in case.name for word in args.skip.split(",")):
                continue
            probe = [case.make(torch.Generator().manual_seed(s)) for s in (1, 2)]
            if not case.grad_wrt and same(probe[0].args, probe[1].args) \
                    and same(probe[0].kwargs, probe[1].kwargs):
                continue  # no randomness in this case
            started = time.monotonic()
            fails: dict[str, list] = {}
            for secret in range(args.first, args.first + args.n):
                for name, (verdict, message) in judge_seed(package, reference, modules, case, secret).items():
                    if name.startswith("WA/") and verdict != "AC":
                        caught[name].add(secret)
                    if (verdict != "AC") != name.startswith("WA/"):
                        fails.setdefault(name, []).append((secret, f"{verdict} {message}"))
            print(f"{number} {case.name}: {args.n} seeds, {time.monotonic() - started:.1f} s",
                  file=sys.stderr)
            for name, bad in fails.items():
                if name.startswith("WA/") and len(bad) == args.n:
                    continue  # a tagged mistake this case never catches: not its case
                rows.append((number, name, case.name, len(bad), args.n, bad[0][0], bad[0][1]))
                print(f"  {name}: {len(bad)}/{args.n} seeds, first {bad[0][0]}: {bad[0][1]}",
                      file=sys.stderr)  # as found, in case the sweep is stopped

        for name, secrets in caught.items():
            missed = [x for x in range(args.first, args.first + args.n) if x not in secrets]
            if missed:  # no hidden case swept caught it on these secrets
                rows.append((number, name, "(every hidden case)", len(missed), args.n, missed[0],
                             "AC on every hidden case swept"))

    print(f"{'prob':>4}  {'file':<40} {'case':<28} {'fails':>9}  first  message")
    for number, name, case_name, count, n, first, message in rows:
        print(f"{number:>4}  {name:<40} {case_name:<28} {count:>4}/{n:<4}  {first:>5}  {message}")
    if not rows:
        print("every AC file passed every hidden case for every seed")
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())
