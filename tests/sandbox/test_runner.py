"""The generic runner's protocol, spoken directly (no grader) through the local backend."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import torch

from sandbox.host.backends.base import Backend, SandboxSpec
from sandbox.host.backends.local import LocalSandbox
from sandbox.runner import calls, digests, framing, wire, wire_decode
from sandbox.runner import inputs as bench_inputs

SOURCE = """
import sys

def double(x):
    print("doubling")
    return x * 2

def paths():
    return list(sys.path)

def boom():
    return helper()

def helper():
    return 1 / 0

def axpy(x, y, alpha):
    return alpha * x + y

def busy(ms):
    import time
    end = time.perf_counter() + float(ms) / 1000
    while time.perf_counter() < end:
        pass
    return 0
"""


@pytest.fixture(scope="module")
def box(local_backend: Backend) -> Iterator[LocalSandbox]:
    sandbox = local_backend.start(SandboxSpec(wall_time_s=120))
    assert isinstance(sandbox, LocalSandbox)
    with sandbox:
        hello, _ = framing.decode_frame(sandbox.recv(120))
        assert hello["op"] == "hello"
        reply = ask(
            sandbox,
            {
                "op": "load",
                "source": SOURCE,
                "functions": ["double", "paths", "boom", "axpy", "busy"],
            },
        )
        assert reply["status"] == "ok"
        yield sandbox


def ask(box: LocalSandbox, message: dict[str, Any], **values: Any) -> dict[str, Any]:
    box.send(wire.frame(message, **values))
    reply, blob = framing.decode_frame(box.recv(30))
    for key in ("obs", "value"):
        if key in reply:
            reply[key] = wire_decode.decode(reply[key], blob, keep_class=True)
    return reply


def call(box: LocalSandbox, fn: str, *args: Any) -> dict[str, Any]:
    return ask(
        box, {"op": "call", "fn": fn, "grad_wrt": [], "grad_seed": 0}, args=list(args), kwargs={}
    )


def test_a_call_returns_the_observation_and_counts_printed_bytes(box: LocalSandbox) -> None:
    before = call(box, "double", torch.ones(2))
    after = call(box, "double", torch.ones(2))
    obs = after["obs"]
    assert obs["kind"] == "return" and torch.equal(obs["value"].tensor, torch.full((2,), 2.0))
    assert after["printed"] - before["printed"] == len("doubling\n")


def test_the_submission_is_not_on_sys_path_and_cannot_shadow_modules(box: LocalSandbox) -> None:
    paths = call(box, "paths")["obs"]["value"]
    assert not any("submission" in p for p in paths)
    assert "" not in paths and "." not in paths, "python -I -m: no working directory on the path"


def test_a_raise_carries_a_traceback_of_the_students_file_only(box: LocalSandbox) -> None:
    obs = call(box, "boom")["obs"]
    assert obs["kind"] == "raise" and obs["type"] == "ZeroDivisionError"
    assert "line 15, in helper" in obs["traceback"] and "sandbox/runner" not in obs["traceback"]


def test_time_then_last_output_gives_the_timed_result(box: LocalSandbox) -> None:
    specs = [{"randn": [1000]}, {"randn": [1000]}, 3.0]
    reply = ask(
        box,
        {
            "op": "time",
            "which": "timed",
            "fn": "axpy",
            "specs": specs,
            "seed": 11,
            "device": "cpu",
        },
    )
    assert reply["ok"] and 0 < reply["time_ns"] < 1e9
    out = ask(box, {"op": "last_output", "which": "timed"})["value"].tensor
    x, y, alpha = bench_inputs.build_inputs(specs, 11)
    assert torch.allclose(out, alpha * x + y, atol=1e-5)


def _time_busy(box: LocalSandbox, ms: float) -> dict[str, Any]:
    message = {"op": "time", "which": "timed", "fn": "busy", "specs": [ms], "seed": 1}
    return ask(box, {**message, "device": "cpu"})


def test_a_time_reply_says_how_long_the_call_waited_for_a_cpu(box: LocalSandbox) -> None:
    """The run delay of the runner's threads during the call (sandbox/bench/trust.py
    ``baseline_waited``): with a process spinning on the same CPU, a 100 ms call waits for
    about half of it; the bound below leaves room for any other load, which only adds."""
    import os
    import subprocess
    import sys

    alone = _time_busy(box, 5)
    assert 0 <= alone["waited_ns"] <= alone["time_ns"]
    pid = box.proc.pid  # type: ignore[attr-defined]
    cpu = min(os.sched_getaffinity(pid))
    before = os.sched_getaffinity(pid)
    spinner = subprocess.Popen(
        [sys.executable, "-c", "import time\nend = time.time() + 20\nwhile time.time() < end: pass"]
    )
    try:
        os.sched_setaffinity(pid, {cpu})
        os.sched_setaffinity(spinner.pid, {cpu})
        shared = _time_busy(box, 100)
    finally:
        spinner.kill()
        spinner.wait()
        os.sched_setaffinity(pid, before)
    assert shared["waited_ns"] > 0.2 * shared["time_ns"], shared


def test_unknown_ops_are_answered_not_fatal(box: LocalSandbox) -> None:
    assert ask(box, {"op": "format_disk"})["ok"] is False
    # The runner imports no baseline of its own: a baseline is another sandbox's submission.
    assert ask(box, {"op": "baselines", "baselines": ["kernels.embedding:embed"]})["ok"] is False
    assert call(box, "double", 1)["obs"]["value"] == 2


# ---- the CUDA timing path: its logic on CPU with a recording stand-in, the real thing on a GPU


class _RecordingCuda:
    """Stands in for torch.cuda: records the order of synchronisations and events."""

    def __init__(self, log: list[str]) -> None:
        self.log = log
        cuda = self

        class Event:
            def __init__(self, enable_timing: bool = False) -> None:
                assert enable_timing
                self.name = "start" if not any(e.startswith("event") for e in log) else "end"
                log.append(f"event {self.name}")

            def record(self) -> None:
                log.append(f"record {self.name}")

            def synchronize(self) -> None:
                log.append(f"wait {self.name}")

            def elapsed_time(self, other: Any) -> float:
                return 1.25  # milliseconds

        self.Event = Event
        self.cuda = cuda

    def is_available(self) -> bool:
        return True

    def synchronize(self) -> None:
        self.log.append("device sync")


def test_the_cuda_timing_flushes_l2_and_brackets_the_call_with_device_syncs(tmp_path: Any) -> None:
    import types

    from sandbox.runner import server as runner

    log: list[str] = []
    cuda = _RecordingCuda(log)

    class FlushBuffer:
        def zero_(self) -> None:
            log.append("flush L2")

    fake_torch = types.SimpleNamespace(
        cuda=cuda,
        Tensor=torch.Tensor,
        empty=lambda *a, **k: FlushBuffer(),
        uint8=torch.uint8,
    )
    server = runner._Server(framing, wire, calls, digests, bench_inputs, fake_torch, str(tmp_path))

    def student(x: int) -> int:
        log.append("call")
        return x + 1

    elapsed_ns, host_ns, out = server._time_cuda(student, [1])
    assert out == 2 and elapsed_ns == 1_250_000 and host_ns > 0
    order = [e for e in log if not e.startswith("event")]
    assert order == [
        "flush L2",
        "device sync",
        "record start",
        "call",
        "device sync",
        "record end",
        "wait end",
    ]


@pytest.mark.gpu
def test_on_a_gpu_the_runner_times_with_cuda_events(box: LocalSandbox) -> None:
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device here (run sandbox/gpu_check.sh on a GPU machine)")
    specs = [{"randn": [1 << 20]}, {"randn": [1 << 20]}, 2.0]
    reply = ask(
        box,
        {
            "op": "time",
            "which": "timed",
            "fn": "axpy",
            "specs": specs,
            "seed": 5,
            "device": "cuda",
        },
    )
    assert reply["ok"] and 0 < reply["time_ns"] <= reply["host_ns"]
    value = ask(box, {"op": "last_output", "which": "timed"})["value"]
    x, y, alpha = bench_inputs.build_inputs(specs, 5)
    assert torch.allclose(value.tensor, alpha * x + y, atol=1e-5)
    obs = ask(
        box,
        {"op": "call", "fn": "double", "grad_wrt": [], "grad_seed": 0, "device": "cuda"},
        args=[torch.ones(3)],
        kwargs={},
    )["obs"]
    assert torch.equal(obs["value"].tensor, torch.full((3,), 2.0))
