"""The device check's sandboxes (the local or the Docker backend, the address limit, the
runner's hello) and one judging of a file."""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import threading
import time
from typing import Any

from sandbox.tools.device_check.report import Report
from sandbox.tools.device_check.selection import Item


# ---------------------------------------------------------------- backend
class _NoAddressLimit:
    """``resource`` for sandbox/host/backends/local.py without RLIMIT_AS (CUDA maps far more
    address space than it uses); every other limit as the backend sets it."""

    def __getattr__(self, name: str) -> Any:
        return getattr(resource, name)

    @staticmethod
    def prlimit(pid: int, which: int, limits: Any = None) -> Any:
        if which == resource.RLIMIT_AS:
            return None
        return (
            resource.prlimit(pid, which) if limits is None else resource.prlimit(pid, which, limits)
        )


def make_docker_backend(gpu_image: str, gpu_ids: list[str]) -> Any:
    """The Docker backend as the gpu-worker uses it, remembering its sandboxes (``kill_all``
    closes them). Nothing is contacted before the first sandbox starts."""
    from sandbox.host.backends.docker import DockerBackend

    class TrackingDocker(DockerBackend):
        def __init__(self) -> None:
            super().__init__(gpu_image=gpu_image, gpu_ids=gpu_ids, cpus=None)
            self.live: list[Any] = []

        def start(self, spec: Any) -> Any:
            box = super().start(spec)
            self.live.append(box)
            return box

        def kill_all(self) -> None:
            for box in self.live:
                with contextlib.suppress(Exception):
                    box.close()
            self.live = []

    return TrackingDocker()


def make_backend(python: str, cpu_only: bool) -> Any:
    from sandbox.host.backends import base, local

    if cpu_only:
        # The runners must not see a GPU either (a dry run on a GPU machine); Triton kernels run
        # in its interpreter, set from the start as the triton image's ENV does: the runner's
        # hello imports triton before a solution's own os.environ.setdefault could choose it,
        # and problem 64's solutions then fail in the interpreter (RE, "Cannot call
        # @triton.jit'd outside of the scope of a kernel").
        base.RUNNER_ENV["CUDA_VISIBLE_DEVICES"] = ""
        base.RUNNER_ENV["TRITON_INTERPRET"] = "1"

    class TrackingBackend(local.LocalBackend):
        """The local backend, remembering its sandboxes so a hard stop can kill them."""

        def __init__(self) -> None:
            super().__init__(python)
            self.live: list[Any] = []

        def start(self, spec: Any) -> Any:
            box = super().start(spec)
            self.live = [b for b in self.live if b.proc.poll() is None] + [box]
            return box

        def kill_all(self) -> None:
            for box in self.live:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(box.proc.pid, signal.SIGKILL)

    return TrackingBackend()


def lift_address_limit(on: bool) -> None:
    from sandbox.host.backends import local

    local.resource = _NoAddressLimit() if on else resource  # type: ignore[assignment]


PASSED_VARS = (
    "LD_LIBRARY_PATH",
    "CUDA_HOME",
    "CUDA_PATH",
    "CC",
    "TRITON_PTXAS_PATH",
    "TRITON_LIBCUDA_PATH",
    "TRITON_CACHE_DIR",
)


def pass_environment() -> list[str]:
    """Give the runners the parent's CUDA/Triton variables (the local backend passes none)."""
    from sandbox.host.backends import base

    passed = [name for name in PASSED_VARS if os.environ.get(name)]
    for name in passed:
        base.RUNNER_ENV[name] = os.environ[name]
    return passed


def diagnose_cuda(python: str) -> str:
    """Why a runner-like process (the local backend's environment, no limits) has no CUDA."""
    from sandbox.host.backends import base

    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", **base.RUNNER_ENV}
    code = (
        "import torch; print('available', torch.cuda.is_available())\n"
        "try:\n import triton; print('triton', triton.__version__)\n"
        "except Exception as e: print('triton import:', type(e).__name__, e)\n"
        "torch.cuda.init()"
    )
    try:
        out = subprocess.run(
            [python, "-I", "-c", code],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{type(exc).__name__}: {exc}"
    text = " ".join((out.stdout + out.stderr).split())
    return f"rc {out.returncode}: {text[-600:]}"


def on_cuda(hello: dict[str, Any]) -> bool:
    return str(hello.get("device", "")).startswith("cuda")


def runner_hello(
    report: Report, backend: Any, gpu_id: str | None, label: str = ""
) -> dict[str, Any]:
    """``probe``, reported: the hello, or {} (and a FAIL line) when the runner did not start."""
    try:
        hello = probe(backend, gpu_id)
    except Exception as exc:  # noqa: BLE001 - a report line, whatever the reason
        report(f"FAIL runner probe{label}: {type(exc).__name__}: {exc}")
        return {}
    report(
        f"runner hello{label}: device {hello.get('device')}, torch {hello.get('torch')}, "
        f"triton {hello.get('triton')}, cuda {hello.get('cuda')}"
    )
    return hello


def probe(backend: Any, gpu_id: str | None) -> dict[str, Any]:
    """One runner's hello (what a judging's sandbox sees): device, torch, triton."""
    from sandbox.grader.session import Session, await_hello
    from sandbox.host.backends.base import SandboxSpec

    spec = SandboxSpec(memory_mib=2048, wall_time_s=180, gpu_id=gpu_id)
    with backend.start(spec) as box:
        hello, _ = await_hello(Session(box, 64))
    return hello


# ---------------------------------------------------------------- judging
def judge_once(item: Item, backend: Any, cuda: bool, timeout_s: float) -> dict[str, Any]:
    """One Submit judging of ``item``; a dict for the report (never raises)."""
    from sandbox.grader.contracts import Mode
    from sandbox.grader.entry import judge
    from sandbox.grader.kernels_source import inline_kernels
    from sandbox.grader.package import load_package

    run: dict[str, Any] = {"verdict": "", "message": "", "bench": None, "device": "?"}
    t0 = time.monotonic()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            package = load_package(item.problem)
            gpu_id = "0" if cuda and package.device == "gpu" else None  # engine.gpu_for's rule
            source = item.path.read_text(encoding="utf-8")
            if item.path == item.problem / "solution.py":  # trusted: its kernels imports inlined
                source = inline_kernels(source, filename=str(item.path))  # as sandbox/grader/check.py
            box["result"] = judge(
                package,
                source,
                mode=Mode.SUBMIT,
                backend=backend,
                gpu_id=gpu_id,
                labels={"device-check": item.label},
            )
            box["has_bench"] = bool(package.benchmark and package.benchmark.shapes)
        except BaseException as exc:  # noqa: BLE001 - reported as a FAIL line
            box["error"] = f"{type(exc).__name__}: {exc}"

    thread = threading.Thread(target=work, name=f"judge {item.label}", daemon=True)
    thread.start()
    thread.join(max(1.0, timeout_s))
    if thread.is_alive():
        backend.kill_all()
        thread.join(15)
        run.update(verdict="TIMEOUT", message=f"killed at the time bound after {timeout_s:.0f} s")
    elif "error" in box:
        run.update(verdict="ERROR", message=box["error"])
    if "result" in box and run["verdict"] != "TIMEOUT":
        result = box["result"]
        run["verdict"] = str(result.verdict)
        run["device"] = str(result.environment.get("device", "?"))
        message = result.message
        bad = next((t for t in result.tests if str(t.verdict) not in ("AC", "SK")), None)
        if bad is not None:
            message = (message + f" [{bad.name}: {bad.message}]").strip()
        run["message"] = " ".join(str(message).split())[:400]
        if result.benchmark is not None:
            run["bench"] = result.benchmark.to_json()
        run["peak"] = result.environment.get("peak")
        run["expect_bench"] = box.get("has_bench", False)
    run["seconds"] = time.monotonic() - t0
    return run
