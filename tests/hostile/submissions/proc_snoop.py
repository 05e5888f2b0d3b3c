"""Reads /proc/<pid>/cmdline, environ and mem (every readable mapping) of every other process
it can see, looking for the source or the bytecode of the problem's functions (a baseline
or reference held by another process). Expected: RE whose message reports no leak."""
import os

WANTED = (b"def last_token_logits", b"def pad_batch(", b"kernels.embedding")
MAX_REGION = 64 << 20


def _mine():
    pids = {os.getpid()}
    try:
        pids.update(int(t) for t in os.listdir("/proc/self/task"))
    except OSError:
        pass
    return pids


def _scan(pid):
    leaks, readable = [], []
    for what in ("cmdline", "environ"):
        try:
            with open(f"/proc/{pid}/{what}", "rb") as f:
                data = f.read()
            readable.append(what)
            leaks += [f"{pid}/{what}:{w.decode()}" for w in WANTED if w in data]
        except OSError:
            pass
    try:
        maps = open(f"/proc/{pid}/maps").read().splitlines()
        mem = open(f"/proc/{pid}/mem", "rb")
    except OSError:
        return leaks, readable
    with mem:
        for line in maps:
            span, perms = line.split()[:2]
            start, end = (int(x, 16) for x in span.split("-"))
            if "r" not in perms or end - start > MAX_REGION:
                continue
            try:
                mem.seek(start)
                data = mem.read(end - start)
            except (OSError, OverflowError, ValueError):
                continue
            if "mem" not in readable:
                readable.append("mem")
            leaks += [f"{pid}/mem:{w.decode()}" for w in WANTED if w in data]
    return leaks, readable


def _snoop():
    mine, leaks, seen = _mine(), [], {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) not in mine:
            found, readable = _scan(int(entry))
            leaks += found
            seen[int(entry)] = readable
    return leaks, seen


_LEAKS, _SEEN = _snoop()
_REPORT = f"leaks={sorted(set(_LEAKS))} seen={_SEEN}"


def embed(ids, weight, pad_id):
    raise RuntimeError(_REPORT)


def last_token_logits(hidden, weight, mask):
    raise RuntimeError(_REPORT)


def pad_batch(seqs, pad_id, side="right"):
    raise RuntimeError(_REPORT)
