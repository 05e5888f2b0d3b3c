# Runtime error: the id check calls .max() on every rank's choices, which raises on a rank
# without tokens (a max of no elements).
import torch


def _check(experts, num_experts, world):
    if world < 1 or num_experts < 1 or num_experts % world:
        raise ValueError("num_experts must be a positive multiple of the number of ranks")
    if not isinstance(experts, torch.Tensor) or experts.dim() != 2 or experts.dtype != torch.int64:
        raise ValueError("experts must be int64 [T, k]")
    if experts.min() < 0 or experts.max() >= num_experts:
        raise ValueError("expert id out of range")


def a2a_counts(experts, num_experts):
    world = len(experts)
    for choices in experts:
        _check(choices, num_experts, world)
    per_rank = num_experts // world
    counts = torch.zeros(world, world, dtype=torch.int64)
    for s, choices in enumerate(experts):
        counts[s] = torch.bincount(choices.reshape(-1) // per_rank, minlength=world)
    return counts


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
    order = torch.sort(experts.reshape(-1), stable=True).indices
    position = torch.empty_like(order).scatter_(0, order, torch.arange(t * k))
    return order, position.view(t, k)
