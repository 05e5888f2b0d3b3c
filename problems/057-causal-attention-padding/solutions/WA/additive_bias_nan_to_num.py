# Subtle mistake: an additive mask (0 or -inf added to the scores), a softmax that gives NaN
# for queries seeing no key, and nan_to_num to hide it. The values are right, but the backward
# pass goes through the addition: the gradients of q and k are NaN.
import math

import torch


def causal_attention(q, k, v, key_padding_mask=None):
    t, d = q.shape[-2], q.shape[-1]
    allowed = torch.ones(t, t, dtype=torch.bool).tril()
    if key_padding_mask is not None:
        allowed = allowed & key_padding_mask[:, None, None, :]
    bias = torch.zeros(allowed.shape).masked_fill(~allowed, float("-inf"))
    scores = q.float() @ k.float().transpose(-1, -2) / math.sqrt(d) + bias
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1), nan=0.0)
    return (weights @ v.float()).to(q.dtype)
