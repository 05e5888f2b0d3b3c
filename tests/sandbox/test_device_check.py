"""scripts/device_check (sandbox/tools/device_check/): the prepared GPU-machine check, in its CPU
dry run.

Its helpers are imported from the package; one dry run (through the script, as the GPU machine
runs it) judges one small CPU problem's reference (problem 55: no benchmark, one sandbox) and
one shows the time bound.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from sandbox.tools import device_check

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "device_check"
PACKAGE = ROOT / "sandbox" / "tools" / "device_check"


@pytest.fixture(scope="module")
def dc() -> ModuleType:
    return device_check


def test_imports_only_stdlib_torch_and_the_sandbox_package() -> None:
    """The device machine has no venv: no Django, no Docker SDK, nothing but the standard
    library, torch/numpy/triton and this repository's sandbox package."""
    names = set()
    files = [SCRIPT, *PACKAGE.glob("*.py")]
    for node in (n for f in files for n in ast.walk(ast.parse(f.read_text()))):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    allowed = set(sys.stdlib_module_names) | {"torch", "numpy", "triton", "sandbox"}
    assert names - allowed == set()
    assert "sandbox" in names


def test_selects_the_gpu_problems_and_their_files(dc: ModuleType) -> None:
    problems = dc.gpu_problems(ROOT)
    numbers = {int(p.name.split("-")[0]) for p in problems}
    assert {56, 64} <= numbers
    assert 48 not in numbers  # device = "cpu", no triton
    items = dc.select(problems, others=1)
    labels = [i.label for i in items]
    assert "056/solution.py" in labels
    assert any(label.startswith("064/AC/") for label in labels)
    wa = [i for i in items if i.expected == "WA"]
    assert wa and all(not i.repeat for i in wa)
    assert len([i for i in wa if i.problem.name.startswith("056")]) == 1


def test_summary_row_and_failures(dc: ModuleType) -> None:
    item = dc.Item(
        ROOT / "problems" / "056-x",
        ROOT / "problems" / "056-x" / "solutions" / "AC" / "a.py",
        "AC",
        True,
    )

    def run(speedup: float, trust: str = "verified", rule: str = "") -> dict:
        bench = {
            "speedup": speedup,
            "submission_ms": 1.0,
            "baseline_ms": speedup,
            "repetitions": 9,
            "submission_spread": 0.01,
            "baseline_spread": 0.02,
            "trust": trust,
            "rule": rule,
        }
        return {
            "verdict": "AC",
            "message": "",
            "bench": bench,
            "device": "cuda: H200",
            "seconds": 3.0,
            "expect_bench": True,
        }

    item.runs = [run(1.0), run(1.2), run(1.1, "charged", "gap_excess")]
    row = dc.summary_row(item)
    assert row["file"] == "056/AC/a.py"
    assert row["verdicts"] == "ACx3"
    assert row["median"] == "1.100"
    assert row["minmax"] == "1.000-1.200"
    assert float(row["cv"]) == pytest.approx(7.4, abs=0.1)
    assert "verifiedx2" in row["trust"] and "charged/gap_excessx1" in row["trust"]
    header, line = dc.table([row])
    assert header.split()[:3] == ["file", "runs", "verdicts"]
    assert line.startswith("056/AC/a.py") and "cuda: H200" in line
    assert "speedup 1.100" in dc.run_line(item, item.runs[2])

    assert dc.failures(item, run(1.0), cuda=True) == []
    no_gpu = dict(run(1.0), device="cpu")
    assert any("no GPU" in w for w in dc.failures(item, no_gpu, cuda=True))
    assert dc.failures(item, no_gpu, cuda=False) == []
    wrong = dict(run(1.0), verdict="WA", bench=None, message="test 3 differs")
    why = dc.failures(item, wrong, cuda=False)
    assert why[0] == "expected AC, got WA" and why[-1] == "message: test 3 differs"
    assert any("no benchmark" in w for w in dc.failures(item, dict(run(1.0), bench=None), False))


def _dry_run(tmp_path: Path, *args: str) -> tuple[str, str]:
    proc = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--cpu-dry-run",
            "--no-timing",
            "--out",
            str(tmp_path),
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=150,
        cwd=ROOT,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout, (tmp_path / "device_check.txt").read_text()


def test_dry_run_judges_one_file_and_writes_the_report(tmp_path: Path) -> None:
    solution = ROOT / "problems" / "055-embedding-parameter-accounting" / "solution.py"
    out, written = _dry_run(tmp_path, "--files", str(solution))
    assert out == written
    assert "mode CPU dry run" in out
    assert "runner hello: device cpu" in out
    assert "(1/1) 055/solution.py run 1/1" in out
    row = next(line for line in out.splitlines() if line.startswith("055/solution.py "))
    assert row.split()[1:3] == ["1", "ACx1"], row
    assert "no FAIL lines" in out


def test_time_bound_stops_before_judging(tmp_path: Path) -> None:
    solution = ROOT / "problems" / "055-embedding-parameter-accounting" / "solution.py"
    out, _ = _dry_run(tmp_path, "--files", str(solution), "--max-minutes", "0.2")
    assert "STOPPED early (time bound" in out
    assert "not reached" in out
    assert "FAIL nothing was judged" in out
