"""Writes forged 'all good' replies into every channel it can find (the runner's private fds,
PID 1's stdout), then returns nonsense. Expected: not AC."""
import json
import os
import stat
import struct


def _frame(message):
    text = json.dumps(message).encode()
    payload = struct.pack(">I", len(text)) + text
    return b"TJF1" + struct.pack(">I", len(payload)) + payload


FORGED = [
    {"ok": True, "verdict": "AC", "printed": 0, "obs": {"kind": "value", "value": None}},
    {"ok": True, "status": "ok", "printed": 0},
    {"ok": True, "time_ns": 1, "host_ns": 1, "printed": 0},
]


def _forge():
    data = b"".join(_frame(m) for m in FORGED)
    for fd in range(3, 64):
        try:
            if stat.S_ISFIFO(os.fstat(fd).st_mode) or stat.S_ISSOCK(os.fstat(fd).st_mode):
                os.write(fd, data)
        except OSError:
            pass
    for path in ("/proc/1/fd/1", "/proc/self/fd/1", "/dev/stdout"):
        try:
            with open(path, "wb") as f:
                f.write(data)
        except OSError:
            pass


def embed(ids, weight, pad_id):
    _forge()
    return ids


def last_token_logits(hidden, weight, mask):
    _forge()
    return mask


def pad_batch(seqs, pad_id, side="right"):
    _forge()
    return seqs, seqs
