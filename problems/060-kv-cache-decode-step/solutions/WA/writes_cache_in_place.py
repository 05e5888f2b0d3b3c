# Mistake here (though it is what a server does): writes into the caller's caches in place
# and returns them. The statement asks for copies; the judge sees the inputs modified.
import math

import torch


def decode_step(q, k_new, v_new, k_cache, v_cache, lengths):
    b, h, s, d = k_cache.shape
    if (lengths < 0).any() or (lengths >= s).any():
        raise IndexError("no free slot in the cache")
    rows = torch.arange(b)
    k_cache[rows, :, lengths] = k_new
    v_cache[rows, :, lengths] = v_new
    valid = (torch.arange(s)[None, :] <= lengths[:, None])[:, None, :]
    keys = torch.where(valid[..., None], k_cache.float(), 0.0)
    values = torch.where(valid[..., None], v_cache.float(), 0.0)
    scores = torch.einsum("bhd,bhsd->bhs", q.float(), keys) / math.sqrt(d)
    weights = torch.softmax(scores.masked_fill(~valid, float("-inf")), dim=-1)
    out = torch.einsum("bhs,bhsd->bhd", weights, values)
    return out.to(q.dtype), k_cache, v_cache, lengths + 1
