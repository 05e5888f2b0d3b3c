"""Expert parallelism: the reference of problem 75 (the bookkeeping of the all-to-all that sends
each token to the ranks holding its experts) and its speed baseline.

Self-contained (torch and the standard library only): the judge loads a baseline from this
file's source into its own sandbox. ``E`` experts are sharded over ``R`` ranks in contiguous
blocks of ``L = E / R``: expert ``e`` lives on rank ``e // L``. Counts and offsets are int64.
"""

from __future__ import annotations

import torch


def _check_choices(experts: torch.Tensor, num_experts: int, world_size: int) -> None:
    if world_size < 1 or num_experts < 1 or num_experts % world_size:
        raise ValueError("num_experts must be a positive multiple of the number of ranks")
    if not isinstance(experts, torch.Tensor) or experts.dim() != 2 or experts.dtype != torch.int64:
        raise ValueError("each rank's experts must be an int64 [T, k] tensor")
    if experts.numel() and (int(experts.min()) < 0 or int(experts.max()) >= num_experts):
        raise ValueError("expert ids must lie in [0, num_experts)")


def a2a_counts(experts: list[torch.Tensor], num_experts: int) -> torch.Tensor:
    """int64 ``[R, R]``: ``counts[s, d]`` is the number of (token, choice) assignments of rank
    ``s`` (``experts[s]``, ``[T_s, k]``) whose expert lives on rank ``d``. A token with two
    experts on one rank counts twice (one row is sent per assignment)."""
    world = len(experts)
    for choices in experts:
        _check_choices(choices, num_experts, world)
    if world == 0:
        raise ValueError("need at least one rank")
    per_rank = num_experts // world
    counts = torch.zeros(world, world, dtype=torch.int64)
    for source, choices in enumerate(experts):
        dest = choices.reshape(-1) // per_rank
        counts[source] = torch.bincount(dest, minlength=world)
    return counts


def _exclusive_cumsum(x: torch.Tensor, dim: int) -> torch.Tensor:
    return x.cumsum(dim=dim) - x


def a2a_offsets(counts: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(send_offsets, recv_counts, recv_offsets)``, int64 ``[R, R]``, from the send counts
    ``counts[s, d]``: ``send_offsets[s, d]`` the first row of rank ``s``'s send buffer bound
    for ``d`` (exclusive prefix sum along the row), ``recv_counts[d, s] = counts[s, d]``, and
    ``recv_offsets[d, s]`` the first row of rank ``d``'s receive buffer that comes from ``s``
    (chunks arrive in source-rank order)."""
    if counts.dim() != 2 or counts.shape[0] != counts.shape[1]:
        raise ValueError("counts must be a square [R, R] tensor")
    if counts.numel() and int(counts.min()) < 0:
        raise ValueError("counts must be >= 0")
    c = counts.to(torch.int64)
    recv = c.t().contiguous()
    return _exclusive_cumsum(c, 1), recv, _exclusive_cumsum(recv, 1)


def send_order(
    experts: torch.Tensor, num_experts: int, world_size: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(order, position)``: ``order`` int64 ``[T * k]`` lists one rank's assignments
    ``a = t * k + j`` in send-buffer order (by destination rank, then expert, then ``a``: a
    stable sort by expert, since ranks hold contiguous blocks of experts); ``position`` int64
    ``[T, k]`` is its inverse, the send-buffer row of each assignment."""
    _check_choices(experts, num_experts, world_size)
    t, k = experts.shape
    flat = experts.reshape(-1)
    order = torch.sort(flat, stable=True).indices
    position = torch.empty_like(order)
    position[order] = torch.arange(t * k, dtype=torch.int64)
    return order, position.reshape(t, k)
