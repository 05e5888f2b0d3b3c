# Classic mistake: -1e9 instead of -inf avoids NaN, but a query that sees no key then gets
# equal weights on every key (masked ones included): the mean of all values, not zeros.
import math

import torch


def causal_attention(q, k, v, key_padding_mask=None):
    t, d = q.shape[-2], q.shape[-1]
    allowed = torch.ones(t, t, dtype=torch.bool).tril()
    if key_padding_mask is not None:
        allowed = allowed & key_padding_mask[:, None, None, :]
    scores = q.float() @ k.float().transpose(-1, -2) / math.sqrt(d)
    scores = scores.masked_fill(~allowed, -1e9)
    return (torch.softmax(scores, dim=-1) @ v.float()).to(q.dtype)
