"""Mixture of experts: the references of problems 72 (top-k routing, the load-balancing and
z-losses) and 73 (dispatch and combine with a capacity), and their speed baselines.

Self-contained (torch and the standard library only): the judge loads a baseline from this
file's source into its own sandbox. Router logits are ``[T, E]`` (tokens by experts); the
router is computed in float32.
"""

from __future__ import annotations

import torch

# --- 72: routing --------------------------------------------------------------------------------


def _check_router(logits: torch.Tensor, k: int) -> None:
    if logits.dim() != 2 or not logits.is_floating_point():
        raise ValueError("router logits must be a float [T, E] tensor")
    if not 1 <= k <= logits.shape[1]:
        raise ValueError("k must lie in [1, E]")


def route_topk(
    logits: torch.Tensor, k: int, renormalize: bool = True
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(weights, experts)``: float32 and int64 ``[T, k]``, each token's ``k`` most probable
    experts under ``softmax(logits)`` in decreasing order of probability (equal probabilities:
    the lower expert index first), with their probabilities, renormalised to sum to one per
    token when ``renormalize``."""
    _check_router(logits, k)
    probs = torch.softmax(logits.float(), dim=-1)
    order = torch.sort(probs, dim=-1, descending=True, stable=True)
    weights, experts = order.values[:, :k], order.indices[:, :k]
    if renormalize:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights, experts


def load_balancing_loss(logits: torch.Tensor, k: int) -> torch.Tensor:
    """``E * sum_e f_e * P_e`` (a float32 scalar): ``f_e`` the fraction of the ``T * k``
    top-k assignments that go to expert ``e`` (not differentiable), ``P_e`` the mean router
    probability of ``e`` over the tokens (differentiable). A uniform router gives 1."""
    _check_router(logits, k)
    t, e = logits.shape
    probs = torch.softmax(logits.float(), dim=-1)
    _, experts = route_topk(logits.detach(), k, renormalize=False)
    counts = torch.zeros(e, dtype=torch.float32, device=logits.device)
    counts.index_add_(0, experts.reshape(-1), torch.ones(t * k, device=logits.device))
    return e * (counts / (t * k) * probs.mean(dim=0)).sum()


def router_z_loss(logits: torch.Tensor) -> torch.Tensor:
    """ST-MoE's z-loss, the mean over tokens of ``logsumexp(logits)^2`` (a float32 scalar),
    computed stably (logits may be in the hundreds)."""
    if logits.dim() != 2 or not logits.is_floating_point():
        raise ValueError("router logits must be a float [T, E] tensor")
    return torch.logsumexp(logits.float(), dim=-1).square().mean()


# --- 73: dispatch and combine ----------------------------------------------------------------


def assign_slots(experts: torch.Tensor, num_experts: int, capacity: int) -> torch.Tensor:
    """int64 ``[T, k]``: the position of assignment ``(t, j)`` in the buffer of expert
    ``experts[t, j]``, or -1 when that buffer is already full. Buffers fill in priority order:
    every token's first choice in token order, then every token's second choice, and so on."""
    if experts.dim() != 2 or experts.dtype != torch.int64:
        raise ValueError("experts must be an int64 [T, k] tensor")
    if capacity < 0 or num_experts < 1:
        raise ValueError("capacity must be >= 0 and num_experts >= 1")
    if experts.numel() and (int(experts.min()) < 0 or int(experts.max()) >= num_experts):
        raise ValueError("expert ids must lie in [0, num_experts)")
    t, k = experts.shape
    priority = experts.t().reshape(-1)  # slot-major: (j, t) order
    onehot = torch.nn.functional.one_hot(priority, num_experts)
    position = ((onehot.cumsum(dim=0) - 1) * onehot).sum(dim=1)  # earlier claims on the same expert
    slots = torch.where(position < capacity, position, torch.full_like(position, -1))
    return slots.reshape(k, t).t().contiguous()


def moe_dispatch(
    x: torch.Tensor, experts: torch.Tensor, slots: torch.Tensor, num_experts: int, capacity: int
) -> torch.Tensor:
    """``[E, C, d]`` buffers in ``x``'s dtype: ``x[t]`` at ``[experts[t, j], slots[t, j]]``
    for every kept assignment (slot >= 0), zeros in unused slots."""
    t, d = x.shape
    if experts.shape != slots.shape or experts.shape[0] != t:
        raise ValueError("experts and slots must be [T, k] for x [T, d]")
    buffer = x.new_zeros(num_experts * capacity, d)
    kept = slots >= 0
    token = torch.arange(t, device=x.device)[:, None].expand_as(slots)
    return buffer.index_put((experts[kept] * capacity + slots[kept],), x[token[kept]]).reshape(
        num_experts, capacity, d
    )


def moe_combine(
    expert_out: torch.Tensor, experts: torch.Tensor, slots: torch.Tensor, weights: torch.Tensor
) -> torch.Tensor:
    """``[T, d]``: ``sum_j weights[t, j] * expert_out[experts[t, j], slots[t, j]]`` over the
    kept assignments (dropped ones add nothing; no renormalisation), in float32, returned in
    ``expert_out``'s dtype."""
    if experts.shape != slots.shape or weights.shape != slots.shape or expert_out.dim() != 3:
        raise ValueError("expert_out [E, C, d]; experts, slots and weights [T, k]")
    kept = slots >= 0
    if expert_out.shape[1] == 0:  # capacity 0: everything was dropped
        return expert_out.new_zeros(slots.shape[0], expert_out.shape[2]) + 0 * weights.sum()
    rows = expert_out.float()[experts.clamp(min=0), slots.clamp(min=0)]  # [T, k, d]
    w = torch.where(kept, weights.float(), torch.zeros((), device=weights.device))
    return (w[..., None] * rows).sum(dim=1).to(expert_out.dtype)
