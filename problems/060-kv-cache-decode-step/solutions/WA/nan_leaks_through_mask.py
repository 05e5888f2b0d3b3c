# Subtle mistake: masks with an additive -inf bias and a product with the weights. Right while
# stale slots hold finite values; a NaN there gives NaN + (-inf) = NaN and 0 * NaN = NaN.
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
    valid = torch.arange(s)[None, :] <= lengths[:, None]
    bias = torch.zeros(b, 1, s).masked_fill(~valid[:, None, :], float("-inf"))
    scores = torch.einsum("bhd,bhsd->bhs", q.float(), k_cache.float()) / math.sqrt(d) + bias
    out = torch.einsum("bhs,bhsd->bhd", torch.softmax(scores, dim=-1), v_cache.float())
    return out.to(q.dtype), k_cache, v_cache, lengths + 1
