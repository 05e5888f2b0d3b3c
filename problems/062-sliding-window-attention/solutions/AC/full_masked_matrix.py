# Correct, slow for long sequences: the full [T, T] scores with a band mask.
import math

import torch


def sliding_window_attention(q, k, v, window):
    if window < 1:
        raise ValueError("window must be >= 1")
    t, d = q.shape[-2], q.shape[-1]
    i = torch.arange(t)[:, None]
    j = torch.arange(t)[None, :]
    keep = (j <= i) & (i - j < window)
    scores = q.float() @ k.float().transpose(-1, -2) / math.sqrt(d)
    return (torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1) @ v.float()).to(q.dtype)
