# Accepted (the statement says so): reruns the forward pass under autograd and asks it for the
# gradients. Right values, but no formula written: no use inside a fused kernel.
import math

import torch


def attention_backward(q, k, v, grad_out, causal=False):
    t, s, d = q.shape[-2], k.shape[-2], q.shape[-1]
    if causal and t != s:
        raise ValueError("causal needs T == S")
    with torch.enable_grad():
        qf, kf, vf = (x.detach().float().requires_grad_(True) for x in (q, k, v))
        scores = qf @ kf.transpose(-1, -2) / math.sqrt(d)
        if causal:
            scores = scores.masked_fill(~torch.ones(t, s, dtype=torch.bool).tril(), float("-inf"))
        out = torch.softmax(scores, dim=-1) @ vf
        dq, dk, dv = torch.autograd.grad(out, (qf, kf, vf), grad_out.float())
    return dq.to(q.dtype), dk.to(k.dtype), dv.to(v.dtype)
