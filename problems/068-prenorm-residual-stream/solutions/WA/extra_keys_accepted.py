# Wrong: checks that every needed weight key is present but not that there are no others, so a
# weight dict with an extra key is accepted instead of raising ValueError ("exactly the keys").
import math

import torch

KEYS = {"attn_norm", "mlp_norm", "wq", "wk", "wv", "wo", "w_gate", "w_up", "w_down"}


def _check(x, p, n_heads):
    b, t, d = x.shape
    if not KEYS <= set(p) or n_heads < 1 or d % n_heads:
        raise ValueError("bad weights or heads")
    f = p["w_gate"].shape[0]
    shapes = {"attn_norm": (d,), "mlp_norm": (d,), "wq": (d, d), "wk": (d, d), "wv": (d, d),
              "wo": (d, d), "w_gate": (f, d), "w_up": (f, d), "w_down": (d, f)}
    for key, shape in shapes.items():
        if tuple(p[key].shape) != shape:
            raise ValueError(key)


def _rms(z, w, eps):
    return z * torch.rsqrt(z.pow(2).mean(dim=-1, keepdim=True) + eps) * w


def _attention(n, p, n_heads):
    b, t, d = n.shape
    dh = d // n_heads
    q, k, v = ((n @ p[key].T).reshape(b, t, n_heads, dh).transpose(1, 2) for key in ("wq", "wk", "wv"))
    scores = q @ k.transpose(-1, -2) / math.sqrt(dh)
    scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, t, d) @ p["wo"].T


def _mlp(n, p):
    return (torch.nn.functional.silu(n @ p["w_gate"].T) * (n @ p["w_up"].T)) @ p["w_down"].T


def prenorm_block(x, weights, n_heads, eps=1e-6):
    _check(x, weights, n_heads)
    h = x + _attention(_rms(x, weights["attn_norm"], eps), weights, n_heads)
    return h + _mlp(_rms(h, weights["mlp_norm"], eps), weights)


def residual_stream(x, layers, final_norm, n_heads, eps=1e-6):
    if tuple(final_norm.shape) != (x.shape[-1],):
        raise ValueError("final_norm must be [d]")
    streams = [x]
    for p in layers:
        streams.append(prenorm_block(streams[-1], p, n_heads, eps))
    return _rms(streams[-1], final_norm, eps), torch.stack(streams)
