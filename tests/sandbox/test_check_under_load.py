"""scripts/check_under_load (sandbox/tools/check_under_load.py): its hogs end by their ids and
report their CPU, and a run (its judgings stubbed, no hogs) prints each AC file's verdict."""

from __future__ import annotations

import time

import pytest

from sandbox.grader.check import CheckItem
from sandbox.tools import check_under_load


def test_a_hog_burns_its_core_and_is_stopped() -> None:
    hogs = check_under_load.Hogs(1, max_s=30.0)
    try:
        time.sleep(1.0)
        assert "1 hogs ran" in hogs.report() and "1 still running" in hogs.report()
    finally:
        hogs.stop()
    assert all(p.poll() is not None for p in hogs.procs)
    assert "none running at the end" in hogs.report()


def test_which_check_items_are_ac_files() -> None:
    assert check_under_load.is_ac_item("reference (solution.py) is AC")
    assert check_under_load.is_ac_item("solutions/AC/fast.py gets AC")
    assert not check_under_load.is_ac_item("solutions/WA/off.py gets WA")


def test_a_run_prints_each_problems_ac_files_and_fails_on_one_not_ac(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The loop over the packages, with the judgings stubbed (the judging itself is the
    package check's, tested with it; a real run takes seconds per problem)."""
    seen = []

    def items(package: object, backend: object, full: bool) -> list[CheckItem]:
        seen.append((package.number, full))  # type: ignore[attr-defined]
        return [
            CheckItem("reference (solution.py) is AC", True, seconds=1.0),
            CheckItem("solutions/AC/slow.py gets AC", package.number != 55, "TLE in big", 2.0),  # type: ignore[attr-defined]
        ]

    monkeypatch.setattr(check_under_load, "ac_items", items)
    monkeypatch.setattr(check_under_load.time, "sleep", lambda seconds: None)  # the hogs' head start
    monkeypatch.setattr(check_under_load.signal, "signal", lambda *args: None)  # pytest's SIGTERM
    status = check_under_load.main(["--problems", "55,48", "--ac-only", "--hogs-per-core", "0"])
    out = capsys.readouterr().out
    assert status == 1
    assert seen == [(48, False), (55, False)]
    assert "055-embedding-parameter-accounting: 1/2 AC [reference AC 1.0s, slow.py NOT AC 2.0s]" in out
    assert "  FAIL 055-embedding-parameter-accounting solutions/AC/slow.py gets AC: TLE in big" in out
    assert "AC files not AC under load: 1 of 4; other check items failed: 0" in out
