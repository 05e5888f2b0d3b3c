"""Attaches with ptrace (PTRACE_ATTACH, then PTRACE_SEIZE) to every other process it can see,
and through the access that gives reads its memory (/proc/<pid>/mem) for the source or
bytecode of the problem's functions. Detaches at once. Expected: RE whose message reports no
leak."""
import ctypes
import os

PTRACE_ATTACH, PTRACE_DETACH, PTRACE_SEIZE = 16, 17, 0x4206
WANTED = (b"def last_token_logits", b"def pad_batch(", b"kernels.embedding")
libc = ctypes.CDLL(None, use_errno=True)
libc.ptrace.restype = ctypes.c_long
libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]


def _read_mem(pid):
    leaks = []
    try:
        maps = open(f"/proc/{pid}/maps").read().splitlines()
        mem = open(f"/proc/{pid}/mem", "rb")
    except OSError:
        return leaks
    with mem:
        for line in maps:
            span, perms = line.split()[:2]
            start, end = (int(x, 16) for x in span.split("-"))
            if "r" not in perms or end - start > (64 << 20):
                continue
            try:
                mem.seek(start)
                data = mem.read(end - start)
            except (OSError, OverflowError, ValueError):
                continue
            leaks += [f"{pid}:{w.decode()}" for w in WANTED if w in data]
    return leaks


def _attach_all():
    mine = {os.getpid(), *(int(t) for t in os.listdir("/proc/self/task"))}
    attached, leaks = [], []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) in mine:
            continue
        pid = int(entry)
        for request in (PTRACE_ATTACH, PTRACE_SEIZE):
            if libc.ptrace(request, pid, None, None) == 0:
                attached.append((pid, request))
                try:
                    if request == PTRACE_ATTACH:
                        os.waitpid(pid, os.WNOHANG)
                    leaks += _read_mem(pid)
                finally:
                    libc.ptrace(PTRACE_DETACH, pid, None, None)
                break
    return attached, leaks


_ATTACHED, _LEAKS = _attach_all()
_REPORT = f"leaks={sorted(set(_LEAKS))} attached={_ATTACHED}"


def embed(ids, weight, pad_id):
    raise RuntimeError(_REPORT)


def last_token_logits(hidden, weight, mask):
    raise RuntimeError(_REPORT)


def pad_batch(seqs, pad_id, side="right"):
    raise RuntimeError(_REPORT)
