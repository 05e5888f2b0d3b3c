"""Each CPU problem's accepted solution judged as a Submit, with its speed of light per shape.

    scripts/sol_table [NUMBER ...]        # default: every CPU problem with a benchmark

Runs `manage.py judge N problems/N-*/solutions/AC/<first>.py --mode submit --json` (the local backend
unless JUDGE_BACKEND says otherwise) and checks what the speed of light asks of a correct solution: AC,
`environment.peak` filled, and 0 < sol_fraction <= 1 on every shape. Prints one Markdown row
per shape (as in docs/speed-of-light.md) and a summary; exits 1 when any check fails."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

from sandbox.grader.manifest import DEVICES, benchmark_of, choice_of
from sandbox.tools import CATALOG, ROOT


def cpu_problems() -> list[Path]:
    found = []
    for folder in sorted(CATALOG.glob("[0-9][0-9][0-9]-*")):
        toml = folder / "problem.toml"
        manifest = tomllib.loads(toml.read_text())
        bench = benchmark_of(manifest, toml)
        if choice_of(manifest, "device", DEVICES, toml) != "gpu" and bench and bench.shapes:
            found.append(folder)
    return found


def judge(folder: Path) -> dict:
    env = {"DEBUG": "true", **os.environ}
    number = str(int(folder.name[:3]))
    # The reference imports kernels/, which no sandbox holds: judge the package's first
    # accepted solution, written as a student would.
    accepted = sorted((folder / "solutions" / "AC").glob("*.py"))[0]
    done = subprocess.run(
        [sys.executable, "manage.py", "judge", number, str(accepted),
         "--mode", "submit", "--json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=900, check=False,
    )
    try:
        return json.loads(done.stdout)
    except json.JSONDecodeError:
        return {"verdict": "?", "message": (done.stderr or done.stdout)[-400:]}


def main() -> int:
    wanted = {int(a) for a in sys.argv[1:]}
    folders = [f for f in cpu_problems() if not wanted or int(f.name[:3]) in wanted]
    failures: list[str] = []
    failed: set[int] = set()
    peak: dict = {}
    print("| # | shape | reference ms | baseline ms | speed of light ms | % of light | bound |")
    print("|---|---|---|---|---|---|---|")
    for folder in folders:
        number = int(folder.name[:3])
        before = len(failures)
        result = judge(folder)
        peak = (result.get("environment") or {}).get("peak") or {}
        if result.get("verdict") != "AC":
            failures.append(f"{number}: {result.get('verdict')} {result.get('message', '')[:200]}")
        if not peak.get("memory_gbps") or not peak.get("gflops"):
            failures.append(f"{number}: environment.peak missing ({peak})")
        shapes = (result.get("benchmark") or {}).get("shapes") or []
        if not shapes:
            failures.append(f"{number}: no benchmark.shapes")
        for shape in shapes:
            fraction = shape.get("sol_fraction")
            if fraction is None or not 0 < fraction <= 1:
                failures.append(f"{number} {shape.get('name')}: sol_fraction {fraction}")
            print(f"| {number} | {shape.get('name')} | {shape.get('submission_ms', 0):.3f} | "
                  f"{shape.get('baseline_ms', 0):.3f} | {shape.get('sol_ms') or 0:.4f} | "
                  f"{100 * (fraction or 0):.1f} | {shape.get('bound')} |", flush=True)
        if len(failures) > before:
            failed.add(number)
    if peak:
        print(f"\nlimits: {peak.get('memory_gbps')} GB/s, {peak.get('gflops')} GFLOP/s")
    print(f"{len(folders) - len(failed)}/{len(folders)} "
          "problems: AC, peak filled, 0 < sol_fraction <= 1 on every shape")
    for failure in failures:
        print("FAIL", failure)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
