"""What scripts/device_check reports beside its judgings (issue 38, item 7): per benchmark shape
the time, the fraction of the speed of light and the speedup with their CV over repeated
judgings; whether two solutions 10 % apart come out in the right order (timed as
sandbox/bench/sampling.py times a short kernel); one JSON report; and the plan of its
``--docker`` mode. Standard library only (the device machine has no venv), torch passed in.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sandbox.bench.sampling import shared_count, time_sample

ORDER_TRIALS = 20
ORDER_SAMPLES = 5  # samples of each side per trial (their medians are compared)
ORDER_GAP = 1.10  # the slower solution does 10 % more work


def cv_percent(values: list[float]) -> float | None:
    """Population stdev / mean, in %; None for fewer than two values."""
    if len(values) < 2 or not statistics.fmean(values):
        return None
    return 100 * statistics.pstdev(values) / statistics.fmean(values)


def shape_rows(label: str, runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per shape of one file's judgings: the median time, % of light and speedup, and the
    speedup's CV over the judgings that timed it."""
    by_shape: dict[str, list[dict[str, Any]]] = {}
    for run in runs:
        for shape in (run.get("bench") or {}).get("shapes") or []:
            if isinstance(shape, dict) and shape.get("name"):
                by_shape.setdefault(str(shape["name"]), []).append(shape)
    rows = []
    for name, entries in by_shape.items():
        def values(key: str, entries: list[dict[str, Any]] = entries) -> list[float]:
            return [float(e[key]) for e in entries if isinstance(e.get(key), int | float)]

        times, lights, speedups = values("submission_ms"), values("sol_fraction"), values("speedup")
        rows.append({
            "file": label, "shape": name, "runs": len(entries),
            "time_ms": statistics.median(times) if times else None,
            "sol_percent": 100 * statistics.median(lights) if lights else None,
            "speedup": statistics.median(speedups) if speedups else None,
            "speedup_cv_percent": cv_percent(speedups),
        })
    return rows


def shape_lines(rows: list[dict[str, Any]]) -> list[str]:
    def num(value: float | None, fmt: str) -> str:
        return "-" if value is None else format(value, fmt)

    lines = [f"{'file':<34} {'shape':<36} {'runs':>4} {'time ms':>9} {'% light':>8} "
             f"{'speedup':>8} {'CV %':>6}"]
    for r in rows:
        lines.append(
            f"{r['file']:<34} {r['shape'][:36]:<36} {r['runs']:>4} {num(r['time_ms'], '.4f'):>9} "
            f"{num(r['sol_percent'], '.1f'):>8} {num(r['speedup'], '.3f'):>8} "
            f"{num(r['speedup_cv_percent'], '.1f'):>6}")
    return lines


def ordering(fast: Callable[[], Any], slow: Callable[[], Any],
             clock: Callable[[], int] = time.perf_counter_ns,
             sync: Callable[[], None] | None = None, flush: Callable[[], None] | None = None,
             trials: int = ORDER_TRIALS, samples: int = ORDER_SAMPLES) -> dict[str, Any]:
    """Two solutions 10 % apart, timed ``trials`` times as the judge times a speedup (one
    count for both, calibrated; samples alternated; medians compared): how often the faster
    one comes out faster, and the measured ratio's median and CV."""
    count = shared_count(fast, slow, clock, sync)
    right, ratios = 0, []
    for _ in range(trials):
        a, b = [], []
        for _ in range(samples):
            a.append(time_sample(fast, count, clock, flush, sync))
            b.append(time_sample(slow, count, clock, flush, sync))
        ratio = statistics.median(b) / statistics.median(a)
        ratios.append(ratio)
        right += ratio > 1
    return {"trials": trials, "right": right, "calls_per_sample": count,
            "ratio_median": statistics.median(ratios), "ratio_cv_percent": cv_percent(ratios),
            "expected_ratio": ORDER_GAP}


def copy_pair(torch: Any, device: str, elements: int) -> tuple[Callable[[], Any],
                                                                Callable[[], Any]]:
    """Two copies, the second of 10 % more elements: solutions 10 % apart, for ``ordering``."""
    big = int(elements * ORDER_GAP)
    src, dst = torch.randn(big, device=device), torch.empty(big, device=device)
    n = elements

    def fast() -> Any:
        return dst[:n].copy_(src[:n])

    def slow() -> Any:
        return dst.copy_(src)

    return fast, slow


def docker_plan(gpu_image: str, gpu_ids: list[str], cuda: bool) -> dict[str, Any]:
    """What ``--docker`` would run: the Docker backend's options (a GPU sandbox per judging of
    a GPU problem, the CUDA image, the per-GPU lock) as the gpu-worker service uses them."""
    return {"backend": "docker", "gpu_image": gpu_image, "gpu_ids": gpu_ids,
            "gpu_sandboxes": cuda, "needs": "Docker and the NVIDIA container toolkit on this host"}


def write_json(path: Path, data: dict[str, Any]) -> None:
    """The one JSON report (floats that are not finite written as null)."""
    def clean(value: Any) -> Any:
        if isinstance(value, float) and value != value or value in (float("inf"), float("-inf")):
            return None
        if isinstance(value, dict):
            return {str(k): clean(v) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [clean(v) for v in value]
        return value

    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(clean(data), indent=2, default=str) + "\n")
