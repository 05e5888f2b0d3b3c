"""A quiet GPU before a timing: the device as NVML reads it (issue 38, item 3).

Before a GPU judging's timed phase the worker reads its GPU: other processes on it, its
utilization, an SM clock below its application clock while not idle, and the throttle
reasons that slow a kernel (power cap, thermal, hardware slowdown, power brake). While any
holds, the timing waits (polled, at most ``max_wait_s``); if it still holds, the result is
marked as the CPU quiet rules mark one (``environment["timing_contended"] = "yes: ..."``).
Every GPU result records the device's name, UUID, driver, SM and memory clocks and throttle
reasons in ``environment`` (keys ``gpu_*``).

NVML comes from ``pynvml`` (the maintained nvidia-ml-py package), imported lazily: where it is
not installed, or NVML does not start (no driver), nothing is read and ``gpu_nvml`` says why.
Everything here takes the NVML module as a parameter, so tests pass a fake one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

NVML_CLOCK_SM, NVML_CLOCK_MEM = 1, 2
# Throttle ("clocks event") reasons, NVML's bit values: the ones that slow a kernel.
SLOWING_REASONS = {
    0x4: "software power cap",
    0x8: "hardware slowdown",
    0x20: "software thermal slowdown",
    0x40: "hardware thermal slowdown",
    0x80: "power brake",
}
OTHER_REASONS = {0x1: "idle", 0x2: "applications clocks setting", 0x10: "sync boost",
                 0x100: "display clock setting"}
IDLE = 0x1
BUSY_UTILIZATION_PCT = 5  # another tenant's kernels: the GPU busy before ours start
LOW_CLOCK_SHARE = 0.9  # an SM clock below 90 % of its application clock (not idle)
MAX_WAIT_S = 10.0
POLL_S = 0.5


def load_nvml() -> tuple[Any | None, str]:
    """The ``pynvml`` module, initialised, or None and why not (absent-safe)."""
    try:
        import pynvml  # type: ignore[import-not-found]  # noqa: PLC0415
    except ImportError:
        return None, "not read: pynvml (nvidia-ml-py) is not installed"
    try:
        pynvml.nvmlInit()
    except Exception as exc:  # noqa: BLE001  (no driver, no device: time without reading)
        return None, f"not read: NVML did not start: {exc}"
    return pynvml, "read"


@dataclass
class GpuState:
    name: str = ""
    uuid: str = ""
    driver: str = ""
    sm_clock_mhz: int | None = None
    mem_clock_mhz: int | None = None
    sm_app_clock_mhz: int | None = None
    utilization_pct: int | None = None
    pids: list[int] = field(default_factory=list)
    reasons: int = 0

    def reason_names(self) -> list[str]:
        known = {**SLOWING_REASONS, **OTHER_REASONS}
        return [name for bit, name in sorted(known.items()) if self.reasons & bit]

    def environment(self) -> dict[str, str]:
        def text(value: int | None) -> str:
            return "" if value is None else str(value)

        return {
            "gpu_name": self.name, "gpu_uuid": self.uuid, "gpu_driver": self.driver,
            "gpu_sm_clock_mhz": text(self.sm_clock_mhz),
            "gpu_mem_clock_mhz": text(self.mem_clock_mhz),
            "gpu_sm_app_clock_mhz": text(self.sm_app_clock_mhz),
            "gpu_utilization_pct": text(self.utilization_pct),
            "gpu_throttle_reasons": ", ".join(self.reason_names()) or "none",
        }


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _try(call: Callable[[], Any]) -> Any:
    try:
        return call()
    except Exception:  # noqa: BLE001  (a query this device or driver does not answer)
        return None


def handle_of(nvml: Any, gpu_id: str) -> Any:
    """NVML's handle of ``gpu_id`` (an index as "0", or a UUID as "GPU-...")."""
    if gpu_id.isdigit():
        return nvml.nvmlDeviceGetHandleByIndex(int(gpu_id))
    return nvml.nvmlDeviceGetHandleByUUID(gpu_id)


def read_state(nvml: Any, handle: Any) -> GpuState:
    """What NVML says of the device now; a query it does not answer stays empty."""
    reasons_of = (getattr(nvml, "nvmlDeviceGetCurrentClocksEventReasons", None)
                  or getattr(nvml, "nvmlDeviceGetCurrentClocksThrottleReasons", None))
    util = _try(lambda: nvml.nvmlDeviceGetUtilizationRates(handle))
    procs = _try(lambda: nvml.nvmlDeviceGetComputeRunningProcesses(handle)) or []
    reasons = _try(lambda: reasons_of(handle)) if reasons_of else None
    return GpuState(
        name=_text(_try(lambda: nvml.nvmlDeviceGetName(handle)) or ""),
        uuid=_text(_try(lambda: nvml.nvmlDeviceGetUUID(handle)) or ""),
        driver=_text(_try(nvml.nvmlSystemGetDriverVersion) or ""),
        sm_clock_mhz=_try(lambda: nvml.nvmlDeviceGetClockInfo(handle, NVML_CLOCK_SM)),
        mem_clock_mhz=_try(lambda: nvml.nvmlDeviceGetClockInfo(handle, NVML_CLOCK_MEM)),
        sm_app_clock_mhz=_try(lambda: nvml.nvmlDeviceGetApplicationsClock(handle, NVML_CLOCK_SM)),
        utilization_pct=getattr(util, "gpu", None),
        pids=[int(p.pid) for p in procs],
        reasons=int(reasons or 0),
    )


def not_quiet(state: GpuState, own_pids: frozenset[int] = frozenset(),
              own_processes: int = 0) -> list[str]:
    """Why ``state`` is no device to time on (empty: quiet). ``own_pids``: this judging's
    processes; where they are unknown (a container's pids), ``own_processes`` of them are."""
    why: list[str] = []
    others = [p for p in state.pids if p not in own_pids]
    if not own_pids:
        others = others[own_processes:]
    if others:
        why.append(f"{len(others)} other process(es) on the GPU (pid {', '.join(map(str, others))})")
    if state.utilization_pct is not None and state.utilization_pct > BUSY_UTILIZATION_PCT:
        why.append(f"the GPU was {state.utilization_pct} % busy")
    slowing = [name for bit, name in sorted(SLOWING_REASONS.items()) if state.reasons & bit]
    if slowing:
        why.append("clocks throttled: " + ", ".join(slowing))
    if (state.sm_clock_mhz and state.sm_app_clock_mhz and not state.reasons & IDLE
            and state.sm_clock_mhz < LOW_CLOCK_SHARE * state.sm_app_clock_mhz):
        why.append(f"SM clock {state.sm_clock_mhz} MHz below its application clock "
                   f"{state.sm_app_clock_mhz} MHz")
    return why


@dataclass
class Quiet:
    """What ``wait_quiet`` found: the environment to record and why the GPU was not quiet."""

    info: dict[str, str]
    contended: list[str]


def wait_quiet(nvml: Any, gpu_id: str, own_pids: frozenset[int] = frozenset(),
               own_processes: int = 0, max_wait_s: float = MAX_WAIT_S, poll_s: float = POLL_S,
               sleep: Callable[[float], None] = time.sleep,
               clock: Callable[[], float] = time.monotonic) -> Quiet:
    """Read the GPU until it is quiet or ``max_wait_s`` passed; the last reading is recorded."""
    try:
        handle = handle_of(nvml, gpu_id)
    except Exception as exc:  # noqa: BLE001  (a GPU NVML does not know: time, and say so)
        return Quiet({"gpu_nvml": f"not read: no device {gpu_id!r}: {exc}"}, [])
    start = clock()
    while True:
        state = read_state(nvml, handle)
        why = not_quiet(state, own_pids, own_processes)
        waited = clock() - start
        if not why or waited >= max_wait_s:
            break
        sleep(poll_s)
    info = {"gpu_nvml": "read", **state.environment(), "gpu_waited_s": f"{waited:.3f}",
            "gpu_quiet": "no: " + "; ".join(why) if why else "yes"}
    return Quiet(info, why)


class GpuQuiet:
    """The engine's hook: ``before()`` before a GPU timing, ``mark(environment)`` after."""

    def __init__(self, gpu_id: str | None, nvml_loader: Callable[[], tuple[Any, str]] = load_nvml,
                 own_processes: int = 2) -> None:
        self.gpu_id = gpu_id
        self.loader = nvml_loader
        self.own_processes = own_processes  # the student's and the baseline's sandboxes
        self.found: Quiet | None = None

    def before(self) -> None:
        if self.gpu_id is None:
            return
        nvml, why = self.loader()
        if nvml is None:
            self.found = Quiet({"gpu_nvml": why}, [])
            return
        self.found = wait_quiet(nvml, self.gpu_id, own_processes=self.own_processes)

    def following(self, first: Callable[[], None]) -> Callable[[], None]:
        """A before-timing hook that runs ``first`` (the CPU rules), then ``before``."""
        def both() -> None:
            first()
            self.before()

        return both

    def mark(self, environment: dict[str, Any]) -> None:
        """Record the device in ``environment``; a GPU that stayed busy marks the timing."""
        if self.found is None:
            return
        environment.update(self.found.info)
        if self.found.contended:
            earlier = str(environment.get("timing_contended", "no"))
            reasons = ([earlier.removeprefix("yes: ")] if earlier.startswith("yes") else [])
            environment["timing_contended"] = "yes: " + "; ".join(reasons + self.found.contended)
