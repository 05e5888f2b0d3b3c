# Classic mistake: the scale 1/sqrt(d) of the scores is left out of dK (dQ has it).
import math

import torch


def attention_backward(q, k, v, grad_out, causal=False):
    t, s, d = q.shape[-2], k.shape[-2], q.shape[-1]
    if causal and t != s:
        raise ValueError("causal needs T == S")
    c = 1.0 / math.sqrt(d)
    qf, kf, vf, go = q.float(), k.float(), v.float(), grad_out.float()
    scores = qf @ kf.transpose(-1, -2) * c
    if causal:
        scores = scores.masked_fill(~torch.ones(t, s, dtype=torch.bool).tril(), float("-inf"))
    p = torch.softmax(scores, dim=-1)
    o = p @ vf
    dv = p.transpose(-1, -2) @ go
    dp = go @ vf.transpose(-1, -2)
    ds = p * (dp - (go * o).sum(dim=-1, keepdim=True))
    return (ds @ kf * c).to(q.dtype), (ds.transpose(-1, -2) @ qf).to(k.dtype), dv.to(v.dtype)
