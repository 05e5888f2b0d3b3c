# Classic mistake: -inf for every disallowed score and a plain softmax: a query that sees no
# key divides 0 by 0 and returns NaN.
import math

import torch


def causal_attention(q, k, v, key_padding_mask=None):
    t, d = q.shape[-2], q.shape[-1]
    allowed = torch.ones(t, t, dtype=torch.bool).tril()
    if key_padding_mask is not None:
        allowed = allowed & key_padding_mask[:, None, None, :]
    scores = q.float() @ k.float().transpose(-1, -2) / math.sqrt(d)
    scores = scores.masked_fill(~allowed, float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v.float()).to(q.dtype)
