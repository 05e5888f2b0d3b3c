# Correct but slow: the priority rule as two nested loops, dispatch and combine token by
# token.
import torch


def assign_slots(experts, num_experts, capacity):
    if experts.dim() != 2 or experts.dtype != torch.int64:
        raise ValueError("experts must be int64 [T, k]")
    if capacity < 0 or num_experts < 1:
        raise ValueError("bad capacity or num_experts")
    if experts.numel() and (experts.min() < 0 or experts.max() >= num_experts):
        raise ValueError("expert id out of range")
    t, k = experts.shape
    used = [0] * num_experts
    slots = torch.full((t, k), -1, dtype=torch.int64)
    for j in range(k):
        for i in range(t):
            e = int(experts[i, j])
            if used[e] < capacity:
                slots[i, j] = used[e]
            used[e] += 1
    return slots


def moe_dispatch(x, experts, slots, num_experts, capacity):
    if experts.shape != slots.shape or experts.dim() != 2 or experts.shape[0] != x.shape[0]:
        raise ValueError("experts and slots must be [T, k]")
    kept = slots >= 0
    tokens = torch.arange(x.shape[0])[:, None].expand_as(slots)[kept]
    flat = x.new_zeros(num_experts * capacity, x.shape[1])
    flat = flat.index_put((experts[kept] * capacity + slots[kept],), x[tokens])
    return flat.reshape(num_experts, capacity, x.shape[1])


def moe_combine(expert_out, experts, slots, weights):
    if experts.shape != slots.shape or weights.shape != slots.shape:
        raise ValueError("experts, slots and weights must have one shape")
    out = []
    for i in range(experts.shape[0]):
        acc = torch.zeros(expert_out.shape[-1])
        for j in range(experts.shape[1]):
            if slots[i, j] >= 0:
                acc = acc + weights[i, j].float() * expert_out[experts[i, j], slots[i, j]].float()
        out.append(acc)
    if not out:
        return expert_out.new_zeros(0, expert_out.shape[-1])
    return torch.stack(out).to(expert_out.dtype)
