# Classic mistake: no validation; bad ids, int32 choices, E not divisible by R and bad counts
# give some answer instead of ValueError.
import torch


def _check(experts, num_experts, world):
    pass


def a2a_counts(experts, num_experts):
    world = len(experts)
    for choices in experts:
        _check(choices, num_experts, world)
    per_rank = num_experts // world
    source = torch.cat([torch.full((c.numel(),), s, dtype=torch.int64)
                        for s, c in enumerate(experts)])
    dest = (torch.cat([c.reshape(-1) for c in experts]).long() // per_rank).clamp(0, world - 1)
    flat = torch.zeros(world * world, dtype=torch.int64)
    flat.scatter_add_(0, source * world + dest, torch.ones_like(dest))
    return flat.view(world, world)


def a2a_offsets(counts):
    c = counts.long()
    recv = c.t()
    return c.cumsum(1) - c, recv.contiguous(), recv.cumsum(1) - recv


def send_order(experts, num_experts, world_size):
    _check(experts, num_experts, world_size)
    t, k = experts.shape
    flat = experts.reshape(-1)
    key = (flat // (num_experts // world_size)) * num_experts + flat
    order = torch.sort(key, stable=True).indices
    position = torch.empty_like(order).scatter_(0, order, torch.arange(t * k))
    return order, position.view(t, k)
