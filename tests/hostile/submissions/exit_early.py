"""Ends the process with status 0 in the middle of the first call. Expected: RE."""
import os


def embed(ids, weight, pad_id):
    os._exit(0)


def last_token_logits(hidden, weight, mask):
    os._exit(0)


def pad_batch(seqs, pad_id, side="right"):
    os._exit(0)
