# Mistake: makes the ids at least 1-D to keep the lookup simple (torch.atleast_1d) and returns
# that shape, so a 0-d id comes back as a [1, d] row instead of a [d] vector.
import torch


def vp_embed(ids, shards):
    ids = torch.atleast_1d(ids)
    total = sum(s.shape[0] for s in shards)
    if ((ids < 0) | (ids >= total)).any():
        raise IndexError("id out of range")
    out, start = None, 0
    for shard in shards:
        local = ids - start
        own = (local >= 0) & (local < shard.shape[0])
        part = shard[torch.where(own, local, 0)] * own.unsqueeze(-1).to(shard.dtype)
        out = part if out is None else out + part
        start += shard.shape[0]
    return out


def vp_argmax_logprob(hidden, shards, targets):
    if ((targets < 0) | (targets >= sum(s.shape[0] for s in shards))).any():
        raise IndexError("target out of range")
    ms, args, ss, tl = [], [], [], torch.zeros(hidden.shape[0])
    start = 0
    for shard in shards:
        z = hidden @ shard.T
        m, a = z.max(dim=1)
        ms.append(m)
        args.append(a + start)
        ss.append(torch.exp(z - m[:, None]).sum(dim=1))
        own = (targets >= start) & (targets < start + shard.shape[0])
        idx = torch.where(own, targets - start, 0)
        tl = tl + torch.where(own, z.gather(1, idx[:, None])[:, 0], 0.0)
        start += shard.shape[0]
    m = torch.stack(ms)
    best = m.max(dim=0).values
    winner = torch.argmax((m == best).int(), dim=0)
    total = (torch.stack(ss) * torch.exp(m - best)).sum(dim=0)
    return torch.stack(args)[winner, torch.arange(hidden.shape[0])], tl - best - torch.log(total)
