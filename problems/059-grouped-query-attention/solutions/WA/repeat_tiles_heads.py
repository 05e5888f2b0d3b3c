# Classic mistake: `repeat` tiles the key/value heads (0, 1, 0, 1, ...): query head h reads
# head h % H_kv instead of h // g. Right only when H_kv is 1 or H_q.
import math

import torch


def gqa_attention(q, k, v):
    hq, hkv = q.shape[1], k.shape[1]
    if hkv > hq or hq % hkv:
        raise ValueError("H_kv must divide H_q")
    k = k.float().repeat(1, hq // hkv, 1, 1)
    v = v.float().repeat(1, hq // hkv, 1, 1)
    t, d = q.shape[2], q.shape[3]
    scores = q.float() @ k.transpose(-1, -2) / math.sqrt(d)
    scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v).to(q.dtype)
