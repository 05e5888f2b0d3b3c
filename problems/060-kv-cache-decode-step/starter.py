import math

import torch


def decode_step(q, k_new, v_new, k_cache, v_cache, lengths):
    """(out [B, H, d], k_cache', v_cache', lengths + 1) for one new token per row."""
    k_cache, v_cache = k_cache.clone(), v_cache.clone()
    for b in range(q.shape[0]):
        n = int(lengths[b])
        k_cache[b, :, n] = k_new[b]
        v_cache[b, :, n] = v_new[b]
    # TODO: this attends over every slot of the cache, including slots past each row's
    # length that hold stale values (and rows with a full cache are not refused).
    scores = torch.einsum("bhd,bhsd->bhs", q, k_cache) / math.sqrt(q.shape[-1])
    out = torch.einsum("bhs,bhsd->bhd", torch.softmax(scores, dim=-1), v_cache)
    return out, k_cache, v_cache, lengths + 1
