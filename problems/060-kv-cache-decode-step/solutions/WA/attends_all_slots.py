# Classic mistake: appends correctly but attends every slot of the cache, so the stale
# values past each row's length get weight too.
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
    scores = torch.einsum("bhd,bhsd->bhs", q.float(), k_cache.float()) / math.sqrt(d)
    out = torch.einsum("bhs,bhsd->bhd", torch.softmax(scores, dim=-1), v_cache.float())
    return out.to(q.dtype), k_cache, v_cache, lengths + 1
