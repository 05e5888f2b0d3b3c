"""The probe of the machine's limits (kernels/probe.py), shrunk to small sizes: its reply has
the shape sandbox/bench/peak.py reads (well under a second)."""

from __future__ import annotations

import pytest

from kernels import probe
from sandbox.bench.peak import from_probe


def test_it_reports_a_bandwidth_curve_and_a_flop_rate(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(probe, "_PROBE_CPU_SIZES", (1 << 10, 1 << 12))
    monkeypatch.setattr(probe, "_PROBE_BATCH_ELEMENTS", 1 << 12)
    monkeypatch.setattr(probe, "_PROBE_MATMUL_MAX_N", 256)
    reply = probe.machine_limits("cpu")
    curve = reply["memory_curve"]
    assert [ws for ws, _ in curve] == [8 << 10, 12 << 10, 32 << 10, 48 << 10]
    assert all(gbps > 0 for _, gbps in curve) and reply["gflops"] > 0
    peak = from_probe(reply, "cpu")
    assert peak.memory_gbps == curve[-1][1]
