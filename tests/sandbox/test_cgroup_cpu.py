"""Reading a container's CPU time from the cgroup file system, in each layout Docker uses
(sandbox/host/backends/cgroup_cpu.py); the real engine's is read in test_docker_backend.py."""

from __future__ import annotations

from pathlib import Path

from sandbox.host.backends.cgroup_cpu import CgroupCpu

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


def test_it_reads_the_containers_cpu_pressure_in_the_unified_or_v2_tree(tmp_path: Path) -> None:
    psi = "some avg10=1.00 avg60=0.50 avg300=0.10 total={}\nfull avg10=0 avg60=0 avg300=0 total=9\n"
    # a v1 host in hybrid mode: the unified hierarchy still holds one cgroup per container
    path = _write(tmp_path, f"unified/docker/{ID}/cpu.pressure", psi.format(1500))
    cpu = CgroupCpu(str(tmp_path), ID)
    assert cpu.stall_us() == 1500
    path.write_text(psi.format(2750))
    assert cpu.stall_us() == 2750  # found once, read again
    path.unlink()
    assert cpu.stall_us() is None  # the container is gone
    other = tmp_path / "v2"
    _write(other, f"system.slice/docker-{ID}.scope/cpu.pressure", psi.format(42))
    assert CgroupCpu(str(other), ID).stall_us() == 42


def test_it_knows_no_pressure_where_the_kernel_keeps_none_per_container(tmp_path: Path) -> None:
    _write(tmp_path, f"cpuacct/docker/{ID}/cpuacct.usage", "123\n")  # v1 only, no unified tree
    cpu = CgroupCpu(str(tmp_path), ID)
    assert cpu.usage_ns() == 123
    assert cpu.stall_us() is None
