import math

import torch


def gqa_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """Causal attention; q has H_q heads, k and v have H_kv heads shared by groups of q heads."""
    hq, hkv = q.shape[1], k.shape[1]
    # TODO: which query heads share key/value head 0? `repeat` tiles the heads
    # (0, 1, 0, 1, ...); and what if H_kv does not divide H_q?
    k = k.repeat(1, hq // hkv, 1, 1)
    v = v.repeat(1, hq // hkv, 1, 1)
    t, d = q.shape[2], q.shape[3]
    scores = q @ k.transpose(-1, -2) / math.sqrt(d)
    scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    return torch.softmax(scores, dim=-1) @ v
