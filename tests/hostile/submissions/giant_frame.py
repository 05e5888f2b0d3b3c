"""Announces a 1 GiB frame on every channel it finds and starts streaming it. Expected: not
AC (OLE or RE), and the grader must not buffer a gigabyte."""
import os
import stat
import struct


def _flood():
    header = b"TJF1" + struct.pack(">I", 1 << 30)
    chunk = b"\0" * (1 << 20)
    for fd in range(3, 256):
        try:
            mode = os.fstat(fd).st_mode
        except OSError:
            continue
        if stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode):
            try:
                os.write(fd, header)
                for _ in range(1024):
                    os.write(fd, chunk)
            except OSError:
                pass


def embed(ids, weight, pad_id):
    _flood()


def last_token_logits(hidden, weight, mask):
    _flood()


def pad_batch(seqs, pad_id, side="right"):
    _flood()
