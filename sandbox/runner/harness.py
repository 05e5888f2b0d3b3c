"""The runner's ``harness`` op: a practice exercise whose test is a C++ or CUDA C++ program
(a practice folder's test.cpp / test.cu) that includes the student's file and prints one
``CASE <name> PASS|FAIL|ERROR [detail]`` line per case. Runs inside the student's sandbox, never
in the worker.

C++ ("cpp"): g++ -std=c++20 with AddressSanitizer + UBSan (LeakSanitizer on), or
ThreadSanitizer where the exercise asks (``sanitize = "thread"``). CUDA C++ ("cuda"): nvcc on a
GPU sandbox, else the CPU emulation (sandbox.cuda.build, mode "emu", with ``PRACTICE_EMU``
defined for the harness). A compile is stopped after ``compile_s``, every file it writes is
capped, and its log keeps the student's own line numbers (the student's file is included as
written). The program runs at most ``time_s``; what stopped it (a sanitizer's report, a crash,
the time limit) comes back beside the cases it printed before.
"""

from __future__ import annotations

import os
import re
import signal
import tempfile
from pathlib import Path
from typing import Any

COMPILE_LOG_BYTES = 64 * 1024
MAX_FILE_BYTES = 256 * 1024 * 1024  # any file the compiler or the program writes
OUTPUT_BYTES = 256 * 1024  # what is kept of the program's stdout and stderr
REPORT_LINES = 30  # of a sanitizer's report, in the message
_SAFE_NAME = re.compile(r"^[\w][\w.-]{0,80}$")
CXX_FLAGS = ("-std=c++20", "-g", "-O1", "-Wall", "-Wextra", "-pthread", "-fno-omit-frame-pointer",
             "-fmax-errors=20")
SANITIZERS = {"": "address,undefined", "address": "address,undefined", "thread": "thread"}
# Where each sanitizer's report starts, and the words the student reads.
_REPORTS = (
    (re.compile(r"ERROR: AddressSanitizer: ([\w-]+)"), "AddressSanitizer"),
    (re.compile(r"ERROR: LeakSanitizer: (detected memory leaks)"), "LeakSanitizer"),
    (re.compile(r"WARNING: ThreadSanitizer: ([\w -]+?)(?: \(pid=\d+\))?$", re.M), "ThreadSanitizer"),
    (re.compile(r"runtime error: (.*)"), "UndefinedBehaviorSanitizer"),
)


def _files(msg: dict[str, Any], folder: Path) -> tuple[str, str]:
    """Write the harness files and the student's file; (main file, student file) names."""
    main, student = str(msg.get("main", "")), str(msg.get("student", ""))
    names = [main, student, *(str(n) for n in dict(msg.get("files") or {}))]
    for name in names:
        if not _SAFE_NAME.match(name):
            raise ValueError(f"harness file names must be plain names, not {name!r}")
    for name, text in dict(msg.get("files") or {}).items():
        (folder / str(name)).write_text(str(text), encoding="utf-8")
    (folder / student).write_text(str(msg.get("source", "")), encoding="utf-8")
    return main, student


def _clean(text: str, folder: Path) -> str:
    return text.replace(str(folder) + "/", "")


def _student_line(text: str, student: str) -> str:
    m = re.search(re.escape(student) + r":(\d+)", text)
    return f" at {student} line {m.group(1)}" if m else ""


def cpp_report(stderr: str, status: int, student: str) -> str:
    """One message for what stopped a C++ harness (or '' when nothing did)."""
    for pattern, tool in _REPORTS:
        m = pattern.search(stderr)
        if m:
            start = stderr.rfind("\n", 0, m.start()) + 1
            lines = [ln for ln in stderr[start:].splitlines() if ln.strip()][:REPORT_LINES]
            what = m.group(1).strip()
            head = f"{tool}: {what}{_student_line(stderr[start:], student)}"
            return head + "\n" + "\n".join(lines)
    if status == 0:
        return ""
    if status == -signal.SIGXFSZ:
        return "the test program printed too much and was stopped"
    if status < 0:
        try:
            name = signal.Signals(-status).name
        except ValueError:
            name = f"signal {-status}"
        return f"the test program was killed by {name}"
    tail = "\n".join(stderr.strip().splitlines()[-REPORT_LINES:])
    return f"the test program exited with status {status}" + (f":\n{tail}" if tail else "")


def _compile_cpp(msg: dict[str, Any], folder: Path, main: str, student: str) -> dict[str, Any] | Path:
    from sandbox.cuda.build import error_lines  # noqa: PLC0415 (torch-free)
    from sandbox.cuda.proc import file_limit, read_capped, run_limited  # noqa: PLC0415

    sanitize = SANITIZERS.get(str(msg.get("sanitize") or ""), "address,undefined")
    exe = folder / "test.bin"
    cmd = ["g++", *CXX_FLAGS, f"-fsanitize={sanitize}", "-fno-sanitize-recover=all", f"-I{folder}",
           main, "-o", str(exe)]
    log = folder / "compile.log"
    timeout = float(msg.get("compile_s") or 60)
    try:
        status = run_limited(cmd, folder, timeout, stdout=log, stderr=log,
                             env={**os.environ, "LC_ALL": "C"}, preexec=file_limit(MAX_FILE_BYTES))
    except FileNotFoundError:
        return _compile_error("the C++ compiler g++ is not installed in this sandbox", [])
    text = _clean(read_capped(log, COMPILE_LOG_BYTES), folder)
    if status is None:
        return _compile_error(f"compilation took longer than {timeout:g} s and was stopped\n{text}", [])
    if status == -signal.SIGXFSZ or (status != 0 and "File size limit" in text):
        return _compile_error(f"the compiler wrote a file larger than {MAX_FILE_BYTES} bytes", [])
    if status != 0 or not exe.is_file():
        return _compile_error(text.strip() or f"g++ exited with status {status}",
                              error_lines(text, student))
    return exe


def _compile_error(message: str, lines: list[int]) -> dict[str, Any]:
    return {"status": "compile", "error": {"message": message[:16000]}, "lines": lines[:50]}


def _run_cpp(exe: Path, folder: Path, msg: dict[str, Any], student: str) -> dict[str, Any]:
    from sandbox.cuda.proc import PRINT_LIMIT_BYTES, file_limit, read_capped, run_limited  # noqa: PLC0415
    from sandbox.cuda.program import parse_cases  # noqa: PLC0415

    env = {k: v for k, v in os.environ.items() if not k.startswith(("ASAN_", "UBSAN_", "TSAN_", "LD_"))}
    env["ASAN_OPTIONS"] = "detect_leaks=1:halt_on_error=1:abort_on_error=0:print_legend=0"
    env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
    tsan = "halt_on_error=1:second_deadlock_stack=1"
    if (folder / "tsan.supp").is_file():
        tsan += f":suppressions={folder / 'tsan.supp'}"
    env["TSAN_OPTIONS"] = tsan
    out, err = folder / "stdout", folder / "stderr"
    time_s = float(msg.get("time_s") or 60)
    status = run_limited([str(exe)], folder, time_s, stdout=out, stderr=err, env=env,
                         preexec=file_limit(PRINT_LIMIT_BYTES))
    stdout = read_capped(out, OUTPUT_BYTES)
    cases = [[c.name, c.status, c.detail[:2000]] for c in parse_cases(stdout)][:1000]
    if status is None:
        return {"status": "ran", "cases": cases, "timed_out": True,
                "error": f"the test program ran longer than {time_s:g} s and was stopped "
                         "(an endless loop, or a deadlock?)"}
    report = cpp_report(_clean(read_capped(err, OUTPUT_BYTES), folder), status, student)
    return {"status": "ran", "cases": cases, "timed_out": False, "error": report}


def _run_cuda(msg: dict[str, Any], folder: Path, main: str, student: str,
              gpu: bool) -> dict[str, Any]:
    from sandbox.cuda.build import CompileError, compile  # noqa: A004, PLC0415
    from sandbox.cuda.program import run_program  # noqa: PLC0415
    from sandbox.cuda.reports import CallTimeout  # noqa: PLC0415

    mode = "nvcc" if gpu else "emu"
    given = {str(k): str(v) for k, v in dict(msg.get("files") or {}).items()}
    extra = {student: str(msg.get("source", "")), **{n: t for n, t in given.items() if n != main}}
    flags = ["-DPRACTICE_EMU"] if mode == "emu" else ["-arch=native"]
    if mode == "nvcc" and "judge_cublas.cuh" in given.get(main, ""):
        flags.append("-lcublas")
    build = folder / "build"
    try:
        exe = compile(given.get(main, ""), build, mode,
                      timeout_s=float(msg.get("compile_s") or 60),
                      output_limit_bytes=COMPILE_LOG_BYTES, max_file_bytes=MAX_FILE_BYTES,
                      filename=main, extra_sources=extra, program=True, extra_flags=flags)
    except CompileError as exc:
        return _compile_error(str(exc), list(exc.lines))
    time_s = float(msg.get("time_s") or 60)
    try:
        run = run_program(exe, mode=mode, timeout_s=time_s, output_limit_bytes=OUTPUT_BYTES,
                          workdir=folder)
    except CallTimeout as exc:
        return {"status": "ran", "cases": [], "timed_out": True, "error": str(exc),
                "mode": mode}
    cases = [[c.name, c.status, c.detail[:2000]] for c in run.cases][:1000]
    return {"status": "ran", "cases": cases, "timed_out": False,
            "error": str(run.error) if run.error is not None else "", "mode": mode}


def run_harness(msg: dict[str, Any], tmp: str, *, gpu: bool) -> dict[str, Any]:
    """Compile and run one harness (the op's fields: language, main, student, files, source,
    sanitize, compile_s, time_s); the reply's fields beside ``ok``."""
    folder = Path(tempfile.mkdtemp(prefix="harness-", dir=tmp))
    main, student = _files(msg, folder)
    language = msg.get("language")
    if language == "cuda":
        return _run_cuda(msg, folder, main, student, gpu)
    if language != "cpp":
        raise ValueError(f"unknown harness language {language!r}")
    built = _compile_cpp(msg, folder, main, student)
    if isinstance(built, dict):
        return built
    return _run_cpp(built, folder, msg, student)
