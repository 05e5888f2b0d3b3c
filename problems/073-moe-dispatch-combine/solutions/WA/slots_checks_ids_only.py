# Wrong: assign_slots checks the expert ids and the capacity but neither the ids' dtype nor
# num_experts, so int32 ids fail inside one_hot and num_experts = 0 is accepted when there
# are no tokens, instead of raising ValueError.
import torch


def assign_slots(experts, num_experts, capacity):
    if experts.dim() != 2:
        raise ValueError("experts must be [T, k]")
    if capacity < 0:
        raise ValueError("bad capacity or num_experts")
    if experts.numel() and (experts.min() < 0 or experts.max() >= num_experts):
        raise ValueError("expert id out of range")
    t, k = experts.shape
    claims = experts.t().reshape(-1)  # first choices of every token, then second choices, ...
    onehot = torch.nn.functional.one_hot(claims, num_experts)
    position = (onehot.cumsum(dim=0) * onehot).sum(dim=1) - 1
    slots = torch.where(position < capacity, position, -1)
    return slots.reshape(k, t).t().contiguous()


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
    kept = slots >= 0
    if expert_out.shape[1] == 0:
        return expert_out.new_zeros(slots.shape[0], expert_out.shape[2]) + 0 * weights.sum()
    rows = expert_out.float()[experts, slots.clamp(min=0)]
    w = weights.float() * kept
    return (w[..., None] * rows).sum(dim=1).to(expert_out.dtype)
