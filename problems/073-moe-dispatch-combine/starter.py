import torch


def assign_slots(experts, num_experts, capacity):
    """Position of each (token, choice) in its expert's buffer, -1 when the buffer is full."""
    t, k = experts.shape
    used = [0] * num_experts
    slots = torch.full((t, k), -1, dtype=torch.int64)
    # TODO: this fills token by token; the rule is every token's first choice first, then the
    # second choices. Bad ids and capacities are not rejected either.
    for i in range(t):
        for j in range(k):
            e = int(experts[i, j])
            if used[e] < capacity:
                slots[i, j] = used[e]
            used[e] += 1
    return slots


def moe_dispatch(x, experts, slots, num_experts, capacity):
    """[E, C, d] buffers: x[t] at [experts[t, j], slots[t, j]] for kept assignments."""
    buffer = x.new_zeros(num_experts, capacity, x.shape[1])
    for i in range(x.shape[0]):
        for j in range(experts.shape[1]):
            # TODO: a dropped assignment (slot -1) must write nothing.
            buffer[experts[i, j], slots[i, j]] = x[i]
    return buffer


def moe_combine(expert_out, experts, slots, weights):
    """[T, d]: gate-weighted sum of each token's kept expert outputs."""
    rows = expert_out[experts, slots]  # [T, k, d]
    # TODO: dropped assignments (slot -1) read the last position here.
    return (weights[..., None] * rows).sum(dim=1)
