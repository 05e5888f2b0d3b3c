# Correct: copies each key/value head g times in place (0, 0, 1, 1, ...), then plain attention.
import math

import torch


def gqa_attention(q, k, v):
    hq, hkv = q.shape[1], k.shape[1]
    if hkv > hq or hq % hkv:
        raise ValueError("H_kv must divide H_q")
    k = k.float().repeat_interleave(hq // hkv, dim=1)
    v = v.float().repeat_interleave(hq // hkv, dim=1)
    t, d = q.shape[2], q.shape[3]
    scores = q.float() @ k.transpose(-1, -2) / math.sqrt(d)
    scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v).to(q.dtype)
