# Correct but slow: one query at a time, cosine against the whole table.
import torch


def nearest_neighbours(weight, token_ids, k):
    v = weight.shape[0]
    if not 1 <= k < v:
        raise ValueError("bad k")
    w = weight.float()
    norms = w.norm(dim=1)
    ids, sims = [], []
    for t in token_ids.tolist():
        if not 0 <= t < v:
            raise IndexError(t)
        cos = (w @ w[t]) / (norms * norms[t]).clamp_min(1e-12)
        cos[t] = -2.0
        order = torch.argsort(cos, descending=True)[:k]
        ids.append(order)
        sims.append(cos[order])
    if not ids:
        return torch.zeros(0, k, dtype=torch.int64), torch.zeros(0, k)
    return torch.stack(ids), torch.stack(sims)
