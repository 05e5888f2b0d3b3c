# Mistake: never checks the window: window 0 masks every key and returns NaN instead of
# raising ValueError.
import math

import torch


def sliding_window_attention(q, k, v, window):
    t, d = q.shape[-2], q.shape[-1]
    i = torch.arange(t)[:, None]
    j = torch.arange(t)[None, :]
    keep = (j <= i) & (i - j < window)
    scores = q.float() @ k.float().transpose(-1, -2) / math.sqrt(d)
    return (torch.softmax(scores.masked_fill(~keep, float("-inf")), dim=-1) @ v.float()).to(q.dtype)
