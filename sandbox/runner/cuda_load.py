"""The runner's load step for a CUDA C++ submission (a package whose language is "cuda").

The student's ``.cu`` source is compiled here, inside the sandbox (sandbox.cuda.build.compile:
mode "nvcc" where the sandbox sees a GPU, "emu" on a CPU), then the package's ``bindings.py`` is
executed as the module ``submission`` with ``launch`` bound to sandbox.cuda.call.call on that
library, that mode and the per-test time limit: the functions it defines are what the tensor
kind calls, exactly as it calls a Python submission's.

A CompileError propagates to the caller (a CE naming the student's own lines); a KernelError
raised by a call (race, deadlock, out-of-bounds access) reaches the grader as the call's
exception (an RE with its message), a CallTimeout by its type name (a TLE), a race report as a
DataRace (a WA: a real GPU would have computed a wrong answer, or a right one by luck).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from types import ModuleType
from typing import Any

# The longest compile a judging waits for (a CE past it): nvcc's; the emulation's, g++ at -O0
# with the emulator's core prebuilt, takes 1-2 s idle and about 6 s at load 18 on two cores.
COMPILE_TIMEOUT_S = {"nvcc": 60.0, "emu": 30.0}
# The compiler's log kept for the CE message: under the 16000 characters the runner sends, so
# that its "[output cut at ...]" note reaches the student.
COMPILE_LOG_BYTES = 12 * 1024
MAX_OBJECT_BYTES = 256 * 1024 * 1024  # any file the compiler writes (a gigantic object: CE)


def host_env() -> dict[str, str]:
    """What a sandbox that compiles for the emulation needs from its host's side, for a backend
    that shares the host's files (the local backend): the emulator's core, built once there,
    read-only (sandbox.cuda.build.host_core_env). A Docker sandbox's image has its own."""
    from sandbox.cuda.build import host_core_env  # noqa: PLC0415 (torch-free, lazy)

    return host_core_env()


class DataRace(RuntimeError):
    """The emulation saw two threads of a block touch the same element without a barrier."""


def load(source: str, bindings: str, folder: str, *, gpu: bool, time_s: float) -> ModuleType:
    """Compile ``source``, exec ``bindings`` with ``launch`` bound; the module ``submission``."""
    from sandbox.cuda.build import compile as compile_cuda  # noqa: PLC0415 (torch-free, lazy)
    from sandbox.cuda.call import KernelError, call  # noqa: PLC0415

    mode = "nvcc" if gpu else "emu"
    build = os.path.join(folder, "build")
    library = compile_cuda(source, build, mode, timeout_s=COMPILE_TIMEOUT_S[mode],
                           output_limit_bytes=COMPILE_LOG_BYTES,
                           max_file_bytes=MAX_OBJECT_BYTES, filename="submission.cu")
    calls = os.path.join(folder, "calls")
    os.makedirs(calls, exist_ok=True)

    def launch(signature: str, args: Any, inout: Any = ()) -> dict[str, Any]:
        try:
            return call(library, signature, args, mode=mode, timeout_s=time_s, inout=inout,
                        workdir=calls)
        except KernelError as exc:
            if exc.kind == "race":
                raise DataRace(str(exc)) from None
            raise

    filename = os.path.join(folder, "bindings.py")
    with open(filename, "w", encoding="utf-8") as f:
        f.write(bindings)
    spec = importlib.util.spec_from_file_location("submission", filename)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    module.launch = launch  # type: ignore[attr-defined]
    sys.modules["submission"] = module
    spec.loader.exec_module(module)
    return module
