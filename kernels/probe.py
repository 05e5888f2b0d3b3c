"""The machine's limits, measured where the benchmark runs: a trusted probe.

The grader loads this module, inlined with the baselines, into the baseline's own sandbox
(same image, limits and CPU set as the student's) and calls :func:`machine_limits` once per
measurement (sandbox/bench/peak.py). Nothing here is a problem's oracle.

* memory: STREAM-like ``copy`` (``b = a``: 2 x 4 n bytes) and ``triad`` (``a = b + s c``: 3 x
  4 n bytes) on float32 arrays from in-cache sizes to beyond the last-level cache: the best
  rate at each working set (a curve). A benchmark's inputs are written just before each timed
  call, so a small shape's data sits in cache: a roof measured only beyond the cache would
  be beaten by honest code (sandbox/bench/peak.py picks the point for a shape's bytes).
* compute: a float32 matrix product ``n x n @ n x n`` (2 n^3 operations), n doubling from
  256 to at least 1024, then until one product takes over ``_PROBE_MATMUL_TARGET_S``; the best rate counts.

On a GPU (``device="cuda"``) only the copy is measured (CUDA events, a 256 MiB array): the
compute roof comes from the table of published peaks (sandbox/bench/peak.py).

No ``from __future__`` import: the grader appends this module's source to the baselines' file
(sandbox/bench/peak.py, ``with_probe``), where such a line could only come first.
"""

import time

import torch

# float32 elements per array, 256 KiB to 64 MiB: copy/triad working sets from inside a core's
# L2 to several times a 32 MiB L3
_PROBE_CPU_SIZES = (1 << 16, 1 << 18, 1 << 20, 1 << 22, 1 << 24)
_PROBE_REPS = 5
_PROBE_BATCH_ELEMENTS = 1 << 23  # a timed batch of small copies moves at least 64 MiB
_PROBE_MATMUL_TARGET_S = 0.02
_PROBE_MATMUL_MAX_N = 4096
_PROBE_GPU_ELEMENTS = 1 << 26


def _probe_best_s(fn, reps: int, inner: int = 1) -> float:  # type: ignore[no-untyped-def]
    """The best time of one call of ``fn``, timed ``inner`` calls at a time (a small array's
    copy lasts microseconds: one call alone would time the dispatch and the thread wake-up)."""
    fn()  # first touch of the pages, caches warmed
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter_ns()
        for _ in range(inner):
            fn()
        best = min(best, (time.perf_counter_ns() - start) / 1e9 / inner)
    return max(best, 1e-12)


def _probe_cpu() -> dict[str, object]:
    curve: list[list[float]] = []  # [working set bytes, GB/s], copy and triad at each size
    for n in _PROBE_CPU_SIZES:
        a, b, c = (torch.full((n,), 1.0, dtype=torch.float32) for _ in range(3))
        inner = max(1, _PROBE_BATCH_ELEMENTS // n)
        seconds = _probe_best_s(lambda a=a, b=b: b.copy_(a), _PROBE_REPS, inner)
        curve.append([2 * 4 * n, 2 * 4 * n / seconds / 1e9])
        seconds = _probe_best_s(
            lambda a=a, b=b, c=c: torch.add(b, c, alpha=3.0, out=a), _PROBE_REPS, inner
        )
        curve.append([3 * 4 * n, 3 * 4 * n / seconds / 1e9])
    gflops = 0.0
    n = 256
    while n <= _PROBE_MATMUL_MAX_N:
        x = torch.full((n, n), 0.5, dtype=torch.float32)  # the values do not change the time
        y = torch.full((n, n), 0.25, dtype=torch.float32)
        out = torch.empty(n, n, dtype=torch.float32)
        inner = max(1, 512**3 // n**3)
        seconds = _probe_best_s(lambda x=x, y=y, out=out: torch.mm(x, y, out=out), 3, inner)
        gflops = max(gflops, 2 * n**3 / seconds / 1e9)
        # at least up to 1024 (a busy moment must not stop it early), then while quick
        if n >= 1024 and seconds > _PROBE_MATMUL_TARGET_S:
            break
        n *= 2
    return {"memory_curve": curve, "gflops": gflops}


def _probe_cuda() -> dict[str, object]:
    a = torch.ones(_PROBE_GPU_ELEMENTS, dtype=torch.float32, device="cuda")
    b = torch.empty_like(a)
    b.copy_(a)
    torch.cuda.synchronize()
    best = float("inf")
    for _ in range(_PROBE_REPS):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        b.copy_(a)
        end.record()
        end.synchronize()
        best = min(best, start.elapsed_time(end) / 1e3)
    moved = 2 * 4 * _PROBE_GPU_ELEMENTS
    return {"memory_curve": [[moved, moved / max(best, 1e-9) / 1e9]], "gflops": 0.0}


def machine_limits(device: str = "cpu") -> dict[str, object]:
    """``{"memory_curve": [[working set bytes, GB/s], ...], "gflops"}``: the best rates reached
    here, in GB/s (1e9 bytes) and GFLOP/s; on a GPU (``device`` "cuda") one copy point and no
    flop rate (0: the published table has it)."""
    if device.startswith("cuda") and torch.cuda.is_available():
        return _probe_cuda()
    return _probe_cpu()
