"""Patches comparison and time functions to say 'equal' and 'instant', returns zeros.
Expected: WA (the comparison happens outside this process)."""
import time

import numpy
import torch

torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.isclose = lambda a, b, *r, **k: torch.ones_like(a, dtype=torch.bool)
torch.testing.assert_close = lambda *a, **k: None
torch.Tensor.__eq__ = lambda self, other: torch.ones_like(self, dtype=torch.bool)
numpy.allclose = lambda *a, **k: True
numpy.array_equal = lambda *a, **k: True
numpy.testing.assert_allclose = lambda *a, **k: None
time.perf_counter = lambda: 0.0
time.perf_counter_ns = lambda: 0
time.time = lambda: 0.0
time.monotonic = lambda: 0.0


def embed(ids, weight, pad_id):
    return torch.zeros(ids.shape + (weight.shape[1],), dtype=weight.dtype)


def last_token_logits(hidden, weight, mask):
    return torch.zeros(hidden.shape[0], weight.shape[0], dtype=hidden.dtype)


def pad_batch(seqs, pad_id, side="right"):
    t = max((len(s) for s in seqs), default=0)
    return torch.zeros(len(seqs), t, dtype=torch.int64), torch.zeros(len(seqs), t, dtype=torch.bool)
