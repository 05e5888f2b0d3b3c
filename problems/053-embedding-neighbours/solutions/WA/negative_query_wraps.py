# Mistake: checks only the upper end of the query ids; -1 then indexes the last row of the
# table (Python-style wrapping) and returns its neighbours instead of raising IndexError.
import torch
import torch.nn.functional as F


def nearest_neighbours(weight, token_ids, k):
    v = weight.shape[0]
    if k < 1 or k > v - 1:
        raise ValueError("bad k")
    if (token_ids >= v).any():
        raise IndexError("bad token")
    unit = F.normalize(weight.float(), dim=1)
    sims = unit[token_ids] @ unit.T
    sims[torch.arange(len(token_ids)), token_ids] = float("-inf")
    values, indices = sims.topk(k, dim=1)
    return indices, values
