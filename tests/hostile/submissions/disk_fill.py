"""Fills /tmp (the only writable place) until the disk is full. Expected: not AC (RE)."""
import os


def _fill():
    block = b"\0" * (1 << 20)
    n = 0
    while True:  # raises OSError (ENOSPC) when the tmpfs is full
        with open(os.path.join("/tmp", f"fill-{n}"), "wb") as f:
            for _ in range(16):
                f.write(block)
        n += 1


def embed(ids, weight, pad_id):
    _fill()


def last_token_logits(hidden, weight, mask):
    _fill()


def pad_batch(seqs, pad_id, side="right"):
    _fill()
