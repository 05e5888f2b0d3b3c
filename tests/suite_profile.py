"""Where the suite's time goes: an opt-in pytest plugin and its summary (stop 46).

    TJ_SUITE_PROFILE=/tmp/prof python -m pytest -p tests.suite_profile tests ...   # record
    python -m tests.suite_profile /tmp/prof                             # summarize

Each test (setup, call and teardown together) appends one JSON line to
``$TJ_SUITE_PROFILE/tests-<xdist worker>.jsonl``: its start, its wall time, the CPU of the
pytest process and its reaped children, and the busy CPU of the whole machine over the test
(``/proc/stat``: Docker's containers, the compose stack and the fork server's runners count
there, not in the process's own figure). The machine's figure belongs to the test only when
nothing else runs: profile one part at a time, without xdist, to read it per test. The summary
adds the figures up per work unit (tests/conftest.py's ``work_unit``: the compose stack is one)
and per folder.
"""

from __future__ import annotations

import collections
import json
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest


def _machine_busy_s() -> float:
    """Busy CPU-seconds of the whole machine since boot (all but idle and iowait)."""
    with open("/proc/stat") as stat:
        fields = [int(x) for x in stat.readline().split()[1:8]]
    return (sum(fields) - fields[3] - fields[4]) / os.sysconf("SC_CLK_TCK")


def _own_cpu_s() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _output() -> Path | None:
    folder = os.environ.get("TJ_SUITE_PROFILE")
    if not folder:
        return None
    Path(folder).mkdir(parents=True, exist_ok=True)
    return Path(folder) / f"tests-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.jsonl"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[Any]:
    out = _output()
    started, own, machine = time.time(), _own_cpu_s(), _machine_busy_s()
    result = yield
    if out is not None:
        row = {
            "id": item.nodeid,
            "t0": started,
            "wall": time.time() - started,
            "cpu": _own_cpu_s() - own,
            "machine_cpu": _machine_busy_s() - machine,
        }
        with out.open("a") as f:
            f.write(json.dumps(row) + "\n")
    return result


def summarize(folder: Path, top: int = 30) -> str:
    """The recorded tests of ``folder`` added up per work unit and per test folder."""
    from tests.conftest import work_unit

    rows = [json.loads(line) for path in sorted(folder.glob("tests-*.jsonl"))
            for line in path.read_text().splitlines() if line.strip()]
    if not rows:
        return f"no tests recorded in {folder}"
    units: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    folders: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    for row in rows:
        for key, table in ((work_unit(row["id"]), units),
                           ("/".join(row["id"].split("/")[:2]), folders)):
            table[key][0] += row["wall"]
            table[key][1] += row["machine_cpu"]
            table[key][2] += 1
    span = max(r["t0"] + r["wall"] for r in rows) - min(r["t0"] for r in rows)
    lines = [f"{len(rows)} tests, {span:.0f} s from the first start to the last end; "
             f"test wall {sum(r['wall'] for r in rows):.0f} s "
             "(machine CPU is the test's own only when nothing ran beside it)"]
    for title, table, limit in (("per folder", folders, len(folders)), ("per work unit", units, top)):
        lines += ["", f"{title}: wall s, machine CPU-s, tests"]
        for key, (wall, cpu, n) in sorted(table.items(), key=lambda kv: -kv[1][1])[:limit]:
            lines.append(f"{wall:8.1f} {cpu:8.1f} {int(n):5d}  {key}")
    return "\n".join(lines)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit("usage: python -m tests.suite_profile FOLDER [TOP]")
    print(summarize(Path(sys.argv[1]), int(sys.argv[2]) if len(sys.argv) > 2 else 30))
