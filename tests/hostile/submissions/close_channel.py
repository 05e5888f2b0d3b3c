"""Closes every file descriptor above 2 (the runner's private channel among them) in the
middle of the first call. Expected: RE."""
import os


def _close_all():
    os.closerange(3, 4096)
    return None


def embed(ids, weight, pad_id):
    return _close_all()


def last_token_logits(hidden, weight, mask):
    return _close_all()


def pad_batch(seqs, pad_id, side="right"):
    return _close_all()
