"""The suite's profile (tests/suite_profile.py) adds each test's figures to its work unit."""

from __future__ import annotations

import json
from pathlib import Path

from tests.suite_profile import summarize


def test_the_summary_adds_up_tests_per_work_unit_and_folder(tmp_path: Path) -> None:
    rows = [
        {"id": "tests/platform/test_platform_faults.py::a", "t0": 100.0, "wall": 10.0, "cpu": 1.0, "machine_cpu": 12.0},
        {"id": "tests/platform/test_platform_hosts.py::b", "t0": 110.0, "wall": 5.0, "cpu": 1.0, "machine_cpu": 6.0},
        {"id": "tests/api/test_api_v1.py::c", "t0": 101.0, "wall": 2.0, "cpu": 2.0, "machine_cpu": 3.0},
    ]
    (tmp_path / "tests-gw0.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows[:2]))
    (tmp_path / "tests-gw1.jsonl").write_text(json.dumps(rows[2]) + "\n")
    text = summarize(tmp_path)
    assert text.startswith("3 tests, 15 s from the first start to the last end; test wall 17 s")
    lines = [line.split() for line in text.splitlines()]
    assert ["15.0", "18.0", "2", "stack"] in lines  # two modules of the compose stack: one unit
    assert ["15.0", "18.0", "2", "tests/platform"] in lines
    assert ["2.0", "3.0", "1", "tests/api/test_api_v1.py"] in lines
    assert summarize(tmp_path / "none").startswith("no tests recorded")
