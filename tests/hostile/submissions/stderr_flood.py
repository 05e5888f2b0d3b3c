"""Writes 1 GB straight to file descriptor 2 (stderr), not through sys.stdout. The container
keeps no log, and the grader caps what it reads. Expected: OLE (or RE), quickly, and the worker
not grown by the flood."""
import os


def embed(ids, weight, pad_id):
    block = b"e" * (1 << 20)
    for _ in range(1024):
        os.write(2, block)


def last_token_logits(hidden, weight, mask):
    return None


def pad_batch(seqs, pad_id, side="right"):
    return None
