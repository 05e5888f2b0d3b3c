# Correct, simpler: chunks of 128 queries against all keys with an ordinary softmax: a
# [128, S] block of scores at a time (8 MiB at S = 16384), never the whole [T, S].
import math

import torch


def flash_attention(q, k, v, causal=False):
    t, s, d = q.shape[2], k.shape[2], q.shape[3]
    if causal and t != s:
        raise ValueError("causal needs T == S")
    outs, lses = [], []
    for qs in range(0, t, 128):
        stop = min(qs + 128, t) if causal else s
        sc = q[:, :, qs:qs + 128] @ k[:, :, :stop].transpose(-1, -2) / math.sqrt(d)
        if causal:
            i = torch.arange(qs, qs + sc.shape[2])[:, None]
            sc = sc.masked_fill(torch.arange(stop)[None, :] > i, float("-inf"))
        lses.append(torch.logsumexp(sc, dim=-1))
        outs.append(torch.softmax(sc, dim=-1) @ v[:, :, :stop])
    return torch.cat(outs, dim=2), torch.cat(lses, dim=2)
