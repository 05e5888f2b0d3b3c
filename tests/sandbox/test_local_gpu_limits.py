"""The local backend on a GPU host (issue 38, item 5): a runner given a GPU gets no RLIMIT_AS
(CUDA reserves tens of GiB of address space and dies before its hello under any useful cap);
its resident memory is watched instead and the runner killed, as out of memory, past the cap.
On CPU: the limits of the two specs, and the watch on a plain process that grows."""

from __future__ import annotations

import resource

import pytest

from sandbox.host.backends import local
from sandbox.host.backends.base import SandboxSpec
from sandbox.host.backends.local import LocalBackend, rlimits_for, rss_cap_bytes


def test_a_gpu_spec_gets_no_address_space_limit_but_a_resident_memory_cap() -> None:
    cpu, gpu = SandboxSpec(memory_mib=2048), SandboxSpec(memory_mib=2048, gpu_id="0")
    cpu_limits, gpu_limits = dict(rlimits_for(cpu)), dict(rlimits_for(gpu))
    assert cpu_limits[resource.RLIMIT_AS] == (2048 + local.ADDRESS_SPACE_HEADROOM_MIB) << 20
    assert resource.RLIMIT_AS not in gpu_limits
    # Everything else is the same on both.
    assert {k: v for k, v in cpu_limits.items() if k != resource.RLIMIT_AS} == gpu_limits
    assert gpu_limits[resource.RLIMIT_CORE] == 0
    assert rss_cap_bytes(cpu) is None
    assert rss_cap_bytes(gpu) == (2048 + local.ADDRESS_SPACE_HEADROOM_MIB) << 20


def test_a_gpu_runner_that_outgrows_its_memory_is_killed_as_out_of_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(local, "ADDRESS_SPACE_HEADROOM_MIB", 0)
    grow = "import time\nb = bytearray(160 << 20)\nb[::4096] = b'x' * len(b[::4096])\ntime.sleep(30)"
    box = LocalBackend(command=["-c", grow]).start(SandboxSpec(memory_mib=64, gpu_id="0",
                                                               wall_time_s=20))
    try:
        soft, hard = resource.prlimit(box.proc.pid, resource.RLIMIT_AS)  # type: ignore[attr-defined]
        assert (soft, hard) == (resource.RLIM_INFINITY, resource.RLIM_INFINITY)
        box.proc.wait(timeout=15)  # type: ignore[attr-defined]
    finally:
        ended = box.close()
    assert ended.oom_killed and ended.exit_code != 0


def test_a_cpu_runner_keeps_its_address_space_limit() -> None:
    box = LocalBackend(command=["-c", "import time; time.sleep(5)"]).start(
        SandboxSpec(memory_mib=256, wall_time_s=10))
    try:
        soft, _ = resource.prlimit(box.proc.pid, resource.RLIMIT_AS)  # type: ignore[attr-defined]
        assert soft == (256 + local.ADDRESS_SPACE_HEADROOM_MIB) << 20
    finally:
        assert not box.close().oom_killed
