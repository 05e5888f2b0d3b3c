"""The staged CUDA chapter (problems/cuda-drafts/): every package's .cu files judged on the CPU
emulation, file by file, the way the judge will once it runs CUDA.

For each package: compile a file (mode "emu", once per source hash per session), exec the
package's bindings.py with ``launch`` bound to that library, run the cases of tests.py (public and
hidden, in order, one fixed seed) through the bindings and compare with solution.py's output under
the package's tolerances. solution.cu and solutions/AC/*.cu match on every case; for the others the
first case that fails decides, as in a judging: WA a mismatch or a race report, RE a KernelError
naming an out-of-bounds access, TLE a timeout; starter.cu fails somewhere. A cheap static test
(not slow) checks each package's manifest: the statement-cases table, the public examples named in
statement.md, hint ladders keyed to existing cases or tags, GPU shapes sized for the H200.
"""

from __future__ import annotations

import hashlib
import importlib.util
import tomllib
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
import torch

from sandbox.bench.shape_rule import MIN_L2_MULTIPLE, MIN_SOL_MS, gpu_limits
from sandbox.cuda.build import compile
from sandbox.cuda.call import CallTimeout, KernelError, call
from sandbox.grader.cost import parse_cost
from sandbox.grader.statement_cases import parse_statement_cases, statement_cases_problems

ROOT = Path(__file__).resolve().parents[3]
DRAFTS = ROOT / "problems" / "cuda-drafts"
SEED = 20261205
TLE_TIMEOUT_S = 2.0
CALL_TIMEOUT_S = 20.0


def _packages() -> list[Any]:
    return [pytest.param(toml.parent, id=toml.parent.name)
            for toml in sorted(DRAFTS.glob("*/problem.toml"))]


def _tagged_files() -> Iterator[Any]:
    for toml in sorted(DRAFTS.glob("*/problem.toml")):
        pkg = toml.parent
        yield pytest.param(pkg, "solution.cu", "AC", id=f"{pkg.name}/solution.cu")
        yield pytest.param(pkg, "starter.cu", "starter", id=f"{pkg.name}/starter.cu")
        for path in sorted(pkg.glob("solutions/*/*.cu")):
            rel = path.relative_to(pkg).as_posix()
            yield pytest.param(pkg, rel, path.parent.name, id=f"{pkg.name}/{rel}")


def _module(path: Path, name: str, **globals_: Any) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.__dict__.update(globals_)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def draft_library(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """draft_library(source) -> its emulation library, compiled once per source hash."""
    cache: dict[str, Path] = {}

    def get(source: str) -> Path:
        key = hashlib.sha256(source.encode()).hexdigest()[:16]
        if key not in cache:
            cache[key] = compile(source, tmp_path_factory.mktemp(f"draft_{key}"), timeout_s=120)
        return cache[key]

    return get


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, tuple | list):
        return [leaf for item in value for leaf in _flatten(item)]
    return [value]


def _mismatch(expected: Any, got: Any, tolerances: dict[str, Any], case: Any) -> str | None:
    """None when ``got`` matches ``expected``: the case's own ``check`` where it has one, else
    structure, dtype and values (bit for bit for an ``exact`` case, else within tolerance)."""
    if case.check is not None:
        return case.check(expected, got)
    want, have = _flatten(expected), _flatten(got)
    if len(want) != len(have):
        return f"{len(have)} outputs, expected {len(want)}"
    for i, (w, h) in enumerate(zip(want, have, strict=True)):
        if not isinstance(w, torch.Tensor):
            if w != h:
                return f"output {i}: {h!r}, expected {w!r}"
            continue
        if not isinstance(h, torch.Tensor):
            return f"output {i}: a {type(h).__name__}, expected a tensor"
        tol = tolerances.get(str(w.dtype).removeprefix("torch."))
        kw: dict[str, Any] = {"equal_nan": case.allow_nan}
        if case.exact:
            kw.update(atol=0.0, rtol=0.0)
        elif tol and w.is_floating_point():
            kw.update(atol=tol["atol"], rtol=tol["rtol"])
        try:
            torch.testing.assert_close(h.cpu(), w, **kw)
        except AssertionError as e:
            return f"output {i}: {e}"
    return None


def _outcomes(pkg: Path, library: Path, timeout_s: float, stop_at_failure: bool,
              ) -> list[tuple[str, str, str]]:
    """(case, outcome, detail) per case, outcome one of pass, mismatch, error:<kind>."""
    limits = tomllib.loads((pkg / "problem.toml").read_text())
    tolerances = limits.get("tolerances", {})
    tests = _module(pkg / "tests.py", f"draft_tests_{pkg.name[:3]}")
    reference = _module(pkg / "solution.py", f"draft_reference_{pkg.name[:3]}")
    bindings = _module(pkg / "bindings.py", f"draft_bindings_{pkg.name[:3]}",
                       launch=partial(call, library, mode="emu", timeout_s=timeout_s))
    results: list[tuple[str, str, str]] = []
    for case in tests.CASES:
        made = case.make(torch.Generator().manual_seed(SEED))
        try:
            expected = getattr(reference, case.fn)(*made.args, **made.kwargs)
        except Exception as e:  # the submission must raise the same type (or a subclass)
            expected = e
        try:
            got = getattr(bindings, case.fn)(*made.args, **made.kwargs)
        except CallTimeout as e:
            results.append((case.name, "error:timeout", str(e)))
        except KernelError as e:
            results.append((case.name, f"error:{e.kind}", str(e)))
        except Exception as e:
            raised = isinstance(expected, Exception) and isinstance(e, type(expected))
            results.append((case.name, "pass" if raised else "error:raised", repr(e)))
        else:
            why = (f"returned, expected {type(expected).__name__}"
                   if isinstance(expected, Exception) else
                   _mismatch(expected, got, tolerances, case))
            results.append((case.name, "pass" if why is None else "mismatch", why or ""))
        if stop_at_failure and results[-1][1] != "pass":
            break
    return results


@pytest.mark.parametrize("pkg", _packages())
def test_each_draft_package_states_its_cases_hints_and_gpu_shapes(pkg: Path) -> None:
    toml = tomllib.loads((pkg / "problem.toml").read_text())
    statement = (pkg / "statement.md").read_text()
    cases = _module(pkg / "tests.py", f"draft_tests_{pkg.name[:3]}").CASES
    assert (toml.get("language"), toml.get("chapter")) == ("cuda", "CUDA C++ kernels")
    assert all(c.fn in toml.get("functions", []) for c in cases)
    ok, detail = statement_cases_problems(parse_statement_cases(toml.get("statement_cases")),
                                          statement, [(c.name, c.public) for c in cases],
                                          required=True)
    assert ok, detail
    for case in cases:
        if case.public:
            assert case.note and f"**{case.name}**" in statement, case.name
    names, tags = {c.name for c in cases}, {t for c in cases for t in c.tags}
    for ladder in toml.get("hints", {}).get("ladders", []):
        kind, _, key = ladder["check"].partition(":")
        assert (key in tags if kind == "tag" else ladder["check"] in names), ladder["check"]
    bench = toml.get("benchmark", {})
    assert bench.get("baseline", "").startswith("kernels.cuda_chapter:")
    l2, bandwidth, flops = gpu_limits()
    for shape in bench.get("shapes", []):
        cost = parse_cost(shape.get("cost"))
        assert shape.get("device") == "gpu" and cost is not None, shape["name"]
        sol_ms = 1e3 * max(cost.bytes / bandwidth, cost.flops / flops)
        assert cost.bytes >= MIN_L2_MULTIPLE * l2 and sol_ms >= MIN_SOL_MS, shape["name"]


@pytest.mark.slow
@pytest.mark.parametrize(("pkg", "rel", "verdict"), list(_tagged_files()))
def test_each_draft_file_gets_its_verdict_on_the_emulator(
    pkg: Path, rel: str, verdict: str, draft_library: Callable[[str], Path]
) -> None:
    library = draft_library((pkg / rel).read_text())
    timeout = TLE_TIMEOUT_S if verdict == "TLE" else CALL_TIMEOUT_S
    results = _outcomes(pkg, library, timeout, stop_at_failure=verdict != "AC")
    failed = [r for r in results if r[1] != "pass"]
    report = "\n".join(f"  {name}: {outcome} {detail[:300]}" for name, outcome, detail in results)
    if verdict == "AC":
        assert not failed, f"{rel} must pass every case:\n{report}"
        return
    assert failed, f"{rel} passed every case; it must fail ({verdict}):\n{report}"
    outcome, detail = failed[0][1], failed[0][2]
    if verdict == "WA":
        assert outcome in ("mismatch", "error:race"), f"{rel}: expected WA:\n{report}"
    elif verdict == "RE":
        assert outcome == "error:out of bounds" and "out-of-bounds" in detail, report
    elif verdict == "TLE":
        assert outcome == "error:timeout", f"{rel}: expected a timeout:\n{report}"
