# A student's correct solution: query heads viewed as [B, H_kv, g, T, d]; K and V get a size-1
# group axis and broadcast, so they are never copied.
import math

import torch


def gqa_attention(q, k, v):
    b, hq, t, d = q.shape
    hkv = k.shape[1]
    if hq % hkv != 0:
        raise ValueError("H_kv must divide H_q")
    qg = q.float().reshape(b, hkv, hq // hkv, t, d)
    scores = qg @ k.float().unsqueeze(2).transpose(-1, -2) / math.sqrt(d)
    scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v.float().unsqueeze(2)
    return out.reshape(b, hq, t, d).to(q.dtype)
