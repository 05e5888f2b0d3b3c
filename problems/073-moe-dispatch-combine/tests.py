"""Tests of problem 73. Public cases are the statement's examples, value for value.

The slots fed to dispatch and combine are computed here with a plain loop (the statement's
priority rule), independently of the reference."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

EXPERTS = [[0, 1], [1, 0], [0, 2], [1, 3]]
SLOTS = [[0, -1], [0, -1], [1, 0], [1, 0]]
X = [[1.0, 0.0], [0.0, 1.0], [2.0, 2.0], [3.0, -1.0]]
WEIGHTS = [[0.75, 0.25], [0.5, 0.5], [0.9, 0.1], [0.6, 0.4]]


def _choices(gen: torch.Generator, t: int, k: int, e: int) -> torch.Tensor:
    """Each token's k distinct experts, in random order (as a router would rank them)."""
    if t == 0:
        return torch.zeros(0, k, dtype=torch.int64)
    return torch.stack([torch.randperm(e, generator=gen)[:k] for _ in range(t)])


def _slots(experts: torch.Tensor, e: int, capacity: int) -> torch.Tensor:
    t, k = experts.shape
    used = [0] * e
    slots = torch.full((t, k), -1, dtype=torch.int64)
    for j in range(k):
        for i in range(t):
            expert = int(experts[i, j])
            if used[expert] < capacity:
                slots[i, j] = used[expert]
            used[expert] += 1
    return slots


def _assign(gen: torch.Generator, t: int = 24, k: int = 2, e: int = 6,
            capacity: int | None = None, factor: float = 1.0) -> Call:
    experts = _choices(gen, t, k, e)
    if capacity is None:
        capacity = -(-int(factor * t * k) // e)
    return Call((experts, e, capacity))


def _skewed(gen: torch.Generator) -> Call:
    """Most tokens' first choice is expert 0: its buffer overflows with first choices alone."""
    experts = _choices(gen, 32, 2, 4)
    first = torch.rand(32, generator=gen) < 0.6
    experts[first] = torch.stack([torch.zeros(32, dtype=torch.int64), experts[:, 1].clamp(min=1)], 1)[first]
    return Call((experts, 4, 10))


def _dispatch(gen: torch.Generator, t: int = 20, k: int = 2, e: int = 5, d: int = 6,
              capacity: int = 6, dtype: torch.dtype = torch.float32) -> Call:
    experts = _choices(gen, t, k, e)
    x = torch.randn(t, d, generator=gen).to(dtype)
    return Call((x, experts, _slots(experts, e, capacity), e, capacity))


def _combine(gen: torch.Generator, t: int = 20, k: int = 2, e: int = 5, d: int = 6,
             capacity: int = 6, dtype: torch.dtype = torch.float32) -> Call:
    experts = _choices(gen, t, k, e)
    out = torch.randn(e, capacity, d, generator=gen).to(dtype)
    weights = torch.softmax(torch.randn(t, k, generator=gen), dim=-1)
    return Call((out, experts, _slots(experts, e, capacity), weights))


def _dispatch_views(gen: torch.Generator) -> Call:
    t, k, e, d, cap = 12, 2, 4, 5, 4
    experts = _choices(gen, t, k, e).t().contiguous().t()
    x = torch.randn(t, 2 * d, generator=gen)[:, 1::2]
    return Call((x, experts, _slots(experts, e, cap).t().contiguous().t(), e, cap))


def _combine_views(gen: torch.Generator) -> Call:
    call = _combine(gen, 12, 3, 6, 4, 5)
    out, experts, slots, weights = call.args
    return Call((out.transpose(1, 2).contiguous().transpose(1, 2), experts,
                 slots, weights.t().contiguous().t()))


def _all_dropped_token(gen: torch.Generator) -> Call:
    """Token 5 chooses only experts that tokens 0-4 have filled."""
    experts = torch.tensor([[0, 1], [1, 0], [0, 1], [1, 0], [2, 3], [0, 1], [3, 2]])
    out = torch.randn(4, 2, 3, generator=gen)
    weights = torch.softmax(torch.randn(7, 2, generator=gen), dim=-1)
    return Call((out, experts, _slots(experts, 4, 2), weights))


CASES: list[Case] = [
    Case("example_slots", "assign_slots", lambda g: Call((torch.tensor(EXPERTS), 4, 2)),
         public=True, note="first choices before second choices; two second choices dropped",
         tags=("priority",)),
    Case("example_dispatch", "moe_dispatch",
         lambda g: Call((torch.tensor(X), torch.tensor(EXPERTS), torch.tensor(SLOTS), 4, 2)),
         public=True, note="tokens copied into [E, C, d] buffers, free positions zero",
         tags=("dispatch",)),
    Case("example_combine", "moe_combine",
         lambda g: Call((torch.tensor([[[1.0, 0.0], [2.0, 2.0]], [[0.0, 2.0], [6.0, -2.0]],
                                       [[6.0, 6.0], [0.0, 0.0]], [[12.0, -4.0], [0.0, 0.0]]]),
                         torch.tensor(EXPERTS), torch.tensor(SLOTS), torch.tensor(WEIGHTS))),
         public=True, note="gate-weighted sum of the kept outputs, no renormalisation",
         tags=("combine",)),
    # hidden: assign_slots
    Case("slots_random", "assign_slots", lambda g: _assign(g),
         note="24 tokens, top-2 of 6, capacity factor 1: some drops", tags=("priority",)),
    Case("slots_first_choices_win", "assign_slots", _skewed,
         note="a crowded expert: first choices in token order, then second choices",
         tags=("priority",)),
    Case("slots_top1", "assign_slots", lambda g: _assign(g, 30, 1, 4, factor=1.0),
         note="k = 1 (Switch)", tags=("capacity",)),
    Case("slots_top4", "assign_slots", lambda g: _assign(g, 16, 4, 8, factor=1.25),
         note="k = 4 of 8 experts", tags=("priority",)),
    Case("slots_exact_capacity", "assign_slots",
         lambda g: Call((torch.tensor([[0], [0], [1], [0], [1]]), 2, 3)),
         note="expert 0 gets exactly C = 3 claims: none dropped (no off-by-one)",
         tags=("capacity",)),
    Case("slots_capacity_zero", "assign_slots", lambda g: _assign(g, 8, 2, 4, capacity=0),
         note="capacity 0: every slot is -1", tags=("capacity",)),
    Case("slots_no_drops", "assign_slots", lambda g: _assign(g, 10, 2, 3, capacity=20),
         note="capacity above T: nothing dropped", tags=("priority",)),
    Case("slots_one_token", "assign_slots", lambda g: _assign(g, 1, 2, 4, capacity=1),
         note="one token", tags=("priority",)),
    Case("slots_no_tokens", "assign_slots",
         lambda g: Call((torch.zeros(0, 2, dtype=torch.int64), 4, 3)),
         note="T = 0: an empty [0, k] result", tags=("inputs",)),
    Case("slots_non_contiguous", "assign_slots",
         lambda g: Call((_choices(g, 16, 2, 4).t().contiguous().t(), 4, 7)),
         note="experts stored column-major", tags=("priority", "non_contiguous")),
    Case("slots_bad_expert", "assign_slots",
         lambda g: Call((torch.tensor([[0, 1], [4, 2]]), 4, 2)), note="expert id 4 with E = 4: ValueError",
         tags=("inputs",)),
    Case("slots_negative_expert", "assign_slots",
         lambda g: Call((torch.tensor([[0, -1], [3, 2]]), 4, 2)), note="expert id -1: ValueError",
         tags=("inputs",)),
    Case("slots_negative_capacity", "assign_slots",
         lambda g: Call((torch.tensor([[0, 1]]), 4, -1)), note="capacity -1: ValueError",
         tags=("inputs",)),
    Case("slots_int32_experts", "assign_slots",
         lambda g: Call((torch.randint(0, 4, (5, 2), generator=g, dtype=torch.int32), 4, 2)),
         note="int32 expert ids: ValueError (int64 only)", tags=("inputs",)),
    Case("slots_no_experts", "assign_slots",
         lambda g: Call((torch.zeros(0, 2, dtype=torch.int64), 0, 1)),
         note="num_experts = 0 (no tokens, so no id is out of range): ValueError", tags=("inputs",)),
    # hidden: dispatch
    Case("dispatch_random", "moe_dispatch", lambda g: _dispatch(g),
         note="20 tokens, top-2 of 5, capacity 6: some drops", tags=("dispatch",)),
    Case("dispatch_bf16", "moe_dispatch", lambda g: _dispatch(g, dtype=torch.bfloat16),
         note="bfloat16 tokens, bfloat16 buffers", tags=("dispatch", "bfloat16")),
    Case("dispatch_grad", "moe_dispatch", lambda g: _dispatch(g, 10, 2, 3, 4, 5), grad_wrt=(0,),
         note="gradient: a token receives the gradients of every buffer it reached",
         tags=("dispatch",)),
    Case("dispatch_capacity_zero", "moe_dispatch", lambda g: _dispatch(g, 6, 2, 3, 4, 0),
         note="capacity 0: [E, 0, d] buffers", tags=("inputs",)),
    Case("dispatch_last_slot_taken", "moe_dispatch", lambda g: _dispatch(g, 24, 3, 4, 5, 4),
         note="full buffers and dropped claims: nothing written at position -1",
         tags=("dispatch",)),
    Case("dispatch_non_contiguous", "moe_dispatch", _dispatch_views,
         note="strided tokens, column-major experts and slots", tags=("dispatch", "non_contiguous")),
    Case("dispatch_shape_mismatch", "moe_dispatch",
         lambda g: Call((torch.randn(3, 4, generator=g), torch.tensor([[0, 1], [1, 0], [0, 1]]),
                         torch.tensor([[0, 0], [0, 1]]), 2, 2)),
         note="slots for 2 tokens, experts for 3: ValueError", tags=("inputs",)),
    Case("dispatch_tokens_mismatch", "moe_dispatch",
         lambda g: Call((torch.randn(4, 4, generator=g), torch.tensor([[0, 1], [1, 0], [0, 1]]),
                         torch.tensor([[0, 0], [0, 1], [1, 1]]), 2, 2)),
         note="experts and slots for 3 tokens, x of 4: ValueError", tags=("inputs",)),
    # hidden: combine
    Case("combine_random", "moe_combine", lambda g: _combine(g),
         note="20 tokens, top-2 of 5, capacity 6: some drops", tags=("combine",)),
    Case("combine_top3", "moe_combine", lambda g: _combine(g, 16, 3, 6, 4, 5),
         note="k = 3", tags=("combine",)),
    Case("combine_bf16", "moe_combine", lambda g: _combine(g, dtype=torch.bfloat16),
         note="bfloat16 expert outputs, float32 sums, bfloat16 result", tags=("combine", "bfloat16")),
    Case("combine_all_dropped", "moe_combine", _all_dropped_token,
         note="a token whose every choice was dropped: zeros, no NaN", tags=("combine",)),
    Case("combine_capacity_zero", "moe_combine", lambda g: _combine(g, 6, 2, 3, 4, 0),
         note="capacity 0: [E, 0, d] outputs, every token gets zeros", tags=("inputs",)),
    Case("combine_grad", "moe_combine", lambda g: _combine(g, 12, 2, 4, 3, 4), grad_wrt=(0, 3),
         note="gradients w.r.t. expert outputs and gates (the router learns through them)",
         tags=("gate_grad",)),
    Case("combine_non_contiguous", "moe_combine", _combine_views,
         note="expert outputs and weights stored transposed", tags=("combine", "non_contiguous")),
    Case("combine_shape_mismatch", "moe_combine",
         lambda g: Call((torch.randn(2, 2, 3, generator=g), torch.tensor([[0, 1]]),
                         torch.tensor([[0, 0]]), torch.ones(1, 3))),
         note="weights [1, 3] for [1, 2] choices: ValueError", tags=("inputs",)),
]
