"""kernels.moe (problems 72-73) against slow loop versions and float64 autograd."""

from __future__ import annotations

import pytest
import torch

from kernels.moe import (
    assign_slots,
    load_balancing_loss,
    moe_combine,
    moe_dispatch,
    route_topk,
    router_z_loss,
)


def test_route_topk_sorts_by_probability_and_breaks_ties_by_index() -> None:
    logits = torch.tensor([[1.0, 3.0, 3.0, 0.0], [0.0, 0.0, 0.0, 0.0]])
    weights, experts = route_topk(logits, 3, renormalize=False)
    assert experts.tolist() == [[1, 2, 0], [0, 1, 2]]
    torch.testing.assert_close(weights, torch.softmax(logits, -1).gather(1, experts))
    renormalised, _ = route_topk(logits, 3)
    torch.testing.assert_close(renormalised.sum(-1), torch.ones(2))
    with pytest.raises(ValueError):
        route_topk(logits, 5)


def test_load_balancing_loss_is_one_for_a_uniform_router_and_matches_a_loop() -> None:
    assert float(load_balancing_loss(torch.zeros(6, 4), 2)) == pytest.approx(1.0)
    gen = torch.Generator().manual_seed(12)
    logits = torch.randn(10, 5, generator=gen, dtype=torch.float64)
    probs = torch.softmax(logits, -1)
    counts = [0] * 5
    for row in probs:
        for e in sorted(range(5), key=lambda i: -float(row[i]))[:2]:
            counts[e] += 1
    want = 5 * sum(counts[e] / 20 * float(probs[:, e].mean()) for e in range(5))
    assert float(load_balancing_loss(logits.float(), 2)) == pytest.approx(want, rel=1e-5)


def test_router_z_loss_is_stable_and_has_the_softmax_gradient() -> None:
    logits = torch.tensor([[300.0, 299.0], [-300.0, -301.0]], requires_grad=True)
    loss = router_z_loss(logits)
    lse = torch.logsumexp(logits.detach().double(), -1)
    assert float(loss.detach()) == pytest.approx(float(lse.square().mean()), rel=1e-6)
    loss.backward()
    assert logits.grad is not None
    want = lse[:, None] * torch.softmax(logits.detach().double(), -1)  # 2 * lse * p / T, T = 2
    torch.testing.assert_close(logits.grad.double(), want, rtol=1e-5, atol=1e-3)


def _loop_slots(experts: torch.Tensor, e: int, cap: int) -> list[list[int]]:
    t, k = experts.shape
    used, slots = [0] * e, [[-1] * k for _ in range(t)]
    for j in range(k):
        for i in range(t):
            x = int(experts[i, j])
            if used[x] < cap:
                slots[i][j] = used[x]
            used[x] += 1
    return slots


@pytest.mark.parametrize("capacity", [0, 1, 3, 50])
def test_assign_slots_dispatch_and_combine_match_loops(capacity: int) -> None:
    gen = torch.Generator().manual_seed(13)
    experts = torch.stack([torch.randperm(5, generator=gen)[:2] for _ in range(12)])
    slots = assign_slots(experts, 5, capacity)
    assert slots.tolist() == _loop_slots(experts, 5, capacity)
    x = torch.randn(12, 3, generator=gen, requires_grad=True)
    buffers = moe_dispatch(x, experts, slots, 5, capacity)
    weights = torch.rand(12, 2, generator=gen, requires_grad=True)
    y = moe_combine(buffers * 2.0, experts, slots, weights)
    want = torch.zeros(12, 3)
    for i in range(12):
        for j in range(2):
            if slots[i, j] >= 0:
                assert torch.equal(buffers[experts[i, j], slots[i, j]], x[i])
                want[i] += weights[i, j] * 2.0 * x[i]
    torch.testing.assert_close(y, want)
    assert int((buffers.abs().sum(-1) > 0).sum()) == int((slots >= 0).sum())
    y.sum().backward()
    assert weights.grad is not None
    assert (x.grad is not None) == (capacity > 0)  # with capacity 0 no token reaches an expert
