"""Compile a CUDA C++ submission: for the CPU emulation with g++ (mode "emu") or for a GPU with nvcc
(mode "nvcc"). Runs inside the student's sandbox, never in the worker.

``compile(source, workdir, mode)`` returns the path of a shared library (or, with
``program=True``, of an executable: a harness with its own ``main``). A failure is a CompileError
whose message is the compiler's log with the student's line numbers (the emulation's rewrite keeps
every line where it was), ``lines`` the student's lines the log names. The compiler is stopped after
``timeout_s`` (its whole process group is killed); every file it writes is capped at
``max_file_bytes`` (RLIMIT_FSIZE: a gigantic object or binary ends the compile); the log kept is
at most ``output_limit_bytes``.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import stat
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from functools import lru_cache
from pathlib import Path

from sandbox.cuda.proc import file_limit, read_capped, run_limited
from sandbox.cuda.translate import HEADER, TranslateError, translate

HERE = Path(__file__).resolve().parent
MODES = ("emu", "nvcc")

# -O0: the compile is the cost of a check (about 1.3 s of CPU here, 3 s at -O1 with ASan), and
# correctness does not need speed. The sanitizers stop at their first report.
EMU_FLAGS = (
    "-std=c++17",
    "-O0",
    "-g",
    "-fPIC",
    "-fsanitize=address,undefined",
    "-fno-sanitize-recover=all",
    "-fno-omit-frame-pointer",
    "-fmax-errors=20",
)
NVCC_FLAGS = ("-std=c++17", "-O3", "-lineinfo", "-Xcompiler", "-fPIC")
_LINE_RE = r"(?::(\d+)(?::\d+)?:|\((\d+)\): )"


class CompileError(Exception):
    """The submission did not compile; ``log`` is the compiler's (capped) output."""

    def __init__(self, message: str, *, lines: Sequence[int] = (), log: str = "",
                 timed_out: bool = False) -> None:
        super().__init__(message)
        self.lines = tuple(lines)
        self.log = log
        self.timed_out = timed_out


def _run(cmd: list[str], workdir: Path, timeout_s: float, output_limit_bytes: int,
         max_file_bytes: int) -> tuple[int | None, str]:
    """(exit status or None on timeout, the log cut to output_limit_bytes)."""
    log = workdir / "compile.log"
    status = run_limited(cmd, workdir, timeout_s, stdout=log, stderr=log,
                         env={**os.environ, "LC_ALL": "C"},  # plain ASCII quotes
                         preexec=file_limit(max_file_bytes))
    return status, read_capped(log, output_limit_bytes)


@lru_cache(maxsize=4)
def _compiler_id(tool: str) -> str:
    try:
        out = subprocess.run([tool, "-dumpfullversion", "-dumpmachine"], capture_output=True,
                             text=True, timeout=30, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return f"{os.path.realpath(tool)} {out.strip()}"


CORE_DIR_ENV = "TJ_CUDA_CORE_DIR"  # a folder of shared cores the host built (local backend)
PREBUILT = HERE / "prebuilt"  # the sandbox image's, built with the image (root's, read-only)


def core_key(tool: str) -> str | None:
    """The core's name for this compiler, these flags and these headers (None: no compiler)."""
    ident = _compiler_id(tool)
    if not ident:
        return None
    digest = hashlib.sha256(ident.encode() + " ".join(EMU_FLAGS).encode())
    for path in sorted(HERE.glob("tj_*")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return f"tj_core-{digest.hexdigest()[:20]}"


def _build_core(tool: str, folder: Path, timeout_s: float) -> Path | None:
    """tj_core.cpp compiled in ``folder`` (folder/c.o), or None."""
    cmd = [tool, *EMU_FLAGS, f"-I{HERE}", "-c", str(HERE / "tj_core.cpp"), "-o", str(folder / "c.o")]
    status = run_limited(cmd, folder, timeout_s, stdout=folder / "log", stderr=folder / "log")
    return folder / "c.o" if status == 0 and (folder / "c.o").is_file() else None


def _scratch(folder: Path, mode: int) -> Path | None:
    """A fresh folder to build a core in, inside ``folder`` (made with ``mode`` if missing)."""
    try:
        folder.mkdir(mode=mode, parents=True, exist_ok=True)
        return Path(tempfile.mkdtemp(prefix=".build-", dir=folder))
    except OSError:
        return None


def _read_only(path: Path) -> bool:
    """``path`` and its folder are plain, have no write bit and belong to root or to us: a file
    no code of the sandbox wrote (in an image they are root's and the sandbox is another user;
    with the local backend, no security boundary, the student could chmod them back)."""
    try:
        for p in (path, path.parent):
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode) or st.st_mode & 0o222 or st.st_uid not in (0, os.getuid()):
                return False
    except OSError:
        return False
    return True


def shared_core(tool: str, folders: Sequence[Path] | None = None) -> Path | None:
    """A core built outside the sandbox for this compiler: ``<folder>/<key>/tj_core.o`` in the
    image's PREBUILT or the host's $TJ_CUDA_CORE_DIR, trusted only when read-only
    (_read_only). Never a file the sandbox may have written: a student's code runs after its
    compile, in the same sandbox."""
    key = core_key(tool)
    if key is None:
        return None
    if folders is None:
        env = os.environ.get(CORE_DIR_ENV)
        folders = [PREBUILT, *([Path(env)] if env else [])]
    for folder in folders:
        path = folder / key / "tj_core.o"
        if _read_only(path):
            return path
    return None


def install_core(folder: Path, *, cxx: str = "g++", timeout_s: float = 300.0) -> Path | None:
    """Build the core once into ``folder/<key>/tj_core.o``, read-only (file 0444, its folder
    0555, moved into place whole), and return it; None if it cannot be built or stored. Run by
    the image's build (scripts/build_images) and the local backend's host side, never in a
    sandbox."""
    tool = shutil.which(cxx) or cxx
    found = shared_core(tool, [folder])
    key = core_key(tool)
    if found is not None or key is None:
        return found
    tmp = _scratch(folder, 0o755)
    if tmp is None:
        return None
    try:
        built = _build_core(tool, tmp, timeout_s)
        if built is not None:
            (tmp / "log").unlink(missing_ok=True)
            os.replace(built, tmp / "tj_core.o")
            os.chmod(tmp / "tj_core.o", 0o444)
            os.chmod(tmp, 0o555)
            os.rename(tmp, folder / key)  # whole; a concurrent install may have won (OSError)
    except OSError:
        pass
    if tmp.exists():
        os.chmod(tmp, 0o700)
        shutil.rmtree(tmp, ignore_errors=True)
    return shared_core(tool, [folder])


def host_core_env(cxx: str = "g++") -> dict[str, str]:
    """{TJ_CUDA_CORE_DIR: folder} for a sandbox's environment, the core installed there first
    (seconds, once per compiler and emulator version): the folder is $TJ_CUDA_CORE_DIR of the
    host, else ~/.cache/tensor-judge/cuda-core. {} if the core cannot be built."""
    env = os.environ.get(CORE_DIR_ENV)
    folder = Path(env) if env else Path.home() / ".cache" / "tensor-judge" / "cuda-core"
    return {CORE_DIR_ENV: str(folder)} if install_core(folder, cxx=cxx) is not None else {}


def core_object(tool: str, cache_dir: Path, timeout_s: float) -> Path | None:
    """tj_core.o in a cache the caller trusts (``compile(cache_dir=...)``: tests, a private
    build folder): built there once, then reused. None if it cannot be built or stored; the
    submission then compiles the emulator's functions itself."""
    key = core_key(tool)
    if key is None:
        return None
    out = cache_dir / f"{key}.o"
    if out.is_file():
        return out
    tmp = _scratch(cache_dir, 0o700)
    if tmp is None:
        return None
    built = _build_core(tool, tmp, timeout_s)
    if built is not None:
        os.replace(built, out)  # atomic: a concurrent build writes the same bytes
    shutil.rmtree(tmp, ignore_errors=True)
    return out if out.is_file() else None


def _clean_log(log: str, workdir: Path, core: Path | None = None) -> str:
    """The log without our directories (the emulator's, the build's, the shared core's: the
    host's paths with the local backend): the student sees its file names and the header's."""
    folders = [HERE / "include", HERE, workdir, *([core.parent] if core else [])]
    for d in folders:
        log = log.replace(str(d) + "/", "")
    return log


def error_lines(log: str, filename: str) -> list[int]:
    """The student's lines named by a g++ (`f:12:5:`) or nvcc (`f(12): `) log, in order."""
    found: list[int] = []
    for m in re.finditer(re.escape(filename) + _LINE_RE, log):
        n = int(m.group(1) or m.group(2))
        if n not in found:
            found.append(n)
    return found


def compile(  # the name the judging loop calls (shadows the builtin inside this module only)
    source: str,
    workdir: str | os.PathLike[str],
    mode: str = "emu",
    *,
    timeout_s: float = 60.0,
    output_limit_bytes: int = 64 * 1024,
    max_file_bytes: int = 256 * 1024 * 1024,
    filename: str = "solution.cu",
    extra_sources: Mapping[str, str] | None = None,
    program: bool = False,
    cxx: str = "g++",
    nvcc: str = "nvcc",
    extra_flags: Sequence[str] = (),
    cache_dir: str | os.PathLike[str] | None = None,
) -> Path:
    """Compile ``source`` (saved as ``filename`` in ``workdir``); return the library's path.

    ``extra_sources`` are more files written beside it (e.g. a harness that
    ``#include "solution.cu"``); in mode "emu" each is translated too. With ``program=True`` the
    result is an executable and ``filename`` must hold (or include) ``main``. The emulator's
    precompiled part is a shared_core() (the image's, the host's), else one in ``cache_dir``
    (a folder the caller trusts), else none: the submission compiles those functions itself.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    if not re.fullmatch(r"[\w.-]+", filename) or filename.startswith("."):
        raise ValueError(f"filename must be a plain file name, not {filename!r}")
    wd = Path(workdir)
    wd.mkdir(parents=True, exist_ok=True)
    files = {filename: source, **dict(extra_sources or {})}
    out = wd / ("solution.bin" if program else "libsolution.so")
    out.unlink(missing_ok=True)
    core: Path | None = None
    for name, text in files.items():
        if not re.fullmatch(r"[\w.-]+", name) or name.startswith("."):
            raise ValueError(f"source names must be plain file names, not {name!r}")
        if mode == "emu":
            try:
                text = translate(text)
            except TranslateError as e:
                raise CompileError(f"{name}:{e.line}: error: {e}", lines=[e.line],
                                   log=str(e)) from None
        (wd / name).write_text(text, encoding="utf-8")
    if mode == "emu":
        tool = shutil.which(cxx) or cxx
        cmd = [tool, *EMU_FLAGS, "-x", "c++", f"-I{HERE}", f"-I{HERE / 'include'}", "-include",
               HEADER]
        cmd += [*extra_flags, filename]
        core = shared_core(tool) or (core_object(tool, Path(cache_dir), timeout_s)
                                     if cache_dir else None)
        if core is not None:
            cmd += ["-DTJ_CUDA_PREBUILT", "-x", "none", str(core)]
        cmd += ["-o", str(out)]
        if not program:  # a function declared but never defined is a CE, not a failed load
            cmd[1:1] = ["-shared", "-Wl,--no-undefined"]
    else:
        tool = shutil.which(nvcc) or nvcc
        cmd = [tool, *NVCC_FLAGS, *extra_flags, filename, "-o", str(out)]
        if not program:
            cmd[1:1] = ["-shared", "-Xlinker", "--no-undefined"]
    try:
        status, log = _run(cmd, wd, timeout_s, output_limit_bytes, max_file_bytes)
    except FileNotFoundError:
        raise CompileError(f"the compiler {tool} is not installed in this sandbox") from None
    log = _clean_log(log, wd, core)
    if status is None:
        raise CompileError(f"compilation took longer than {timeout_s:g} s and was stopped",
                           log=log, timed_out=True)
    full = status != 0 and ("File size limit" in log or "No space left on device" in log)
    if status == -signal.SIGXFSZ or full:  # the file-size cap, or the sandbox's disk first
        raise CompileError(f"the compiler wrote a file larger than {max_file_bytes} bytes or "
                           "than the sandbox's disk holds (a gigantic object or binary) "
                           "and was stopped", log=log)
    if status != 0 or not out.exists():
        lines = error_lines(log, filename)
        raise CompileError(log.strip() or f"the compiler exited with status {status}",
                           lines=lines, log=log)
    return out
