# Classic mistake: dV = P dO instead of P^T dO (the shapes agree when T == S, the values do
# not; with T != S it fails).
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
    dv = (p @ go) if t == s else p.transpose(-1, -2) @ go[..., :s, :]
    dp = go @ vf.transpose(-1, -2)
    ds = p * (dp - (go * o).sum(dim=-1, keepdim=True))
    return (ds @ kf * c).to(q.dtype), (ds.transpose(-1, -2) @ qf * c).to(k.dtype), dv.to(v.dtype)
