"""Reading a container's CPU time from the cgroup file system, in each layout Docker uses
(sandbox/backends/cgroup_cpu.py); the real engine's is read in test_docker_backend.py."""

from __future__ import annotations

from pathlib import Path

from sandbox.backends.cgroup_cpu import CgroupCpu

ID = "ab" * 32


def _write(root: Path, relative: str, text: str) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True)
    path.write_text(text)
    return path


def test_it_reads_cgroup_v1_cpuacct_in_ns(tmp_path: Path) -> None:
    path = _write(tmp_path, f"cpuacct/docker/{ID}/cpuacct.usage", "123456789\n")
    cpu = CgroupCpu(str(tmp_path), ID)
    assert cpu.usage_ns() == 123456789
    path.write_text("123999999\n")
    assert cpu.usage_ns() == 123999999


def test_it_reads_the_systemd_drivers_scope_and_shared_controllers(tmp_path: Path) -> None:
    _write(tmp_path, f"cpu,cpuacct/system.slice/docker-{ID}.scope/cpuacct.usage", "42")
    assert CgroupCpu(str(tmp_path), ID).usage_ns() == 42


def test_it_reads_cgroup_v2_cpu_stat_in_us(tmp_path: Path) -> None:
    _write(
        tmp_path,
        f"system.slice/docker-{ID}.scope/cpu.stat",
        "usage_usec 2500\nuser_usec 2000\nsystem_usec 500\n",
    )
    assert CgroupCpu(str(tmp_path), ID).usage_ns() == 2_500_000


def test_it_knows_nothing_without_a_file_or_once_the_container_is_gone(tmp_path: Path) -> None:
    assert CgroupCpu(str(tmp_path), ID).usage_ns() is None
    assert CgroupCpu(str(tmp_path / "missing"), ID).usage_ns() is None
    path = _write(tmp_path, f"docker/{ID}/cpu.stat", "usage_usec 7\n")
    cpu = CgroupCpu(str(tmp_path), ID)
    assert cpu.usage_ns() == 7000
    path.unlink()
    assert cpu.usage_ns() is None
    _write(tmp_path, f"cpuacct/docker/{ID}/cpuacct.usage", "not a number")
    assert CgroupCpu(str(tmp_path), ID).usage_ns() is None
