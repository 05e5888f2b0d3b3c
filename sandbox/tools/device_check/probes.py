"""The device check's measurements besides judging: the environment, the CUDA timing sanity
check and the ordering of two solutions 10 % apart."""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sandbox.tools.device_check.report import Report, stats


# ---------------------------------------------------------------- environment
def environment(report: Report, cuda: bool) -> None:
    import torch

    report("== 1. Environment")
    report(f"python      {platform.python_version()} ({sys.executable})")
    report(f"platform    {platform.platform()}")
    report(f"torch       {torch.__version__} (CUDA build {torch.version.cuda})")
    for name in ("triton", "numpy"):
        try:
            module = __import__(name)
            report(f"{name:<11} {module.__version__}")
        except Exception as exc:  # noqa: BLE001 - a report line, whatever the reason
            report(f"{name:<11} not importable ({type(exc).__name__}: {exc})")
    report(f"cpus        {os.cpu_count()} (affinity {len(os.sched_getaffinity(0))})")
    if not cuda:
        report("cuda        not available: CPU dry run")
        return
    props = torch.cuda.get_device_properties(0)
    report(f"devices     {torch.cuda.device_count()}; 0: {torch.cuda.get_device_name(0)}")
    report(
        f"capability  {props.major}.{props.minor}, {props.multi_processor_count} SMs, "
        f"{props.total_memory / 2**30:.1f} GiB, L2 "
        f"{getattr(props, 'L2_cache_size', 0) / 2**20:.0f} MiB"
    )
    with contextlib.suppress(Exception):
        report(f"cudnn       {torch.backends.cudnn.version()}")
    smi = shutil.which("nvidia-smi")
    if smi:
        query = (
            "name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,"
            "power.draw,persistence_mode,mig.mode.current"
        )
        try:
            out = subprocess.run(
                [smi, f"--query-gpu={query}", "--format=csv"],
                capture_output=True,
                text=True,
                timeout=20,
                check=False,
            )
            for line in (out.stdout or out.stderr).strip().splitlines():
                report(f"nvidia-smi  {line}")
        except (OSError, subprocess.TimeoutExpired) as exc:
            report(f"nvidia-smi  failed: {exc}")
    else:
        report("nvidia-smi  not on PATH")


# ---------------------------------------------------------------- timing sanity check
def timing_check(report: Report, cuda: bool, samples: int) -> None:
    """The runner's timing method on known kernels, beside bare events and the host clock."""
    import torch

    from sandbox.runner import calls, digests, framing, inputs, wire
    from sandbox.runner import server as runner

    report("")
    report("== 2. Timing sanity check (sandbox/runner/server.py _time_cuda vs bare events vs host clock)")
    tmp = tempfile.mkdtemp(prefix="device-check-")
    server = runner._Server(framing, wire, calls, digests, inputs, torch, tmp)
    perf = time.perf_counter_ns
    try:
        if not cuda:
            report("no CUDA: only the runner's CPU path (host clock around the call)")
            a = torch.randn(512, 512)
            src, dst = torch.randn(1 << 22), torch.empty(1 << 22)
            kernels = [
                ("matmul fp32 512", lambda: torch.mm(a, a), 2 * 512**3, "GFLOP/s"),
                ("copy 16 MiB", lambda: dst.copy_(src), 2 * src.numel() * 4, "GB/s"),
            ]
            for name, fn, work, unit in kernels:
                for _ in range(2):
                    fn()
                times = []
                for _ in range(max(3, samples // 3)):
                    t0 = perf()
                    out = fn()
                    runner._materialise(out, torch)
                    times.append((perf() - t0) / 1e6)
                s = stats(times)
                report(
                    f"{name:<26} host  median {s['median']:9.4f} ms  "
                    f"min-max {s['min']:.4f}-{s['max']:.4f}  CV {s['cv']:5.1f} %  "
                    f"{work / s['median'] / 1e6:8.1f} {unit}"
                )
            return
        _cuda_timing(report, server, samples)
    except Exception as exc:  # noqa: BLE001 - a report, not a test: say it and go on
        report(f"FAIL timing check: {type(exc).__name__}: {exc}")
    finally:
        server.flush_buffer = None
        shutil.rmtree(tmp, ignore_errors=True)
        if cuda:
            torch.cuda.empty_cache()


def _cuda_timing(report: Report, server: Any, samples: int) -> None:
    """The three methods on three kernels (their tensors freed on return)."""
    import torch

    perf = time.perf_counter_ns
    n = 1 << 28  # 1 GiB of float32
    src, dst = torch.randn(n, device="cuda"), torch.empty(n, device="cuda")
    m = 8192
    a = torch.randn(m, m, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(m, m, device="cuda", dtype=torch.bfloat16)
    tiny = torch.randn(256, device="cuda")
    kernels = [
        ("copy 1 GiB fp32", lambda: dst.copy_(src), 2 * n * 4, "GB/s"),
        ("matmul bf16 8192^3", lambda: torch.mm(a, b), 2 * m**3, "TFLOP/s"),
        ("add 256 fp32 (launch)", lambda: tiny + 1.0, 0, ""),
    ]

    def with_runner(fn: Any) -> float:
        elapsed_ns, _host_ns, _out = server._time_cuda(lambda: fn(), [])
        return elapsed_ns / 1e6

    def with_events(fn: Any) -> float:
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        fn()
        end.record()
        end.synchronize()
        return float(start.elapsed_time(end))

    def with_host(fn: Any) -> float:
        torch.cuda.synchronize()
        t0 = perf()
        fn()
        torch.cuda.synchronize()
        return (perf() - t0) / 1e6

    try:  # a Triton kernel too: does Triton compile and launch here at all?
        kernels.append(("triton add 1M fp32", _triton_add(torch), 3 * 4 * (1 << 20), "GB/s"))
    except Exception as exc:  # noqa: BLE001
        report(f"FAIL triton kernel: {type(exc).__name__}: {exc}"[:600])

    methods = [("runner", with_runner), ("events", with_events), ("host", with_host)]
    for name, fn, work, unit in kernels:
        medians = {}
        for method, timer in methods:
            for _ in range(3):
                timer(fn)
            times = [timer(fn) for _ in range(samples)]
            s = stats(times)
            medians[method] = s["median"]
            rate = ""
            if work:
                scale = 1e9 if unit == "GB/s" else 1e12
                rate = f"  {work / (s['median'] / 1e3) / scale:8.1f} {unit}"
            report(
                f"{name:<24} {method:<7} median {s['median']:9.4f} ms  "
                f"min-max {s['min']:.4f}-{s['max']:.4f}  CV {s['cv']:5.1f} %{rate}"
            )
        if medians.get("events"):
            report(
                f"{name:<24} runner/events {medians['runner'] / medians['events']:.3f}  "
                f"host/events {medians['host'] / medians['events']:.3f}"
            )


TRITON_ADD = """
import triton
import triton.language as tl


@triton.jit
def add_kernel(x, y, out, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    tl.store(out + offs, tl.load(x + offs, mask=mask) + tl.load(y + offs, mask=mask), mask=mask)
"""


def _triton_add(torch: Any) -> Any:
    """A compiled (and once run, checked) Triton vector add, as a no-argument callable. Its
    source is a file of its own, as @triton.jit needs (inspect.getsource, module globals)."""
    import importlib.util

    folder = Path(tempfile.mkdtemp(prefix="device-check-triton-"))
    (folder / "dc_triton_add.py").write_text(TRITON_ADD)
    spec = importlib.util.spec_from_file_location("dc_triton_add", folder / "dc_triton_add.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["dc_triton_add"] = module
    spec.loader.exec_module(module)
    n = 1 << 20
    x, y = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    out = torch.empty_like(x)
    grid = ((n + 1023) // 1024,)

    def fn() -> Any:
        module.add_kernel[grid](x, y, out, n, BLOCK=1024)
        return out

    fn()
    torch.cuda.synchronize()
    if not torch.equal(out, x + y):
        raise RuntimeError("the Triton add computed a wrong sum")
    return fn


def order_check(report: Report, cuda: bool, trials: int) -> dict[str, Any] | None:
    """Two solutions 10 % apart (copies of N and 1.1 N floats), ordered ``trials`` times."""
    import torch

    from sandbox.bench import device_report

    if trials <= 0:
        return None
    report("")
    report(f"== 7. Ordering of two solutions 10 % apart ({trials} trials)")
    device = "cuda" if cuda else "cpu"
    fast, slow = device_report.copy_pair(torch, device, (1 << 23) if cuda else (1 << 18))
    sync = torch.cuda.synchronize if cuda else None
    flush: Callable[[], None] | None = None
    if cuda:
        buffer = torch.empty(256 * 1024 * 1024, dtype=torch.uint8, device="cuda")

        def flush() -> None:  # an L2 flush between samples
            buffer.zero_()
    found = device_report.ordering(fast, slow, sync=sync, flush=flush, trials=trials)
    report(
        f"ordered right {found['right']} of {found['trials']}  ratio median "
        f"{found['ratio_median']:.3f} (expected {found['expected_ratio']:.2f}), CV "
        f"{found['ratio_cv_percent'] or 0:.1f} %, {found['calls_per_sample']} calls a sample"
    )
    return found
