import torch


def vp_embed(ids: torch.Tensor, shards: list[torch.Tensor]) -> torch.Tensor:
    """Sum over shards of each shard's masked local lookup; IndexError for an unowned id."""
    out = 0
    start = 0
    for shard in shards:
        local = (ids - start).clamp(0, shard.shape[0] - 1)
        # TODO: ids this shard does not own must contribute zeros, not a clamped row.
        out = out + shard[local]
        start += shard.shape[0]
    return out


def vp_argmax_logprob(hidden: torch.Tensor, shards: list[torch.Tensor],
                      targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(greedy token [N] int64, log p(target) [N] float32) from per-shard statistics."""
    maxima, argmaxes, sums, target_logit = [], [], [], torch.zeros(hidden.shape[0])
    start = 0
    for shard in shards:
        logits = hidden @ shard.T
        m, a = logits.max(dim=1)
        maxima.append(m)
        argmaxes.append(a)  # TODO: a local index; which global token is it?
        sums.append(torch.exp(logits - m[:, None]).sum(dim=1))
        owned = (targets >= start) & (targets < start + shard.shape[0])
        local = (targets - start).clamp(0, shard.shape[0] - 1)
        target_logit += torch.where(owned, logits.gather(1, local[:, None])[:, 0], 0.0)
        start += shard.shape[0]
    m = torch.stack(maxima)
    best, winner = m.max(dim=0)
    # TODO: each shard's sum is relative to its own maximum; rescale before adding.
    lse = best + torch.log(torch.stack(sums).sum(dim=0))
    return torch.stack(argmaxes).gather(0, winner[None])[0], target_logit - lse
