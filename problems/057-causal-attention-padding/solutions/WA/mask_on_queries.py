# Classic mistake: the padding mask is broadcast along the query axis instead of the key axis
# ([B, 1, T, 1] instead of [B, 1, 1, T]): padded queries are zeroed, padded keys still count.
import math

import torch


def causal_attention(q, k, v, key_padding_mask=None):
    t, d = q.shape[-2], q.shape[-1]
    allowed = torch.ones(t, t, dtype=torch.bool).tril()
    if key_padding_mask is not None:
        allowed = allowed & key_padding_mask[:, None, :, None]
    sees_something = allowed.any(dim=-1, keepdim=True)
    scores = q.float() @ k.float().transpose(-1, -2) / math.sqrt(d)
    scores = scores.masked_fill(~allowed, float("-inf"))
    scores = torch.where(sees_something, scores, 0.0)
    weights = torch.softmax(scores, dim=-1) * sees_something
    return (weights @ v.float()).to(q.dtype)
