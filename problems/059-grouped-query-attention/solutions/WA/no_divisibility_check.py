# Mistake: no check that H_kv divides H_q: a bad head count fails later with a RuntimeError
# from the matrix product (or silently drops heads), not the ValueError the statement asks for.
import math

import torch


def gqa_attention(q, k, v):
    hq, hkv = q.shape[1], k.shape[1]
    k = k.float().repeat_interleave(max(hq // hkv, 1), dim=1)
    v = v.float().repeat_interleave(max(hq // hkv, 1), dim=1)
    t, d = q.shape[2], q.shape[3]
    scores = q.float() @ k.transpose(-1, -2) / math.sqrt(d)
    scores = scores.masked_fill(~torch.ones(t, t, dtype=torch.bool).tril(), float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v).to(q.dtype)
