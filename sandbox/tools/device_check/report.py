"""The device check's report: lines to stdout and a file, figures, the summary table and
the FAIL lines of a judged file."""

from __future__ import annotations

import statistics
import time
from collections import Counter
from pathlib import Path
from typing import Any

from sandbox.tools.device_check.selection import Item


# ---------------------------------------------------------------- report
class Report:
    """Lines to stdout (flushed) and, when given, to a file as they come."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self.start = time.monotonic()
        self.lines: list[str] = []
        if path is not None:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("")

    def __call__(self, text: str = "") -> None:
        for line in str(text).splitlines() or [""]:
            self.lines.append(line)
            print(line, flush=True)
            if self.path is not None:
                with open(self.path, "a", encoding="utf-8") as f:
                    f.write(line + "\n")

    def stamp(self) -> str:
        s = int(time.monotonic() - self.start)
        return f"[{s // 60:02d}:{s % 60:02d}]"


def stats(values: list[float]) -> dict[str, float]:
    """median, min, max, CV % (population stdev / mean; 0 for one value)."""
    if not values:
        return {
            "n": 0,
            "median": float("nan"),
            "min": float("nan"),
            "max": float("nan"),
            "cv": float("nan"),
        }
    mean = statistics.fmean(values)
    cv = statistics.pstdev(values) / mean * 100 if len(values) > 1 and mean else 0.0
    return {
        "n": len(values),
        "median": statistics.median(values),
        "min": min(values),
        "max": max(values),
        "cv": cv,
    }


def run_line(item: Item, run: dict[str, Any]) -> str:
    b = run.get("bench")
    parts = [f"{run['verdict']:<4}"]
    if b and b.get("speedup") is None:  # a rejected timing has no figure
        parts.append(
            f"no speedup (base {b['baseline_ms']:.4f} ms, {b['repetitions']} reps) "
            f"trust {b['trust']}{'/' + b['rule'] if b.get('rule') else ''}"
        )
    elif b:
        parts.append(
            f"speedup {b['speedup']:.3f} (sub {b['submission_ms']:.4f} ms, base "
            f"{b['baseline_ms']:.4f} ms, {b['repetitions']} reps, spread "
            f"{b['submission_spread'] * 100:.1f}/{b['baseline_spread'] * 100:.1f} %) "
            f"trust {b['trust']}{'/' + b['rule'] if b.get('rule') else ''}"
        )
        lights = [
            f"{100 * s['sol_fraction']:.1f} % of light ({s['bound']})"
            for s in b.get("shapes") or []
            if s.get("sol_fraction") is not None
        ]
        if lights:
            parts.append(", ".join(lights))
    peak = run.get("peak")
    if isinstance(peak, dict):  # the machine's limits the speed of light was weighed against
        parts.append(
            f"peak {peak.get('memory_gbps')} GB/s {peak.get('gflops')} GFLOP/s "
            f"({peak.get('source')}{', copy ' + str(peak['measured_copy_gbps']) + ' GB/s' if peak.get('measured_copy_gbps') else ''})"
        )
    parts.append(f"device {run['device']}")
    parts.append(f"{run['seconds']:.1f} s")
    return "  ".join(parts)


def failures(item: Item, run: dict[str, Any], cuda: bool) -> list[str]:
    """Why this judging is not what the check expects (empty: fine)."""
    why = []
    if run["verdict"] != item.expected:
        why.append(f"expected {item.expected}, got {run['verdict']}")
    if run["verdict"] == "AC" and run.get("expect_bench") and not run.get("bench"):
        why.append("no benchmark result")
    if run["verdict"] == "AC" and any(
        (s.get("sol_fraction") or 0) > 1 for s in (run.get("bench") or {}).get("shapes") or []
    ):
        why.append("a shape shown faster than light")
    if run["verdict"] == "AC" and run.get("bench") and run["bench"].get("trust") == "rejected":
        why.append(f"benchmark rejected ({run['bench'].get('rule')})")
    if cuda and run["verdict"] not in ("TIMEOUT", "ERROR") and not run["device"].startswith("cuda"):
        why.append(f"the runner had no GPU (device {run['device']})")
    if why and run.get("message"):
        why.append(f"message: {run['message']}")
    return why


def summary_row(item: Item) -> dict[str, str]:
    runs = item.runs
    speedups = [
        r["bench"]["speedup"]
        for r in runs
        if r.get("bench") and r["bench"].get("speedup") is not None
    ]
    s = stats(speedups)
    verdicts = Counter(r["verdict"] for r in runs)
    trusts = Counter(
        r["bench"]["trust"] + (f"/{r['bench']['rule']}" if r["bench"].get("rule") else "")
        for r in runs
        if r.get("bench")
    )
    devices = sorted({r["device"] for r in runs})
    return {
        "file": item.label,
        "runs": str(len(runs)),
        "verdicts": " ".join(f"{v}x{n}" for v, n in verdicts.most_common())
        or ("SKIP" if item.skipped else "not reached"),
        "median": f"{s['median']:.3f}" if speedups else "-",
        "minmax": f"{s['min']:.3f}-{s['max']:.3f}" if speedups else "-",
        "cv": f"{s['cv']:.1f}" if len(speedups) > 1 else "-",
        "trust": " ".join(f"{t}x{n}" for t, n in trusts.most_common()) or "-",
        "device": ", ".join(devices) or "-",
    }


COLUMNS = [
    ("file", 44),
    ("runs", 5),
    ("verdicts", 12),
    ("median", 8),
    ("minmax", 13),
    ("cv", 6),
    ("trust", 22),
    ("device", 0),
]
HEADERS = {
    "file": "file",
    "runs": "runs",
    "verdicts": "verdicts",
    "median": "speedup",
    "minmax": "min-max",
    "cv": "CV %",
    "trust": "trust/rule",
    "device": "device",
}


def table(rows: list[dict[str, str]]) -> list[str]:
    def fmt(row: dict[str, str]) -> str:
        return " ".join(f"{row[k]:<{w}}" if w else row[k] for k, w in COLUMNS).rstrip()

    return [fmt(HEADERS)] + [fmt(r) for r in rows]
