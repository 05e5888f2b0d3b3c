"""Child processes with a wall-clock limit, and the sanitizer environment they run in."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path

# halt at the first report; no leak check (the caller's interpreter leaks by design); the fiber
# switches are annotated, so the stack-use-after-return check stays off.
ASAN_OPTIONS = ("detect_leaks=0:halt_on_error=1:abort_on_error=0:symbolize=1:"
                "detect_stack_use_after_return=0:allocator_may_return_null=1:print_legend=0:"
                "handle_segv=1:verify_asan_link_order=0")
UBSAN_OPTIONS = "halt_on_error=1:print_stacktrace=1"


def run_limited(cmd: Sequence[str], cwd: Path, timeout_s: float, *, stdout: Path, stderr: Path,
                env: Mapping[str, str] | None = None,
                preexec: Callable[[], None] | None = None) -> int | None:
    """Run ``cmd`` in its own process group with output to files (one file if both paths are
    the same); its exit status, or None when it ran past ``timeout_s`` (then the whole group is
    killed)."""
    with open(stdout, "wb") as out, open(os.devnull if stderr == stdout else stderr, "wb") as err:
        proc = subprocess.Popen(list(cmd), cwd=cwd, stdout=out,
                                stderr=subprocess.STDOUT if stderr == stdout else err,
                                stdin=subprocess.DEVNULL, env=dict(env) if env else None,
                                start_new_session=True, preexec_fn=preexec)
        deadline = time.monotonic() + timeout_s
        status: int | None = None
        while status is None and time.monotonic() < deadline:
            try:
                status = proc.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                pass
    if status is None:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        _await_group_gone(proc.pid)
    return status


def _await_group_gone(pgid: int, within_s: float = 5.0) -> None:
    """Wait until every process of a killed group is gone: the compiler's cc1plus, orphaned by
    the driver's kill, lives on for a moment until the sandbox's init reaps it, and a sandbox
    that holds more processes after a request than at its start is an RE (stray processes)."""
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        time.sleep(0.02)


def read_capped(path: Path, limit_bytes: int) -> str:
    """The first ``limit_bytes`` of a file as text, with a note when there was more."""
    with open(path, "rb") as f:
        raw = f.read(limit_bytes + 1)
    text = raw[:limit_bytes].decode("utf-8", "replace")
    return text + (f"\n[output cut at {limit_bytes} bytes]" if len(raw) > limit_bytes else "")


# What a call or a test program may write (its printf output, and the call's outputs on top).
PRINT_LIMIT_BYTES = 16 * 1024 * 1024


def file_limit(max_bytes: int) -> Callable[[], None]:
    """A preexec function capping every file the child writes (SIGXFSZ past it)."""

    def limit() -> None:  # never above the sandbox's own cap (raising a hard limit fails)
        _, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        cap = max_bytes if hard == resource.RLIM_INFINITY else min(max_bytes, hard)
        resource.setrlimit(resource.RLIMIT_FSIZE, (cap, cap))
        signal.signal(signal.SIGXFSZ, signal.SIG_DFL)

    return limit


@lru_cache(maxsize=4)
def asan_runtime(cxx: str = "g++") -> str | None:
    """The path of the compiler's libasan.so (preloaded into a Python child that loads an
    instrumented library: ASan must come first in the process)."""
    try:
        out = subprocess.run([cxx, "-print-file-name=libasan.so"], capture_output=True,
                             text=True, timeout=30, check=False).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out if os.path.isabs(out) and os.path.exists(out) else None


def sanitizer_env(*, preload_cxx: str | None = None) -> dict[str, str]:
    """This process's environment with our sanitizer options (and libasan preloaded if asked)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASAN_", "UBSAN_", "LD_"))}
    lib = asan_runtime(preload_cxx) if preload_cxx else None
    if lib:
        env["LD_PRELOAD"] = lib
    env["ASAN_OPTIONS"] = ASAN_OPTIONS
    env["UBSAN_OPTIONS"] = UBSAN_OPTIONS
    return env
