# Correct but slow: row by row, shard by shard, in Python floats.
import math

import torch


def vp_embed(ids, shards):
    starts, total = [], 0
    for s in shards:
        starts.append(total)
        total += s.shape[0]
    rows = []
    for i in ids.reshape(-1).tolist():
        if not 0 <= i < total:
            raise IndexError(i)
        k = max(j for j, st in enumerate(starts) if st <= i)
        rows.append(shards[k][i - starts[k]])
    d = shards[0].shape[1]
    if not rows:
        return torch.zeros(*ids.shape, d, dtype=shards[0].dtype)
    return torch.stack(rows).reshape(*ids.shape, d)


def vp_argmax_logprob(hidden, shards, targets):
    best_ids, logps = [], []
    vocab = sum(s.shape[0] for s in shards)
    for n in range(hidden.shape[0]):
        if not 0 <= int(targets[n]) < vocab:
            raise IndexError("target out of range")
        logits = torch.cat([shard @ hidden[n] for shard in shards]).tolist()
        m = max(logits)
        best_ids.append(logits.index(m))
        logps.append(logits[int(targets[n])] - m - math.log(sum(math.exp(z - m) for z in logits)))
    return torch.tensor(best_ids, dtype=torch.int64), torch.tensor(logps, dtype=torch.float32)
