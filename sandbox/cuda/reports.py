"""Turn what a failed emulated run printed into one message a student can act on.

The emulator prints ``TJ-CUDA <kind>: <message>`` (race, deadlock, out of bounds, bad launch...)
and exits with status 86. AddressSanitizer and UBSan print their own reports; tj_cuda.h adds a
``TJ-CUDA-CONTEXT kernel=... block=... thread=...`` line when a sanitizer stops the process, and
the calling child lists the buffers it allocated (``TJ-CUDA-BUFFER name address bytes elem``), so
an overflow becomes "out-of-bounds write of y[1024] in kernel add (y has 1024 elements)".
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
from dataclasses import dataclass

REPORT_EXIT = 86


class KernelError(RuntimeError):
    """The submission failed while running: ``kind`` says how, ``str()`` says what to fix."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class CallTimeout(KernelError):
    """The call ran past its time limit and was stopped."""


@dataclass(frozen=True)
class Buffer:
    name: str
    address: int
    nbytes: int
    elem: int


def buffers(text: str) -> list[Buffer]:
    found = []
    for m in re.finditer(r"^TJ-CUDA-BUFFER (\S+) (0x[0-9a-f]+) (\d+) (\d+)$", text, re.M):
        found.append(Buffer(m.group(1), int(m.group(2), 16), int(m.group(3)), int(m.group(4))))
    return found


def _context(text: str) -> tuple[str, str]:
    """(" in kernel k", ", block (..), thread (..)") from the context line, or empty strings."""
    m = re.search(r"^TJ-CUDA-CONTEXT kernel=(\S+) block=(\S+) thread=(\S+)$", text, re.M)
    if not m or m.group(1) == "-":
        return "", ""
    return f" in kernel {m.group(1)}", f", block {m.group(2)}, thread {m.group(3)}"


def _student_line(text: str) -> str:
    """", at solution.cu line 7" from the first stack frame in a .cu file, if any."""
    m = re.search(r"#\d+ 0x[0-9a-f]+ in .*?[ /]([\w.-]+\.cuh?):(\d+)", text)
    if m:
        return f", at {m.group(1)} line {m.group(2)}"
    # The sanitizers' own symbolizer leaves some frames (template instances) as "(lib+0x..)":
    # ask addr2line, in stack order, for the first that is in the student's file.
    frames = re.findall(r"^\s+#\d+ 0x[0-9a-f]+ in .*? \((/[^()+\s]+)\+(0x[0-9a-f]+)\)$", text, re.M)
    tool = shutil.which("addr2line")
    if not frames or not tool:
        return ""
    libs = [p for p in dict.fromkeys(path for path, _ in frames)
            if not p.startswith(("/usr/", "/lib"))]  # the system's libraries are not the student's
    if not libs:
        return ""
    lib = libs[0]
    offsets = [off for path, off in frames if path == lib][:40]
    try:
        out = subprocess.run([tool, "-e", lib, *offsets], capture_output=True, text=True,
                             timeout=10, check=False).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""
    for m in re.finditer(r"([\w.-]+\.cuh?):(\d+)", out):
        if m.group(2) != "0":
            return f", at {m.group(1)} line {m.group(2)}"
    return ""


def _overflow(text: str, bufs: list[Buffer]) -> str | None:
    m = re.search(r"(READ|WRITE) of size (\d+) at (0x[0-9a-f]+)", text)
    if not m:
        return None
    access = m.group(1).lower()
    addr = int(m.group(3), 16)
    kernel, where = _context(text)
    line = _student_line(text)
    start = re.search(r"region \[(0x[0-9a-f]+),", text)
    owner = [b for b in bufs if start and b.address == int(start.group(1), 16)]
    for b in owner or bufs:
        lo, hi = b.address - 64, b.address + max(b.nbytes, 1) + 64
        if lo <= addr < hi and b.elem > 0:
            index = (addr - b.address) // b.elem
            count = b.nbytes // b.elem
            return (f"out-of-bounds {access} of {b.name}[{index}]{kernel} "
                    f"({b.name} has {count} element{'s' if count != 1 else ''}){line}{where}")
    region = re.search(r"located (\d+) bytes to the (left|right) of (\d+)-byte region", text)
    if region:
        side = "before the start" if region.group(2) == "left" else "past the end"
        return (f"out-of-bounds {access} {region.group(1)} bytes {side} of a {region.group(3)}-byte "
                f"buffer{kernel}{line}{where}")
    return None


def diagnose(stderr: str, returncode: int, *, function: str = "") -> KernelError:
    """The KernelError for a child that exited with ``returncode`` after printing ``stderr``."""
    bufs = buffers(stderr)
    own = re.search(r"^TJ-CUDA ([a-z ]+): (.*)$", stderr, re.M)
    if own:
        kind, msg = own.group(1), own.group(2)
        line = _student_line(stderr)  # from the stack printed when the report came from a thread
        if kind == "out of bounds":
            cut = msg.find(", block (")
            return KernelError(kind, msg[:cut] + line + msg[cut:] if cut >= 0 else msg + line)
        return KernelError(kind, f"{kind}{line.replace(', at', ' at')}: {msg}")
    kernel, where = _context(stderr)
    asan = re.search(r"ERROR: AddressSanitizer: ([\w-]+)", stderr)
    if asan:
        what = asan.group(1)
        if what in ("heap-buffer-overflow", "stack-buffer-overflow", "global-buffer-overflow",
                    "dynamic-stack-buffer-overflow"):
            msg = _overflow(stderr, bufs)
            if msg:
                return KernelError("out of bounds", msg)
        if what == "SEGV":
            addr = re.search(r"SEGV on unknown address (0x[0-9a-f]+|\(nil\))", stderr)
            at = addr.group(1) if addr else "an invalid address"
            return KernelError("crash", f"invalid memory access at {at}{kernel}"
                               f"{_student_line(stderr)}{where} (a wild or null pointer, or an "
                               "index far outside every buffer)")
        if what == "stack-overflow":
            return KernelError("crash", f"stack overflow{kernel}{_student_line(stderr)}{where}: "
                               "deep recursion or a very large local array (each CUDA thread has 256 KiB of "
                               "stack in the emulation)")
        return KernelError("memory error", f"{what.replace('-', ' ')}{kernel}"
                           f"{_student_line(stderr)}{where}")
    ub = re.search(r"([\w.-]+):(\d+):\d+: runtime error: (.*)", stderr)
    if ub:
        return KernelError("undefined behaviour", f"undefined behaviour{kernel} at {ub.group(1)} "
                           f"line {ub.group(2)}: {ub.group(3).strip()}{where}")
    if returncode == -signal.SIGXFSZ:
        return KernelError("output limit", "the program printed too much and was stopped "
                           "(printf in a kernel prints once per thread)")
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        return KernelError("crash", f"the call{' of ' + function if function else ''} was killed "
                           f"by {name}{kernel}{where}")
    tail = "\n".join(line for line in stderr.strip().splitlines()[-5:]
                     if not line.startswith("TJ-CUDA-BUFFER") and "WARNING: ASan" not in line)
    return KernelError("crash", f"the call{' of ' + function if function else ''} failed "
                       f"(exit status {returncode}){': ' + tail if tail else ''}")
