"""Run a compiled harness program (build.compile(..., program=True)): a test file with its own
``main`` that includes the student's file and prints one ``CASE <name> PASS|FAIL|ERROR [detail]``
line per case (the handbook's CUDA harness protocol).

In mode "emu" the program runs with the sanitizer options of the call; a report that stops it
(race, deadlock, out of bounds...) is ``ProgramRun.error``, beside the cases printed before it.
Past ``timeout_s`` it is killed and CallTimeout is raised.
"""

from __future__ import annotations

import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from sandbox.cuda.proc import PRINT_LIMIT_BYTES, file_limit, read_capped, run_limited, sanitizer_env
from sandbox.cuda.reports import CallTimeout, KernelError, diagnose

_CASE = re.compile(r"^CASE (\S+) (PASS|FAIL|ERROR)\b ?(.*)$", re.M)


@dataclass(frozen=True)
class Case:
    name: str
    status: str  # PASS, FAIL or ERROR
    detail: str


@dataclass(frozen=True)
class ProgramRun:
    cases: tuple[Case, ...]
    stdout: str
    error: KernelError | None  # what stopped the program, if it did not exit 0

    @property
    def passed(self) -> bool:
        """Every case passed, at least one case ran, and nothing stopped the program."""
        return bool(self.cases) and self.error is None and all(
            c.status == "PASS" for c in self.cases)


def parse_cases(stdout: str) -> tuple[Case, ...]:
    return tuple(Case(m.group(1), m.group(2), m.group(3).strip()) for m in _CASE.finditer(stdout))


def run_program(path: str | os.PathLike[str], *, mode: str = "emu", timeout_s: float = 30.0,
                output_limit_bytes: int = 256 * 1024,
                workdir: str | os.PathLike[str] | None = None) -> ProgramRun:
    if mode not in ("emu", "nvcc"):
        raise ValueError(f"mode must be 'emu' or 'nvcc', not {mode!r}")
    exe = Path(path).resolve()
    with tempfile.TemporaryDirectory(prefix="tj_run_", dir=workdir) as tmp:
        wd = Path(tmp)
        out, err = wd / "stdout", wd / "stderr"
        env = sanitizer_env() if mode == "emu" else None
        status = run_limited([str(exe)], wd, timeout_s, stdout=out, stderr=err, env=env,
                             preexec=file_limit(PRINT_LIMIT_BYTES))
        if status is None:
            raise CallTimeout("timeout", f"the test program ran longer than {timeout_s:g} s and "
                              "was stopped (an endless loop?)")
        stdout = read_capped(out, output_limit_bytes)
        error = None if status == 0 else diagnose(read_capped(err, output_limit_bytes), status)
    return ProgramRun(parse_cases(stdout), stdout, error)
