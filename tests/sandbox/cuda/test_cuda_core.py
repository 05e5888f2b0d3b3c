"""The emulator's core (tj_core.cpp) built once outside the sandbox and linked by every compile:
the image's, built with it, or the host's for the local backend; never a file the sandbox's own
code could have written (sandbox/cuda/build.py: install_core, shared_core)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sandbox.cuda import build

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed here")

SOURCE = ('__global__ void k(float* out, int n) { int i = threadIdx.x; if (i < n) out[i] = 2; }\n'
          'extern "C" void solve(float* out, int n) { k<<<1, 32>>>(out, n); }\n')


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of shared cores with this compiler's installed."""
    folder = tmp_path_factory.mktemp("cores")
    assert build.install_core(folder) is not None
    return folder


def commands(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The compiler command lines compile() runs from now on (they still run)."""
    seen: list[list[str]] = []
    real = build._run

    def spy(cmd: list[str], *args: object, **kwargs: object) -> tuple[int | None, str]:
        seen.append(list(cmd))
        return real(cmd, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(build, "_run", spy)
    return seen


def test_the_core_is_installed_once_read_only_under_its_key(installed: Path) -> None:
    tool = shutil.which("g++") or "g++"
    key = build.core_key(tool)
    assert key is not None and [p.name for p in installed.iterdir()] == [key]
    core = installed / key / "tj_core.o"
    assert core.stat().st_mode & 0o777 == 0o444 and core.parent.stat().st_mode & 0o777 == 0o555
    before = core.stat().st_mtime_ns
    assert build.install_core(installed) == core and core.stat().st_mtime_ns == before
    assert build.shared_core(tool, [installed]) == core


def test_a_compile_links_the_shared_core_the_host_names(
    installed: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(build.CORE_DIR_ENV, str(installed))
    seen = commands(monkeypatch)
    assert build.compile(SOURCE, tmp_path).is_file()
    (cmd,) = seen
    assert "-DTJ_CUDA_PREBUILT" in cmd
    assert any(arg.startswith(str(installed)) and arg.endswith("/tj_core.o") for arg in cmd)


def test_a_writable_core_is_never_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A core the sandbox could have written (write bits on it or its folder) is not linked:
    the submission compiles the emulator's functions itself."""
    tool = shutil.which("g++") or "g++"
    key = build.core_key(tool)
    assert key is not None
    planted = tmp_path / "cores" / key / "tj_core.o"
    planted.parent.mkdir(parents=True)
    planted.write_bytes(b"not an object a compiler made")
    monkeypatch.setenv(build.CORE_DIR_ENV, str(tmp_path / "cores"))
    for file_mode, folder_mode in ((0o644, 0o555), (0o444, 0o755)):
        planted.chmod(file_mode)
        planted.parent.chmod(folder_mode)
        assert build.shared_core(tool) is None
    seen = commands(monkeypatch)
    assert build.compile(SOURCE, tmp_path / "w").is_file()
    assert "-DTJ_CUDA_PREBUILT" not in seen[0] and str(planted) not in seen[0]
    planted.parent.chmod(0o755)


def test_a_link_error_does_not_name_the_hosts_core_folder(installed: Path) -> None:
    core = next(installed.glob("*/tj_core.o"))
    log = f"{core}: in function `tj::launch': multiple definition of `tj::x'"
    cleaned = build._clean_log(log, Path("/nowhere"), core)
    assert str(installed) not in cleaned and cleaned.startswith("tj_core.o: in function")


def test_the_local_backend_gives_a_cuda_sandbox_the_hosts_core(
    installed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """host_core_env: what LocalSandbox adds to a sanitizer sandbox's environment."""
    monkeypatch.setenv(build.CORE_DIR_ENV, str(installed))
    assert build.host_core_env() == {build.CORE_DIR_ENV: str(installed)}
    monkeypatch.setenv(build.CORE_DIR_ENV, os.devnull + "/cannot-be-made")
    assert build.host_core_env() == {}
