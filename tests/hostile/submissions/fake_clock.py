"""Correct answers, but it rewinds the clock the runner times it with (the runner's own saved
perf_counter_ns, found through gc, and the time module) by 99% of each of its calls, so its
reported times look 100x faster. Expected: AC, with a benchmark that is either not verified
or shows no such speedup."""

import gc
import sys
import time

import torch

_real = time.perf_counter_ns
_state = {"offset": 0, "patched": False}


def _fake_ns():
    return _real() - _state["offset"]


def _patch():
    _state["patched"] = True
    time.perf_counter_ns = _fake_ns
    time.perf_counter = lambda: _fake_ns() / 1e9
    for module in list(sys.modules.values()):
        if getattr(module, "perf_counter_ns", None) is _real:
            module.perf_counter_ns = _fake_ns
    for obj in gc.get_objects():
        try:
            if type(obj).__name__ == "Runner" or getattr(obj, "perf_counter_ns", None) is _real:
                obj.perf_counter_ns = _fake_ns
        except Exception:
            pass


def _rewound(fn, *args):
    if not _state["patched"]:
        _patch()
    t0 = _real()
    out = fn(*args)
    _state["offset"] += int((_real() - t0) * 0.99)
    return out


def _embed(ids, weight, pad_id):
    is_pad = ids == pad_id
    bad = ~is_pad & ((ids < 0) | (ids >= weight.shape[0]))
    if bool(bad.any()):
        raise IndexError("id out of range")
    rows = weight[torch.where(is_pad, torch.zeros_like(ids), ids)]
    return torch.where(is_pad.unsqueeze(-1), torch.zeros((), dtype=weight.dtype), rows)


def _last_token_logits(hidden, weight, mask):
    t = mask.shape[1]
    last = t - 1 - torch.flip(mask.to(torch.int64), dims=[1]).argmax(dim=1)
    return hidden[torch.arange(hidden.shape[0]), last] @ weight.T


def pad_batch(seqs, pad_id, side="right"):
    if side not in ("right", "left"):
        raise ValueError(f"side must be right or left, not {side!r}")
    t = max((len(s) for s in seqs), default=0)
    ids = torch.full((len(seqs), t), pad_id, dtype=torch.int64)
    mask = torch.zeros((len(seqs), t), dtype=torch.bool)
    for i, s in enumerate(seqs):
        if not s:
            continue
        cols = slice(0, len(s)) if side == "right" else slice(t - len(s), t)
        ids[i, cols] = torch.tensor(s, dtype=torch.int64)
        mask[i, cols] = True
    return ids, mask


def embed(ids, weight, pad_id):
    return _rewound(_embed, ids, weight, pad_id)


def last_token_logits(hidden, weight, mask):
    return _rewound(_last_token_logits, hidden, weight, mask)
