"""The machine's limits where the judging runs, and the speed of light of a benchmark shape.

CPU: measured by the trusted probe (kernels/probe.py) in the baseline's own sandbox (same
image, limits and CPU set as the student's), once per grader process and again when older
than ``PEAK_MAX_AGE_S``. Every measurement is a lower bound of what the machine can do (a
busy moment only slows it), so each figure kept is the best seen in this process.
GPU: the published peaks of the device, from :data:`PUBLISHED` keyed by its name, beside the
copy bandwidth measured there (shown, not used for the bound: the published figure is the
roof no kernel passes).

``environment.peak`` of a result: ``{"memory_gbps", "gflops", "measured_at"}`` plus
``memory_curve`` (``[[working set bytes, GB/s], ...]``), ``source`` ("measured" or
"published") and, on a GPU, ``device`` and ``measured_copy_gbps``. ``memory_gbps`` is the
sustainable rate (the probe's largest working set, STREAM's definition) or the published one.

Speed of light of a shape: ``sol_ms = max(bytes / bandwidth, flops / peak)``, the bandwidth
being the measured rate at the largest probed working set that the shape's bytes could fit
in (its inputs were written just before the call: a small shape's data sits in cache, and
the DRAM rate would be beaten by honest code).
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sandbox.grader.contracts import Verdict
from sandbox.grader.cost import CostModel
from sandbox.runner import protocol

if TYPE_CHECKING:
    from sandbox.grader.session import Session

PROBE = "kernels.probe:machine_limits"  # loaded with the baselines into their sandbox
PROBE_NAME = "judge_probe_machine_limits"  # its name there
PEAK_MAX_AGE_S = 3600.0  # a measurement older than this is taken again
PROBE_TIMEOUT_S = 60.0

# Published peaks in GB/s and GFLOP/s: memory bandwidth, and the highest dense rate on float32
# inputs (TF32 tensor cores where the device has them, without sparsity; FP32 elsewhere).
# Triton's ``tl.dot`` takes float32 inputs through TF32 by default, so an honest float32
# kernel may pass the plain FP32 rate, and the speed of light must be a time no honest kernel
# beats. Matched in this order as a case-insensitive substring of the device name: the more
# specific first.
PUBLISHED: tuple[tuple[str, float, float], ...] = (
    ("GH200", 4000.0, 494_700.0),
    ("H200", 4800.0, 494_700.0),
    ("H100 NVL", 3900.0, 417_500.0),
    ("H100 PCIe", 2000.0, 378_000.0),
    ("H100", 3350.0, 494_700.0),  # SXM5 (the name says "H100 80GB HBM3")
    ("A100-SXM4-80GB", 2039.0, 156_000.0),
    ("A100 80GB PCIe", 1935.0, 156_000.0),
    ("A100", 1555.0, 156_000.0),  # 40 GB, SXM4 or PCIe
    ("L40S", 864.0, 183_000.0),
    ("L40", 864.0, 90_500.0),
    ("L4", 300.0, 60_000.0),
    ("A10G", 600.0, 70_000.0),  # vendor figures vary: the higher one (a roof must not be low)
    ("A10", 600.0, 62_500.0),
    ("T4", 320.0, 8_100.0),  # no TF32: FP32
    ("V100", 900.0, 15_700.0),  # no TF32: FP32
    ("RTX 4090", 1008.0, 82_600.0),
)


# L2 cache of each device, MiB (vendor figures; the H200's as torch reported it on the lent
# one: 60), keyed as PUBLISHED: a GPU benchmark shape must move several times this
# (sandbox/bench/shape_rule.py), or its data sits in cache.
L2_MIB: dict[str, float] = {
    "GH200": 60, "H200": 60, "H100 NVL": 50, "H100 PCIe": 50, "H100": 50,
    "A100-SXM4-80GB": 40, "A100 80GB PCIe": 40, "A100": 40, "L40S": 96, "L40": 96, "L4": 48,
    "A10G": 6, "A10": 6, "T4": 4, "V100": 6, "RTX 4090": 72,
}


def with_probe(baseline: tuple[str, dict[str, str]]) -> tuple[str, dict[str, str]]:
    """The baselines' file and names (sandbox/problem.py, ``baseline_file``) with the probe
    appended, always from this repository's kernels (a judging may read its baselines from
    another kernels root). kernels/probe.py has no ``from __future__`` line, so its inlined
    source may follow another file's."""
    from sandbox.grader.kernels_source import inline_kernels

    source, names = baseline
    probe = inline_kernels(f"from kernels.probe import machine_limits as {PROBE_NAME}\n", None, "<probe>")
    return f"{source}\n\n# --- the probe of the machine's limits ---\n{probe}", {**names, PROBE: PROBE_NAME}


def published_peak(device_name: str) -> tuple[str, float, float] | None:
    """(the table's key, GB/s, GFLOP/s) for a device name ("cuda: NVIDIA H100 80GB HBM3"),
    or None for a device not in the table."""
    name = device_name.lower()
    for key, gbps, gflops in PUBLISHED:
        if key.lower() in name:
            return key, gbps, gflops
    return None


@dataclass(frozen=True)
class Peak:
    """A machine's limits: ``memory_gbps`` (sustainable), ``gflops``, the bandwidth by working
    set (``curve``, bytes and GB/s, sorted), when measured (ISO 8601, UTC)."""

    memory_gbps: float
    gflops: float
    measured_at: str
    curve: tuple[tuple[float, float], ...] = ()
    source: str = "measured"
    extra: dict[str, Any] = field(default_factory=dict)

    def bandwidth_gbps(self, moved_bytes: float) -> float:
        """The roof for a shape moving ``moved_bytes``: the best rate at or beyond the largest
        probed working set not above it (all points when it is below every one)."""
        if not self.curve:
            return self.memory_gbps
        fits = [ws for ws, _ in self.curve if ws <= moved_bytes]
        start = max(fits) if fits else 0.0
        return max([gbps for ws, gbps in self.curve if ws >= start] + [self.memory_gbps])

    def to_json(self) -> dict[str, Any]:
        return {
            "memory_gbps": round(self.memory_gbps, 3),
            "gflops": round(self.gflops, 3),
            "measured_at": self.measured_at,
            "memory_curve": [[int(ws), round(gbps, 3)] for ws, gbps in self.curve],
            "source": self.source,
            **self.extra,
        }


@dataclass(frozen=True)
class SpeedOfLight:
    sol_ms: float
    bound: str  # "memory" or "compute"
    bandwidth_gbps: float  # the roofs this shape was weighed against
    gflops: float


def speed_of_light(cost: CostModel, peak: Peak) -> SpeedOfLight | None:
    """The shape's speed of light, or None when the peak cannot bound it (a zero figure)."""
    bandwidth = peak.bandwidth_gbps(cost.bytes)
    if bandwidth <= 0 or peak.gflops <= 0:
        return None
    memory_ms = cost.bytes / (bandwidth * 1e9) * 1e3
    compute_ms = cost.flops / (peak.gflops * 1e9) * 1e3
    bound = "compute" if compute_ms > memory_ms else "memory"
    return SpeedOfLight(max(memory_ms, compute_ms), bound, bandwidth, peak.gflops)


def from_probe(reply: dict[str, Any], device_name: str, now: float | None = None) -> Peak:
    """A Peak from the probe's reply (``machine_limits``); on a GPU the published table gives
    the roofs and the measured copy rides along. ValueError for a malformed reply."""
    raw = reply.get("memory_curve")
    if not isinstance(raw, list) or not raw:
        raise ValueError("the probe returned no memory curve")
    curve = tuple(sorted((float(ws), float(gbps)) for ws, gbps in raw))
    if any(not (ws > 0 and gbps > 0) for ws, gbps in curve):
        raise ValueError("the probe returned a non-positive rate")
    stamp = datetime.fromtimestamp(now if now is not None else time.time(), UTC)
    measured_at = stamp.isoformat(timespec="seconds")
    if device_name.startswith("cuda"):
        copy_gbps = max(gbps for _, gbps in curve)
        table = published_peak(device_name)
        extra = {"device": device_name, "measured_copy_gbps": round(copy_gbps, 3)}
        if table is None:  # not in the table: the measured copy only, no compute roof
            return Peak(copy_gbps, 0.0, measured_at, (), "measured", extra)
        key, gbps, gflops = table
        return Peak(gbps, gflops, measured_at, (), "published", {**extra, "published_as": key})
    gflops = float(reply.get("gflops", 0.0))
    if not gflops > 0:
        raise ValueError("the probe returned no flop rate")
    return Peak(curve[-1][1], gflops, measured_at, curve)


def best_of(old: Peak | None, new: Peak) -> Peak:
    """Both are lower bounds of the machine's limits: keep the better figure of each, with
    the new time stamp."""
    if old is None or old.source != new.source or old.extra.get("device") != new.extra.get("device"):
        return new
    points = dict(old.curve)
    for ws, gbps in new.curve:
        points[ws] = max(points.get(ws, 0.0), gbps)
    curve = tuple(sorted(points.items()))
    memory = curve[-1][1] if curve else max(old.memory_gbps, new.memory_gbps)
    return Peak(memory, max(old.gflops, new.gflops), new.measured_at, curve, new.source, new.extra)


class PeakCache:
    """The limits measured in this process, per (backend, device), with their age."""

    def __init__(self, max_age_s: float = PEAK_MAX_AGE_S) -> None:
        self.max_age_s = max_age_s
        self._lock = threading.Lock()
        self._peaks: dict[tuple[str, str], tuple[float, Peak]] = {}

    def cached(self, key: tuple[str, str]) -> Peak | None:
        """The last figures for ``key``, fresh or stale (None when never measured)."""
        with self._lock:
            found = self._peaks.get(key)
        return found[1] if found else None

    def fresh(self, key: tuple[str, str]) -> bool:
        with self._lock:
            found = self._peaks.get(key)
        return found is not None and time.monotonic() - found[0] < self.max_age_s

    def store(self, key: tuple[str, str], peak: Peak) -> Peak:
        with self._lock:
            old = self._peaks.get(key)
            kept = best_of(old[1] if old else None, peak)
            self._peaks[key] = (time.monotonic(), kept)
        return kept

    def clear(self) -> None:
        with self._lock:
            self._peaks.clear()


CACHE = PeakCache()


def measure(session: Session, probe_fn: str, device: str) -> dict[str, Any]:
    """Call the probe in the baseline's sandbox; its reply, or a Fault (IE) from the session."""
    from sandbox.grader.session import Fault

    reply, blob = session.request(
        protocol.call(probe_fn, device),
        PROBE_TIMEOUT_S,
        "the measurement of the machine's limits",
        args=["cuda" if device.startswith("cuda") else "cpu"],
        kwargs={},
    )
    observation = session.value(reply, blob, "obs")
    if not isinstance(observation, dict) or observation.get("kind") != "return":
        raise Fault(Verdict.IE, f"the probe of the machine's limits failed: {str(observation)[:300]}")
    value = observation.get("value")
    if not isinstance(value, dict):
        raise Fault(Verdict.IE, "the probe of the machine's limits returned no figures")
    return value


def machine_peak(
    session: Session,
    probe_fn: str,
    device_name: str,
    backend: str,
    cache: PeakCache = CACHE,
    *,
    force: bool = False,
) -> Peak:
    """The limits for this backend and device: cached when fresh (and not ``force``), else
    measured now (in the baseline's sandbox, ``session``) and kept with the best figures seen
    before."""
    key = (backend, device_name)
    found = cache.cached(key)
    if found is not None and cache.fresh(key) and not force:
        return found
    reply = measure(session, probe_fn, "cuda" if device_name.startswith("cuda") else "cpu")
    return cache.store(key, from_probe(reply, device_name))
