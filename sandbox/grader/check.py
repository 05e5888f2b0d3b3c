"""The package check: a problem package proves itself through the real judging path.

``check_package(package, backend)`` judges, with the trusted grader and the given sandbox
backend, the reference (every test AC, and the benchmark runs; its ``from kernels.X import``
lines expanded into the kernels source, since no sandbox image holds the kernels package),
the starter (must fail), and
every ``solutions/<VERDICT>/*.py`` (must get exactly VERDICT). A wrong solution must also be
caught by the hidden tests alone: a student who passes every public test still fails. Static
checks: public cases exist, each has a note and is named in statement.md, the statement's
sentences map to hidden cases (sandbox/grader/statement_cases.py), tolerances are sane, benchmark
baselines resolve, cost models are sound (sandbox/grader/cost.py).

Framework-free. The torch-free part (``public_cases_static``) is importable by the web
process, which must not import torch; the grader is imported only when judging.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import importlib.util
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sandbox.grader import syntax
from sandbox.grader.contracts import CPU_EMULATION_NOTE as CPU_NOTE
from sandbox.grader.contracts import NEUTRAL_VERDICTS, PASSING_VERDICTS, JudgeResult, Mode, Verdict
from sandbox.grader.hints import failing_names, hinted_checks_failed, package_hint_items
from sandbox.grader.kernels_source import inline_kernels, kernels_module_path
from sandbox.grader.package import PackageError, ProblemPackage
from sandbox.grader.statement_cases import is_catalog_folder, statement_cases_problems
from sandbox.problem import Case

if TYPE_CHECKING:
    from sandbox.host.backends.base import Backend

KNOWN_VERDICTS = {v.value for v in Verdict} - {"SK", "IE"}
DEFAULT_SECRET_SEED = 20261130  # fixed so that a check is reproducible; pass another to vary
CHECK_BENCH_MAX_TIME_S = 3.0  # the check only proves the benchmark runs; it does not rank


@dataclass(frozen=True)
class CheckItem:
    name: str  # "reference", "starter", "solutions/WA/foo.py", "static: tolerances", ...
    ok: bool
    detail: str = ""
    seconds: float = 0.0


@dataclass
class CheckReport:
    folder: str
    version: str
    items: list[CheckItem] = field(default_factory=list)
    skipped: str = ""  # why the package could not be checked here (e.g. triton missing)

    @property
    def ok(self) -> bool:
        """True when every item passed; a skipped package is not a failure."""
        if self.skipped:
            return True
        return bool(self.items) and all(item.ok for item in self.items)

    def add(self, name: str, ok: bool, detail: str = "", seconds: float = 0.0) -> None:
        self.items.append(CheckItem(name, ok, detail, seconds))

    def render(self) -> str:
        if self.skipped:
            return f"SKIP {self.folder} (version {self.version}): {self.skipped}"
        head = f"{'OK  ' if self.ok else 'FAIL'} {self.folder} (version {self.version})"
        lines = [head]
        for item in self.items:
            mark = "ok  " if item.ok else "FAIL"
            took = f" [{item.seconds:.1f}s]" if item.seconds else ""
            lines.append(f"  {mark} {item.name}{took}" + (f": {item.detail}" if item.detail else ""))
        return "\n".join(lines)


# --- static, torch-free ---------------------------------------------------------------------


def public_cases_static(tests_py: Path) -> list[dict[str, str]]:
    """Public cases read from tests.py's source without running it (the web has no torch).

    Recognises ``Case("name", "fn", ..., public=True, note="...")`` calls whose name, fn and
    note are string literals, which is how problems/README.md asks authors to write them.
    """
    tree = syntax.parse(tests_py.read_text(), filename=str(tests_py))
    found: list[tuple[tuple[int, int], dict[str, str]]] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Case"):
            continue
        kwargs = {k.arg: k.value for k in node.keywords if k.arg}
        public = kwargs.get("public")
        if not (isinstance(public, ast.Constant) and public.value is True):
            continue
        values: dict[str, str] = {}
        for key, position in (("name", 0), ("fn", 1)):
            value = kwargs.get(key) or (node.args[position] if len(node.args) > position else None)
            if not (isinstance(value, ast.Constant) and isinstance(value.value, str)):
                raise PackageError(f"{tests_py}:{node.lineno}: a public Case needs a literal {key}")
            values[key] = value.value
        note = kwargs.get("note")
        values["note"] = note.value if isinstance(note, ast.Constant) and isinstance(note.value, str) else ""
        found.append(((node.lineno, node.col_offset), values))
    return [values for _, values in sorted(found, key=lambda item: item[0])]  # source order


def _static_checks(package: ProblemPackage, cases: list[Case], report: CheckReport) -> None:
    public = [c for c in cases if c.public]
    hidden = [c for c in cases if not c.public]
    report.add("static: public and hidden cases", bool(public) and bool(hidden),
               f"{len(public)} public, {len(hidden)} hidden")
    missing_notes = [c.name for c in public if not c.note.strip()]
    report.add("static: every public case has a note", not missing_notes, ", ".join(missing_notes))
    unnamed = [c.name for c in public if c.name not in package.statement_md]
    report.add("static: statement names every public case (its examples)", not unnamed,
               ", ".join(unnamed))
    try:
        static = sorted(public_cases_static(package.path / "tests.py"), key=lambda c: c["name"])
        loaded = sorted(({"name": c.name, "fn": c.fn, "note": c.note} for c in public),
                        key=lambda c: c["name"])
        same = static == loaded
        report.add("static: public cases readable without running tests.py", same,
                   "" if same else "write public cases as Case('name', 'fn', ..., public=True, note='...')")
    except (PackageError, SyntaxError) as exc:
        report.add("static: public cases readable without running tests.py", False, str(exc))
    ok, detail = statement_cases_problems(
        package.statement_cases, package.statement_md, ((c.name, c.public) for c in cases),
        required=is_catalog_folder(package.folder_name),
    )
    report.add("static: statement cases", ok, detail)
    bad_fns = sorted({c.fn for c in cases} - set(package.functions))
    report.add("static: cases call declared functions", not bad_fns, ", ".join(bad_fns))
    bad_tol = [f"{dtype}: atol={t.atol} rtol={t.rtol}" for dtype, t in package.tolerances.items()
               if not (0 < t.atol < 1 and 0 < t.rtol < 0.1)]
    report.add("static: tolerances sane (0 < atol < 1, 0 < rtol < 0.1)", not bad_tol, "; ".join(bad_tol))
    if package.benchmark is not None:
        problems: list[str] = []
        for shape in package.benchmark.shapes:
            baseline = shape.baseline or package.benchmark.baseline
            module, _, attr = baseline.partition(":")
            # Read, not imported: the baseline may need a module only its sandbox image has
            # (triton); it is loaded there, as source, by the benchmark.
            try:
                if not _defines(kernels_module_path(module), attr):
                    problems.append(f"{shape.name}: baseline {baseline!r} not found")
            except PackageError as exc:
                problems.append(f"{shape.name}: {exc}")
            if shape.fn not in package.functions:
                problems.append(f"{shape.name}: fn {shape.fn!r} is not a declared function")
            if shape.device == "gpu":  # GiBs of inputs, for a GPU: proved by its cost model
                continue
            try:
                from sandbox.runner.inputs import (  # torch: only for the check
                    INPUT_KINDS,
                    build_inputs,
                )

                built = build_inputs(shape.args, 0)
                for spec, value in zip(shape.args, built, strict=True):
                    if isinstance(spec, dict) and isinstance(value, dict):
                        problems.append(f"{shape.name}: {sorted(spec)} is not an input kind "
                                        f"(known: {sorted(INPUT_KINDS)})")
            except Exception as exc:  # noqa: BLE001  (any bad spec is the author's finding)
                problems.append(f"{shape.name}: inputs do not build: {type(exc).__name__}: {exc}")
        report.add("static: benchmark baselines and inputs resolve", not problems, "; ".join(problems))
        _cost_checks(package, report)
        # Here, not at the top: sandbox.bench imports torch, and the web (no torch) imports
        # this module for the upload's static checks.
        from sandbox.bench.shape_rule import gpu_shape_problems

        gpu_problems, proved = gpu_shape_problems(package)
        report.add("static: GPU shapes sized for the device (L2, speed of light)",
                   not gpu_problems, "; ".join(gpu_problems) or proved)


def _cost_checks(package: ProblemPackage, report: CheckReport) -> None:
    """Each shape's cost model (sandbox/grader/cost.py): its expressions evaluate, bytes positive,
    flops at least 0, both finite, and bytes at least what the reference, called once on the
    shape's inputs, reads (every argument not marked ``partial``) and returns. A shape without
    a model is named in the detail (it gets no speed of light), not failed."""
    from sandbox.grader.cost import bytes_floor
    from sandbox.runner.inputs import build_inputs  # torch: only for the check

    assert package.benchmark is not None
    problems: list[str] = []
    without = [s.name for s in package.benchmark.shapes if s.cost is None]
    notes = [f"no cost model (no speed of light): {', '.join(without)}"] if without else []
    reference: Any = None
    for shape in package.benchmark.shapes:
        if shape.cost is None:
            continue
        found = shape.cost.problems()
        if shape.device == "gpu" and not found:  # not built on a CPU (GiBs of inputs)
            continue
        problems += [f"{shape.name}: {p}" for p in found]
        if found:
            continue
        try:
            args = build_inputs(shape.args, 0)
            reference = reference if reference is not None else package.load_reference()
            output = getattr(reference, shape.fn)(*args)
        except ImportError as exc:  # a reference that needs what only its image has (triton)
            notes.append(f"{shape.name}: outputs not weighed here ({exc})")
            continue
        except Exception as exc:  # noqa: BLE001  (the author's finding)
            problems.append(f"{shape.name}: the reference fails on the shape: {exc}")
            continue
        floor = bytes_floor(shape.cost, args, output)
        if shape.cost.bytes < floor:
            problems.append(
                f"{shape.name}: bytes = {shape.cost.bytes:.0f}, below the {floor} bytes of the "
                "arguments it reads in full and what it returns (mark a partly read argument "
                "in `partial`)"
            )
    report.add("static: cost models are positive, finite and cover the tensors moved",
               not problems, "; ".join(problems + notes))


def _defines(path: Path, attr: str) -> bool:
    """Whether the module at ``path`` (read, not imported) defines ``attr`` at its top level."""
    tree = syntax.parse(path.read_text(), filename=str(path))
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.name == attr:
            return True
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == attr for t in node.targets):
            return True
        if isinstance(node, ast.ImportFrom) and any((a.asname or a.name) == attr for a in node.names):
            return True
    return False


# --- judged ---------------------------------------------------------------------------------


class _HiddenOnly(ProblemPackage):
    """The same package with its public cases removed: do the hidden tests alone catch it?"""

    def load_cases(self) -> list[Case]:
        return [c for c in super().load_cases() if not c.public]


def _hidden_only(package: ProblemPackage) -> ProblemPackage:
    values = {f.name: getattr(package, f.name) for f in dataclasses.fields(package)}
    values["benchmark"] = None
    return _HiddenOnly(**values)


def _summary(result: JudgeResult) -> str:
    bad = [f"{t.name}={t.verdict}" for t in result.tests if t.verdict not in PASSING_VERDICTS | NEUTRAL_VERDICTS]
    text = f"{result.verdict}" + (f" ({', '.join(bad[:4])}{', ...' if len(bad) > 4 else ''})" if bad else "")
    if result.message and result.verdict != Verdict.AC:
        text += f" - {result.message.strip().splitlines()[-1][:160]}"
    return text


def missing_requirements(package: ProblemPackage) -> list[str]:
    """Modules named in problem.toml's optional ``requires`` that this Python cannot import.

    The local backend runs submissions with this same interpreter, so what is missing here is
    missing in the sandbox too.
    """
    return [name for name in package.requires if importlib.util.find_spec(name) is None]


def check_package(
    package: ProblemPackage,
    backend: Backend,
    *,
    bench: bool = True,
    secret_seed: int = DEFAULT_SECRET_SEED,
    on_item: Callable[[CheckItem], None] | None = None,
) -> CheckReport:
    """Judge the package's own files through the grader; see the module docstring."""
    from sandbox.grader.entry import judge  # imports torch: only here, never for the web process

    report = CheckReport(folder=package.folder_name, version=package.version)
    requires = list(package.requires)
    route = getattr(backend, "for_requirements", None)
    if requires and callable(route):
        # A backend that picks the sandbox image by requirements (the site's docker backend,
        # judge_site/worker/backends.py): its image for these must exist and carry them.
        try:
            backend = route(requires)
        except Exception as exc:  # noqa: BLE001  (a configuration error is this check's finding)
            report.add(f"sandbox image for requires {requires}", False, str(exc))
            return report
    elif requires and backend.name == "local":
        missing = missing_requirements(package)
        if missing:
            report.skipped = (
                f"needs {', '.join(missing)}, not importable by this Python, which the local "
                "backend runs: install it here (the development lock, requirements/lock.txt, "
                "has triton) or check it with the docker backend and the image "
                "JUDGE_SANDBOX_IMAGES maps it to (scripts/build_images builds "
                "tensor-judge-sandbox:triton)"
            )
            return report
    # Any other backend runs the image its caller chose: a missing module shows as failures.

    def add(name: str, ok: bool, detail: str = "", seconds: float = 0.0) -> None:
        report.add(name, ok, detail, seconds)
        if on_item is not None:
            on_item(report.items[-1])

    if package.kind == "practice":  # a problem kind of its own
        from sandbox.practice.package_check import check_items

        for name, ok, detail in check_items(package, backend):
            add(name, ok, detail)
        return report
    try:
        cases = package.load_cases()
    except Exception as exc:  # noqa: BLE001  (any failure of the author's tests.py is a finding)
        add("tests.py loads", False, f"{type(exc).__name__}: {exc}")
        return report
    before = len(report.items)
    _static_checks(package, cases, report)
    if on_item is not None:
        for item in report.items[before:]:
            on_item(item)

    no_bench = dataclasses.replace(package, benchmark=None)
    hidden_only = _hidden_only(package)
    # One secret for every file: the reference's observation of each test is computed once
    # (by the first judging) and compared against by all of them.
    expected: dict[tuple[str, int], dict[str, Any]] = {}

    def run(pkg: ProblemPackage, file: Path, trusted: bool = False) -> tuple[JudgeResult, float]:
        started = time.monotonic()
        source = file.read_text()
        if trusted:  # the package's own reference: its kernels imports become their source
            source = inline_kernels(source, filename=str(file))
        result = judge(pkg, source, mode=Mode.SUBMIT, backend=backend, secret_seed=secret_seed,
                       expected_cache=expected)
        return result, time.monotonic() - started

    ref_pkg = no_bench
    if bench and package.benchmark is not None:
        capped = min(package.benchmark.max_time_s, CHECK_BENCH_MAX_TIME_S)
        ref_pkg = dataclasses.replace(
            package, benchmark=dataclasses.replace(package.benchmark, max_time_s=capped)
        )
    answer = f"reference ({package.answer_file.name}) is AC"  # a cuda package: its model answer
    try:
        result, took = run(ref_pkg, package.answer_file, trusted=package.language == "python")
    except (PackageError, SyntaxError) as exc:
        add(answer, False, f"cannot expand its kernels imports: {exc}")
        return report
    detail = _summary(result)
    ok = result.verdict == Verdict.AC
    if ok and ref_pkg.benchmark is not None and result.message != CPU_NOTE:  # CPU: no speed
        if result.benchmark is None:
            ok, detail = False, "AC but the benchmark produced no result"
        else:
            b = result.benchmark
            if b.speedup is not None and b.submission_ms is not None:
                detail += f"; benchmark {b.shape!r}: speedup {b.speedup:.2f} ({b.submission_ms:.3f} ms vs {b.baseline_ms:.3f} ms)"
            else:
                detail += f"; benchmark {b.shape!r}: timing rejected ({b.rule})"
    add(answer, ok, detail, took)

    result, took = run(no_bench, package.starter_file)
    add("starter fails", result.verdict != Verdict.AC, _summary(result), took)

    hints, hint_cases, hint_error = package_hint_items(package)
    if hints.ladders or hint_error:
        add("static: hints", not hint_error, hint_error or f"{len(hints.ladders)} ladder(s)")
    for verdict, file in package.solutions():
        label = f"solutions/{verdict}/{file.name}"
        if verdict not in KNOWN_VERDICTS:
            add(label, False, f"unknown verdict folder {verdict!r}")
            continue
        result, took = run(no_bench, file)
        add(f"{label} gets {verdict}", result.verdict == verdict, _summary(result), took)
        if verdict in ("AC", "CE") or result.verdict != verdict:
            continue
        if hints.ladders:  # a student who writes this mistake is offered a hint
            hinted = hinted_checks_failed(hints, hint_cases, failing_names(t.to_json() for t in result.tests))
            add(f"{label}: fails a hinted check", bool(hinted), ", ".join(hinted) or "no ladder covers a failed test")
        caught = [t for t in result.tests if not t.public and t.verdict == verdict]
        if caught:
            add(f"{label}: hidden tests catch it", True, f"{len(caught)} hidden test(s)")
            continue
        # A fatal fault in a public test skipped the hidden ones: judge the hidden tests alone.
        result, took = run(hidden_only, file)
        add(f"{label}: hidden tests catch it", result.verdict == verdict, _summary(result), took)
    return report


def check_packages(
    packages: list[ProblemPackage], backend: Backend, **options: Any
) -> list[CheckReport]:
    return [check_package(package, backend, **options) for package in packages]
