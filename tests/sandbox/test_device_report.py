"""scripts/device_check's report (issue 38, item 7): per-shape rows with the speedup's CV over
repeats, the ordering of two solutions 10 % apart (fake clock: exact; CPU copies: it runs), the
JSON report of a CPU dry run, and the --docker mode's plan (its CPU dry run: nothing judged)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.bench import device_report

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "device_check"
SOLUTION = ROOT / "problems" / "055-embedding-parameter-accounting" / "solution.py"


def test_shape_rows_take_medians_and_the_speedups_cv_over_repeats() -> None:
    def run(speedup: float, ms: float) -> dict[str, object]:
        return {"bench": {"shapes": [{"name": "big", "submission_ms": ms, "speedup": speedup,
                                      "sol_fraction": 0.5}]}}

    rows = device_report.shape_rows("079/AC/a.py", [run(1.0, 2.0), run(1.2, 1.0), run(1.1, 3.0),
                                                    {"bench": None}])
    (row,) = rows
    assert row["shape"] == "big" and row["runs"] == 3 and row["time_ms"] == 2.0
    assert row["sol_percent"] == 50.0 and row["speedup"] == 1.1
    assert row["speedup_cv_percent"] == pytest.approx(7.42, abs=0.01)
    header, line = device_report.shape_lines(rows)
    assert "% light" in header and line.startswith("079/AC/a.py") and "50.0" in line
    assert device_report.cv_percent([1.0]) is None


def test_two_solutions_10_percent_apart_are_ordered_with_one_count() -> None:
    now = [0]

    def clock() -> int:
        now[0] += 5_000  # a fixed cost at every read: amortised by the count
        return now[0]

    def kernel(ns: int):  # noqa: ANN202
        def call() -> None:
            now[0] += ns
        return call

    found = device_report.ordering(kernel(20_000), kernel(22_000), clock=clock, trials=20)
    assert found["right"] == 20 and found["calls_per_sample"] == 40  # (20+5) us probe: 40 calls
    assert found["ratio_median"] == pytest.approx(1.10, abs=0.01)


def test_the_ordering_runs_on_cpu_copies() -> None:
    import torch

    fast, slow = device_report.copy_pair(torch, "cpu", 1 << 14)
    found = device_report.ordering(fast, slow, trials=2, samples=2)
    assert found["trials"] == 2 and found["calls_per_sample"] >= 1  # figures only: no timing


def _script(tmp_path: Path, *args: str) -> str:
    proc = subprocess.run([sys.executable, str(SCRIPT), "--cpu-dry-run", "--no-timing", "--out",
                           str(tmp_path), "--files", str(SOLUTION), *args],
                          capture_output=True, text=True, timeout=150, cwd=ROOT, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_the_docker_modes_dry_run_plans_and_judges_nothing(tmp_path: Path) -> None:
    out = _script(tmp_path, "--docker", "--plan", "--gpu-ids", "0,1")
    assert "== Plan (nothing judged): backend {'backend': 'docker'" in out
    assert "would judge 055/solution.py (expect AC, x1)" in out
    assert "Runner probe" not in out
    data = json.loads((tmp_path / "device_check.json").read_text())
    assert data["mode"] == "plan" and data["plan"]["gpu_ids"] == ["0", "1"]
    assert data["plan"]["gpu_image"] == "tensor-judge-sandbox:cuda"


def test_the_cpu_dry_run_writes_one_json_report(tmp_path: Path) -> None:
    out = _script(tmp_path, "--order-trials", "3")
    assert "== 6. Per shape" in out and "== 7. Ordering of two solutions 10 % apart (3 trials)" in out
    assert "ordered right " in out
    data = json.loads((tmp_path / "device_check.json").read_text())
    assert data["mode"] == "CPU dry run" and data["fails"] == []
    assert data["files"][0]["file"] == "055/solution.py"
    assert data["files"][0]["runs"][0]["verdict"] == "AC"
    assert data["ordering"]["trials"] == 3
