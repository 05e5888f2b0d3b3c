# Correct, slower: one batch row at a time, attending only the slots that row uses.
import math

import torch


def decode_step(q, k_new, v_new, k_cache, v_cache, lengths):
    s, d = k_cache.shape[2], k_cache.shape[3]
    k_cache, v_cache = k_cache.clone(), v_cache.clone()
    outs = []
    for b in range(q.shape[0]):
        n = int(lengths[b])
        if n < 0 or n >= s:
            raise IndexError(f"row {b}: no free slot")
        k_cache[b, :, n] = k_new[b]
        v_cache[b, :, n] = v_new[b]
        keys, values = k_cache[b, :, : n + 1].float(), v_cache[b, :, : n + 1].float()
        scores = (keys @ q[b].float()[:, :, None])[:, :, 0] / math.sqrt(d)  # [H, n + 1]
        outs.append((torch.softmax(scores, dim=-1)[:, None, :] @ values)[:, 0])
    return torch.stack(outs).to(q.dtype), k_cache, v_cache, lengths + 1
