"""A fork bomb at the first call: every process forks forever. Expected: not AC (TLE/RE)."""
import os


def _bomb():
    while True:
        try:
            os.fork()
        except OSError:
            pass


def embed(ids, weight, pad_id):
    _bomb()


def last_token_logits(hidden, weight, mask):
    _bomb()


def pad_batch(seqs, pad_id, side="right"):
    _bomb()
