# Wrong: checks that the ranks divide num_experts but not that num_experts is positive, so
# num_experts = 0 (0 % R == 0) is accepted when no token names an expert, instead of raising
# ValueError.
import torch


def _check(experts, num_experts, world):
    if world < 1 or num_experts % world:
        raise ValueError("num_experts must be a positive multiple of the number of ranks")
    if not isinstance(experts, torch.Tensor) or experts.dim() != 2 or experts.dtype != torch.int64:
        raise ValueError("experts must be int64 [T, k]")
    if experts.numel() and (experts.min() < 0 or experts.max() >= num_experts):
        raise ValueError("expert id out of range")


def a2a_counts(experts, num_experts):
    world = len(experts)
    for choices in experts:
        _check(choices, num_experts, world)
    per_rank = num_experts // world
    source = torch.cat([torch.full((c.numel(),), s, dtype=torch.int64)
                        for s, c in enumerate(experts)])
    dest = torch.cat([c.reshape(-1) for c in experts]) // per_rank
    flat = torch.zeros(world * world, dtype=torch.int64)
    flat.scatter_add_(0, source * world + dest, torch.ones_like(dest))
    return flat.view(world, world)


def a2a_offsets(counts):
    if counts.dim() != 2 or counts.shape[0] != counts.shape[1]:
        raise ValueError("counts must be [R, R]")
    if (counts < 0).any():
        raise ValueError("negative count")
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
