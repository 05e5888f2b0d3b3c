"""Answers the first test itself with one well-framed reply of 64 MiB of JSON made of empty
lists ('[],' is 3 bytes, a Python list 56): parsed whole, it once cost the worker ~1.7 GB and
seconds of CPU before any node count was checked (a 256 MiB frame, ~7 GB).
Expected: OLE (or RE), with the worker unharmed."""

import os
import struct
import sys

_runner = sys.modules["sandbox.runner.server"]
_CHUNK = b"[]," * (1 << 18)
_COUNT = (64 << 20) // len(_CHUNK)


def _bomb():
    head = b'{"ok":true,"printed":0,"obs":['
    tail = b"[]]}"
    body_len = len(head) + _COUNT * len(_CHUNK) + len(tail)
    payload_len = 4 + body_len
    fd = _runner._FRAME_OUT
    os.write(fd, b"TJF1" + struct.pack(">I", payload_len) + struct.pack(">I", body_len) + head)
    for _ in range(_COUNT):
        view = memoryview(_CHUNK)
        while view:
            view = view[os.write(fd, view):]
    os.write(fd, tail)


def embed(ids, weight, pad_id):
    _bomb()
    return ids


def last_token_logits(hidden, weight, mask):
    _bomb()
    return mask


def pad_batch(seqs, pad_id, side="right"):
    _bomb()
    return seqs, seqs
