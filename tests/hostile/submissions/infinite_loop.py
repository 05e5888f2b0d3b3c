"""Spins forever inside the first call. Expected: TLE."""


def embed(ids, weight, pad_id):
    n = 0
    while True:
        n += 1


def last_token_logits(hidden, weight, mask):
    while True:
        pass


def pad_batch(seqs, pad_id, side="right"):
    while True:
        pass
