# Correct but slow: plain Python over every assignment (sorted() is stable).
import torch


def _check(experts, num_experts, world):
    if world < 1 or num_experts < 1 or num_experts % world:
        raise ValueError("num_experts must be a positive multiple of the number of ranks")
    if not isinstance(experts, torch.Tensor) or experts.dim() != 2 or experts.dtype != torch.int64:
        raise ValueError("experts must be int64 [T, k]")
    for e in experts.reshape(-1).tolist():
        if not 0 <= e < num_experts:
            raise ValueError("expert id out of range")


def a2a_counts(experts, num_experts):
    world = len(experts)
    for choices in experts:
        _check(choices, num_experts, world)
    per_rank = num_experts // world
    counts = [[0] * world for _ in range(world)]
    for s, choices in enumerate(experts):
        for e in choices.reshape(-1).tolist():
            counts[s][e // per_rank] += 1
    return torch.tensor(counts, dtype=torch.int64).reshape(world, world)


def a2a_offsets(counts):
    if counts.dim() != 2 or counts.shape[0] != counts.shape[1]:
        raise ValueError("counts must be [R, R]")
    c = counts.tolist()
    r = len(c)
    if any(x < 0 for row in c for x in row):
        raise ValueError("negative count")
    send = [[sum(c[s][:d]) for d in range(r)] for s in range(r)]
    recv = [[c[s][d] for s in range(r)] for d in range(r)]
    recv_off = [[sum(c[x][d] for x in range(s)) for s in range(r)] for d in range(r)]
    return tuple(torch.tensor(m, dtype=torch.int64).reshape(r, r) for m in (send, recv, recv_off))


def send_order(experts, num_experts, world_size):
    _check(experts, num_experts, world_size)
    t, k = experts.shape
    flat = experts.reshape(-1).tolist()
    per_rank = num_experts // world_size
    order = sorted(range(t * k), key=lambda a: (flat[a] // per_rank, flat[a]))
    position = [0] * (t * k)
    for i, a in enumerate(order):
        position[a] = i
    return (torch.tensor(order, dtype=torch.int64),
            torch.tensor(position, dtype=torch.int64).reshape(t, k))
