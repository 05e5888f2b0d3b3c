"""The machine's limits and the speed of light: the published table, the probe's reply, the
cache per grader process, and the trust rule ``faster_than_light`` (no device needed: the GPU
paths run on canned replies)."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.bench.peak import (
    PROBE,
    Peak,
    PeakCache,
    best_of,
    from_probe,
    machine_peak,
    published_peak,
    speed_of_light,
    with_probe,
)
from sandbox.bench.trust import faster_than_light
from sandbox.grader.contracts import BenchmarkResult, Trust
from sandbox.grader.cost import CostModel
from sandbox.grader.kernels_source import baseline_file

CPU_REPLY = {
    "memory_curve": [[1 << 20, 100.0], [8 << 20, 60.0], [128 << 20, 15.0]],
    "gflops": 150.0,
}


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("cuda: NVIDIA H100 80GB HBM3", "H100"),
        ("cuda: NVIDIA H100 PCIe", "H100 PCIe"),
        ("cuda: NVIDIA H100 NVL", "H100 NVL"),
        ("cuda: NVIDIA H200", "H200"),
        ("cuda: NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"),
        ("cuda: NVIDIA A100-SXM4-40GB", "A100"),
        ("cuda: NVIDIA L4", "L4"),
        ("cuda: NVIDIA L40S", "L40S"),
        ("cuda: Tesla T4", "T4"),
    ],
)
def test_it_finds_a_devices_published_peaks_by_its_name(name: str, key: str) -> None:
    found = published_peak(name)
    assert found is not None and found[0] == key
    assert found[1] > 100 and found[2] > 1000


def test_an_unknown_device_has_no_published_peaks() -> None:
    assert published_peak("cuda: Some Future Accelerator") is None


def test_a_cpu_probe_gives_the_sustained_rate_and_the_curve() -> None:
    peak = from_probe(CPU_REPLY, "cpu", now=0.0)
    assert peak.memory_gbps == 15.0 and peak.gflops == 150.0
    assert peak.measured_at == "1970-01-01T00:00:00+00:00"
    data = peak.to_json()
    assert {"memory_gbps", "gflops", "measured_at"} <= set(data) and data["source"] == "measured"


def test_a_shapes_bandwidth_is_the_rate_of_the_largest_working_set_it_could_fit_in() -> None:
    peak = from_probe(CPU_REPLY, "cpu")
    assert peak.bandwidth_gbps(512) == 100.0  # below every probe: the best rate
    assert peak.bandwidth_gbps(4 << 20) == 100.0  # could sit in the 1 MiB probe's cache level
    assert peak.bandwidth_gbps(16 << 20) == 60.0
    assert peak.bandwidth_gbps(1 << 30) == 15.0


def test_a_gpu_probe_takes_the_published_roofs_and_shows_the_measured_copy() -> None:
    reply = {"memory_curve": [[1 << 29, 4100.0]], "gflops": 0.0}
    peak = from_probe(reply, "cuda: NVIDIA H200")
    data = peak.to_json()
    assert (data["memory_gbps"], data["gflops"], data["source"]) == (4800.0, 494700.0, "published")
    assert data["measured_copy_gbps"] == 4100.0 and data["device"] == "cuda: NVIDIA H200"
    unknown = from_probe(reply, "cuda: Some Future Accelerator")
    assert unknown.memory_gbps == 4100.0 and unknown.gflops == 0.0
    assert speed_of_light(CostModel("1e9", "1e9"), unknown) is None  # no compute roof: no bound


@pytest.mark.parametrize(
    "reply",
    [{}, {"memory_curve": []}, {"memory_curve": [[1, -2.0]], "gflops": 1.0}, {"memory_curve": [[1, 2.0]]}],
)
def test_a_malformed_probe_reply_is_refused(reply: dict[str, Any]) -> None:
    with pytest.raises((ValueError, TypeError)):
        from_probe(reply, "cpu")


def test_the_speed_of_light_is_the_larger_of_the_memory_and_compute_times() -> None:
    peak = Peak(10.0, 100.0, "now")  # 10 GB/s, 100 GFLOP/s
    memory = speed_of_light(CostModel("1e7", "1e6"), peak)
    assert memory is not None and memory.bound == "memory" and memory.sol_ms == pytest.approx(1.0)
    compute = speed_of_light(CostModel("1e6", "1e9"), peak)
    assert compute is not None and compute.bound == "compute"
    assert compute.sol_ms == pytest.approx(10.0)


def test_each_measurement_keeps_the_best_figures_seen() -> None:
    first = from_probe(CPU_REPLY, "cpu", now=0.0)
    busy = from_probe(
        {"memory_curve": [[1 << 20, 50.0], [128 << 20, 20.0]], "gflops": 80.0}, "cpu", now=60.0
    )
    kept = best_of(first, busy)
    assert kept.gflops == 150.0 and kept.memory_gbps == 20.0
    assert dict(kept.curve)[1 << 20] == 100.0 and kept.measured_at == busy.measured_at


class FakeProbeSession:
    """The baseline's session as far as the probe goes: a canned reply, calls counted."""

    def __init__(self, reply: dict[str, Any]) -> None:
        self.reply, self.calls = reply, 0

    def request(self, message: dict[str, Any], timeout_s: float, what: str = "", **values: Any) -> Any:
        assert message["op"] == "call" and message["fn"] == "probe"
        self.calls += 1
        return {"obs": "canned"}, b""

    def value(self, reply: dict[str, Any], blob: bytes, key: str) -> Any:
        return {"kind": "return", "value": self.reply}


def test_the_limits_are_measured_once_then_again_when_stale() -> None:
    session = FakeProbeSession(CPU_REPLY)
    cache = PeakCache(max_age_s=3600)
    first = machine_peak(session, "probe", "cpu", "local", cache)  # type: ignore[arg-type]
    again = machine_peak(session, "probe", "cpu", "local", cache)  # type: ignore[arg-type]
    assert session.calls == 1 and first == again and cache.cached(("local", "cpu")) == first
    stale = PeakCache(max_age_s=0)
    machine_peak(session, "probe", "cpu", "local", stale)  # type: ignore[arg-type]
    machine_peak(session, "probe", "cpu", "local", stale)  # type: ignore[arg-type]
    assert session.calls == 3


def test_the_probe_rides_with_the_baselines_from_this_repositorys_kernels() -> None:
    source, names = with_probe(baseline_file(["kernels.attention:apply_rope"]))
    namespace: dict[str, Any] = {}
    exec(compile(source, "<baselines>", "exec"), namespace)  # trusted source, as the sandbox does
    assert callable(namespace[names[PROBE]]) and callable(namespace[names["kernels.attention:apply_rope"]])


def test_a_time_below_the_speed_of_light_is_rejected_by_its_named_rule() -> None:
    assert faster_than_light(2e6, 1e6) is None
    finding = faster_than_light(0.5e6, 1e6)
    assert finding is not None and finding.rule == "faster_than_light"
    assert finding.trust == Trust.REJECTED and "speed of light" in finding.message


def test_the_shapes_survive_the_results_json() -> None:
    entry = {"name": "s", "submission_ms": 2.0, "baseline_ms": 3.0, "speedup": 1.5,
             "sol_ms": 0.5, "sol_fraction": 0.25, "bound": "memory"}
    result = BenchmarkResult(1.5, 2.0, 3.0, shapes=[entry])
    assert result.to_json()["shapes"] == [entry]
    assert BenchmarkResult.from_json(result.to_json()) == result


def test_the_limits_are_measured_again_before_a_time_is_rejected_as_faster_than_light() -> None:
    from sandbox.bench import confirmed_light
    from sandbox.grader.package import BenchShape

    shape = BenchShape("s", "f", [], cost=CostModel("1e7", "0"))
    busy = speed_of_light(shape.cost, Peak(5.0, 100.0, "then"))  # type: ignore[arg-type]
    assert busy is not None and busy.sol_ms == pytest.approx(2.0)
    calls: list[int] = []

    def remeasure() -> Peak:
        calls.append(1)
        return Peak(20.0, 100.0, "now")

    assert confirmed_light(shape, busy, 3.0, remeasure) is busy and not calls  # not below it
    again = confirmed_light(shape, busy, 1.0, remeasure)
    assert calls == [1] and again.sol_ms == pytest.approx(0.5)  # 1 ms is honest after all
