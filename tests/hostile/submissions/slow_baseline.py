"""Correct answers at the baseline's own speed, but it slows the baseline down once loaded:
the runner's baseline functions (found through gc) are wrapped to sleep 40% of their own
time, under the 1.5x at which a loaded baseline is disbelieved. Expected: AC, and a verified
speedup near 1, not 1.4 (the baseline figure is never above the one timed clean)."""


import torch


def embed(ids, weight, pad_id):
    is_pad = ids == pad_id
    bad = ~is_pad & ((ids < 0) | (ids >= weight.shape[0]))
    if bool(bad.any()):
        raise IndexError("id out of range")
    rows = weight[torch.where(is_pad, torch.zeros_like(ids), ids)]
    return torch.where(is_pad.unsqueeze(-1), torch.zeros((), dtype=weight.dtype), rows)


def last_token_logits(hidden, weight, mask):
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


import gc
import time


def _slow(fn):
    def slowed(*args):
        t0 = time.perf_counter()
        out = fn(*args)
        time.sleep(0.4 * (time.perf_counter() - t0))
        return out

    return slowed


for _obj in gc.get_objects():
    try:
        _baselines = getattr(_obj, "baselines", None)
    except Exception:
        continue
    if type(_baselines) is dict and _baselines and getattr(_obj, "functions", None) is not None:
        for _name in list(_baselines):
            _baselines[_name] = _slow(_baselines[_name])
