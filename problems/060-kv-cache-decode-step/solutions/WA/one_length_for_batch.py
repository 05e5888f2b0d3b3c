# Classic mistake: treats the batch as if every row had the longest row's length (one mask
# for all rows): short rows attend stale slots.
import math

import torch


def decode_step(q, k_new, v_new, k_cache, v_cache, lengths):
    b, h, s, d = k_cache.shape
    if (lengths < 0).any() or (lengths >= s).any():
        raise IndexError("no free slot in the cache")
    k_cache, v_cache = k_cache.clone(), v_cache.clone()
    rows = torch.arange(b)
    k_cache[rows, :, lengths] = k_new
    v_cache[rows, :, lengths] = v_new
    n = int(lengths.max())
    keys, values = k_cache[:, :, : n + 1].float(), v_cache[:, :, : n + 1].float()
    scores = torch.einsum("bhd,bhsd->bhs", q.float(), keys) / math.sqrt(d)
    out = torch.einsum("bhs,bhsd->bhd", torch.softmax(scores, dim=-1), values)
    return out.to(q.dtype), k_cache, v_cache, lengths + 1
