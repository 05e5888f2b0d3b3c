"""The quiet-GPU rule (issue 38, item 3) with a fake NVML at its boundary: another process,
low clocks, a throttle reason and a busy GPU each make the timing wait and then mark the result;
a quiet GPU is recorded (name, UUID, driver, clocks, reasons) and not marked; no pynvml: said."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from sandbox.bench import gpu_quiet
from sandbox.bench.gpu_quiet import GpuQuiet, wait_quiet


class FakeNvml:
    """The few pynvml calls the rule makes, answering from attributes a test sets."""

    def __init__(self, **state: Any) -> None:
        self.pids: list[int] = state.get("pids", [])
        self.sm, self.app = state.get("sm", 1980), state.get("app", 1980)
        self.util = state.get("util", 0)
        self.reasons = state.get("reasons", 0x1)  # idle
        self.reads = 0
        self.settle_after = state.get("settle_after")  # quiet from this reading on

    def nvmlDeviceGetHandleByIndex(self, index: int) -> str:
        return f"h{index}"

    def nvmlDeviceGetHandleByUUID(self, uuid: str) -> str:
        raise RuntimeError("not found")

    def nvmlDeviceGetName(self, h: str) -> bytes:
        return b"NVIDIA H200"

    def nvmlDeviceGetUUID(self, h: str) -> str:
        return "GPU-1234"

    def nvmlSystemGetDriverVersion(self) -> str:
        return "570.86"

    def _settled(self) -> bool:
        return self.settle_after is not None and self.reads >= self.settle_after

    def nvmlDeviceGetClockInfo(self, h: str, kind: int) -> int:
        return 2619 if kind == gpu_quiet.NVML_CLOCK_MEM else (self.app if self._settled() else self.sm)

    def nvmlDeviceGetApplicationsClock(self, h: str, kind: int) -> int:
        return self.app

    def nvmlDeviceGetUtilizationRates(self, h: str) -> Any:
        return SimpleNamespace(gpu=self.util, memory=0)

    def nvmlDeviceGetComputeRunningProcesses(self, h: str) -> list[Any]:
        self.reads += 1
        return [] if self._settled() else [SimpleNamespace(pid=p) for p in self.pids]

    def nvmlDeviceGetCurrentClocksEventReasons(self, h: str) -> int:
        return 0x1 if self._settled() else self.reasons


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, s: float) -> None:
        self.now += s


def _wait(nvml: FakeNvml, **kw: Any) -> gpu_quiet.Quiet:
    clock = Clock()
    return wait_quiet(nvml, "0", max_wait_s=2.0, poll_s=0.5, sleep=clock.sleep, clock=clock, **kw)


def test_a_quiet_gpu_is_recorded_and_not_marked() -> None:
    found = _wait(FakeNvml())
    assert found.contended == []
    assert found.info["gpu_quiet"] == "yes" and found.info["gpu_waited_s"] == "0.000"
    assert found.info["gpu_name"] == "NVIDIA H200" and found.info["gpu_uuid"] == "GPU-1234"
    assert found.info["gpu_driver"] == "570.86" and found.info["gpu_sm_clock_mhz"] == "1980"
    assert found.info["gpu_mem_clock_mhz"] == "2619"
    assert found.info["gpu_throttle_reasons"] == "idle"


def test_another_process_low_clocks_a_throttle_reason_and_a_busy_gpu_each_mark_it() -> None:
    cases = {
        "other process": FakeNvml(pids=[4242]),
        "SM clock 1200 MHz below": FakeNvml(sm=1200, reasons=0),
        "clocks throttled: hardware thermal slowdown": FakeNvml(reasons=0x40),
        "clocks throttled: software power cap": FakeNvml(reasons=0x4),
        "98 % busy": FakeNvml(util=98),
    }
    for expected, nvml in cases.items():
        found = _wait(nvml)
        assert found.contended and expected in "; ".join(found.contended), expected
        assert found.info["gpu_quiet"].startswith("no: ")
        assert float(found.info["gpu_waited_s"]) >= 2.0  # it waited, bounded
    # A low clock while idle is the idle clock, not a slow one.
    assert _wait(FakeNvml(sm=345, reasons=0x1)).contended == []


def test_the_timing_waits_until_the_gpu_is_quiet() -> None:
    found = _wait(FakeNvml(pids=[4242], reasons=0x40, settle_after=3))
    assert found.contended == [] and found.info["gpu_quiet"] == "yes"
    assert found.info["gpu_waited_s"] == "1.000"  # two polls of 0.5 s


def test_the_judgings_own_sandboxes_are_not_other_processes() -> None:
    assert _wait(FakeNvml(pids=[10, 11]), own_processes=2).contended == []
    assert _wait(FakeNvml(pids=[10, 11]), own_pids=frozenset({10, 11})).contended == []
    assert _wait(FakeNvml(pids=[10, 11, 12]), own_processes=2).contended


def test_the_engine_hook_marks_the_result_beside_the_cpu_rules() -> None:
    hook = GpuQuiet("0", nvml_loader=lambda: (FakeNvml(reasons=0x8), "read"), own_processes=0)
    hook.found = _wait(FakeNvml(reasons=0x8))  # as before() finds it, without its real wait
    environment: dict[str, Any] = {"timing_contended": "yes: no timing lock on CPUs 2-3"}
    hook.mark(environment)
    assert environment["timing_contended"] == (
        "yes: no timing lock on CPUs 2-3; clocks throttled: hardware slowdown")
    assert environment["gpu_uuid"] == "GPU-1234"
    cpu_only: dict[str, Any] = {"timing_contended": "no"}
    GpuQuiet(None).before()
    GpuQuiet(None).mark(cpu_only)
    assert cpu_only == {"timing_contended": "no"}


def test_without_pynvml_or_a_device_nothing_is_read_and_it_says_why() -> None:
    hook = GpuQuiet("0")  # pynvml is not installed here
    hook.before()
    environment: dict[str, Any] = {}
    hook.mark(environment)
    assert environment["gpu_nvml"].startswith("not read: ")
    found = wait_quiet(FakeNvml(), "GPU-unknown")
    assert found.contended == [] and "no device" in found.info["gpu_nvml"]


def test_the_hook_runs_after_the_cpu_rules() -> None:
    order: list[str] = []
    hook = GpuQuiet("0", nvml_loader=lambda: (None, "not read: test"))
    original = hook.before

    def gpu() -> None:
        order.append("gpu")
        original()

    hook.before = gpu  # type: ignore[method-assign]
    hook.following(lambda: order.append("cpu"))()
    assert order == ["cpu", "gpu"] and hook.found is not None
    assert hook.found.info == {"gpu_nvml": "not read: test"}
