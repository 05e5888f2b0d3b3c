"""Calls sys.exit(0) while being imported. Expected: not AC (CE or RE)."""
import sys

sys.exit(0)


def embed(ids, weight, pad_id):
    return None


def last_token_logits(hidden, weight, mask):
    return None


def pad_batch(seqs, pad_id, side="right"):
    return None
