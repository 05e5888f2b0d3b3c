"""Prints 1 GB. Expected: OLE."""
import sys


def _flood():
    line = "x" * (1 << 20) + "\n"
    for _ in range(1024):
        sys.stdout.write(line)
    sys.stdout.flush()


def embed(ids, weight, pad_id):
    _flood()


def last_token_logits(hidden, weight, mask):
    _flood()


def pad_batch(seqs, pad_id, side="right"):
    _flood()
