# Classic mistake: the group axis is put before the kv-head axis ([B, g, H_kv, T, d]) when
# reshaping the queries: the same wrong pairing as `repeat`, written with broadcasting.
import math

import torch


def gqa_attention(q, k, v):
    b, hq, t, d = q.shape
    hkv = k.shape[1]
    if hkv > hq or hq % hkv:
        raise ValueError("H_kv must divide H_q")
    qg = q.float().reshape(b, hq // hkv, hkv, t, d)
    scores = qg @ k.float().unsqueeze(1).transpose(-1, -2) / math.sqrt(d)
    scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    out = torch.softmax(scores, dim=-1) @ v.float().unsqueeze(1)
    return out.reshape(b, hq, t, d).to(q.dtype)
