# A student's correct solution: blocks of 256 queries; for each, blocks of 512 keys with a
# running max, sum and accumulator; key blocks above the diagonal are skipped when causal.
import math

import torch


def flash_attention(q, k, v, causal=False):
    b, h, t, d = q.shape
    s = k.shape[2]
    if causal and t != s:
        raise ValueError("causal needs T == S")
    out = torch.empty_like(q)
    lse = torch.empty(b, h, t)
    for qs in range(0, t, 256):
        qb = q[:, :, qs:qs + 256] / math.sqrt(d)
        n = qb.shape[2]
        m = torch.full((b, h, n, 1), float("-inf"))
        l = torch.zeros(b, h, n, 1)
        acc = torch.zeros(b, h, n, d)
        stop = min(qs + n, s) if causal else s
        for ks in range(0, stop, 512):
            sc = qb @ k[:, :, ks:min(ks + 512, stop)].transpose(-1, -2)
            if causal:
                i = torch.arange(qs, qs + n)[:, None]
                j = torch.arange(ks, ks + sc.shape[-1])[None, :]
                sc = sc.masked_fill(j > i, float("-inf"))
            m_new = torch.maximum(m, sc.amax(dim=-1, keepdim=True))
            p = torch.exp(sc - m_new)
            corr = torch.exp(m - m_new)
            l = l * corr + p.sum(dim=-1, keepdim=True)
            acc = acc * corr + p @ v[:, :, ks:ks + sc.shape[-1]]
            m = m_new
        out[:, :, qs:qs + n] = acc / l
        lse[:, :, qs:qs + n] = (m + torch.log(l))[..., 0]
    return out, lse
