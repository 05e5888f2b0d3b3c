"""Reads environment variables (its own and every readable process's). Expected: RE whose
message lists only harmless names."""
import os


def _look():
    names = set(os.environ)
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    names.update(e.split(b"=", 1)[0].decode() for e in f.read().split(b"\0") if e)
            except OSError:
                pass
    raise RuntimeError(f"env={sorted(names)}")


def embed(ids, weight, pad_id):
    _look()


def last_token_logits(hidden, weight, mask):
    _look()


def pad_batch(seqs, pad_id, side="right"):
    _look()
