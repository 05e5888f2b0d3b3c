"""Tests of problem 72. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

LOGITS = [[2.0, 1.0, 0.0, 1.0], [0.0, 0.0, 3.0, 0.0]]


def _logits(gen: torch.Generator, t: int = 16, e: int = 8, scale: float = 1.5,
            dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return (torch.randn(t, e, generator=gen) * scale).to(dtype)


def _tied(gen: torch.Generator) -> torch.Tensor:
    """Integer logits in [0, 3): many exact ties, decided by the expert index."""
    return torch.randint(0, 3, (12, 6), generator=gen).float()


def _skewed(gen: torch.Generator) -> torch.Tensor:
    """A router that prefers experts 0 and 1: the loss is well above 1."""
    z = _logits(gen, 32, 8)
    z[:, :2] += 2.0
    return z


def _large(gen: torch.Generator, t: int, e: int) -> torch.Tensor:
    """Each token's logits near its own offset in [-300, 300]: exp() overflows (or underflows
    to zero everywhere), the probabilities do not tie."""
    offsets = (torch.rand(t, 1, generator=gen) * 2 - 1) * 300
    return offsets + torch.randn(t, e, generator=gen) * 3


def _views(gen: torch.Generator) -> torch.Tensor:
    return torch.randn(8, 10, generator=gen).t()  # [10 tokens, 8 experts], column-major


CASES: list[Case] = [
    Case("example_route", "route_topk", lambda g: Call((torch.tensor(LOGITS), 2)),
         public=True, note="top-2, renormalised; ties go to the lower expert index"),
    Case("example_route_plain", "route_topk",
         lambda g: Call((torch.tensor(LOGITS), 2), {"renormalize": False}),
         public=True, note="the same choice with the plain softmax probabilities",
         tags=("renormalize",)),
    Case("example_balance", "load_balancing_loss", lambda g: Call((torch.tensor(LOGITS), 2)),
         public=True, note="E * sum f_e P_e with f counting the 4 assignments"),
    Case("example_z_loss", "router_z_loss", lambda g: Call((torch.tensor(LOGITS),)),
         public=True, note="the mean squared log-sum-exp of the logits"),
    # hidden: route_topk
    Case("route_random", "route_topk", lambda g: Call((_logits(g), 2)),
         note="16 tokens, 8 experts, top-2 renormalised"),
    Case("route_plain_random", "route_topk", lambda g: Call((_logits(g), 3, False)),
         note="top-3, plain probabilities (renormalize given positionally)", tags=("renormalize",)),
    Case("route_top1", "route_topk", lambda g: Call((_logits(g, 9, 5), 1)),
         note="k = 1 renormalised: every weight is 1"),
    Case("route_top1_plain", "route_topk", lambda g: Call((_logits(g, 9, 5), 1, False)),
         note="k = 1, plain: the top probability (Switch)", tags=("renormalize",)),
    Case("route_k_equals_e", "route_topk", lambda g: Call((_logits(g, 5, 4), 4, False)),
         note="k = E: every expert, sorted by probability"),
    Case("route_ties", "route_topk", lambda g: Call((_tied(g), 3)),
         note="integer logits: equal probabilities go to the lower expert index first",
         tags=("ties",)),
    Case("route_bf16", "route_topk", lambda g: Call((_logits(g, 12, 6, dtype=torch.bfloat16), 2)),
         note="bfloat16 logits: float32 weights", tags=("bfloat16",)),
    Case("route_large_logits", "route_topk", lambda g: Call((_large(g, 8, 6), 2, False)),
         note="logits in the hundreds: the softmax must not overflow", tags=("large_logits",)),
    Case("route_one_token", "route_topk", lambda g: Call((_logits(g, 1, 16), 4)),
         note="T = 1, E = 16"),
    Case("route_non_contiguous", "route_topk", lambda g: Call((_views(g), 2)),
         note="transposed logits", tags=("non_contiguous",)),
    Case("route_k_too_large", "route_topk", lambda g: Call((_logits(g, 4, 4), 5)),
         note="k = 5 > E = 4: ValueError", tags=("validation",)),
    Case("route_k_zero", "route_topk", lambda g: Call((_logits(g, 4, 4), 0)),
         note="k = 0: ValueError", tags=("validation",)),
    Case("route_not_2d", "route_topk", lambda g: Call((torch.randn(2, 3, 4, generator=g), 2)),
         note="[B, T, E] logits: ValueError (flatten the tokens first)", tags=("validation",)),
    # hidden: load balancing
    Case("balance_random", "load_balancing_loss", lambda g: Call((_logits(g, 32, 8), 2)),
         note="random router, top-2: f sums to one, not to k"),
    Case("balance_top1", "load_balancing_loss", lambda g: Call((_logits(g, 20, 4), 1)),
         note="Switch's top-1"),
    Case("balance_skewed", "load_balancing_loss", lambda g: Call((_skewed(g), 2)),
         note="a router that prefers two experts"),
    Case("balance_uniform", "load_balancing_loss", lambda g: Call((torch.zeros(8, 4), 2)),
         note="all logits equal: f from the tie rule, P uniform"),
    Case("balance_grad", "load_balancing_loss", lambda g: Call((_logits(g, 10, 6), 2)),
         grad_wrt=(0,), note="gradient through P only (the counts have none)", tags=("grad",)),
    Case("balance_large_logits", "load_balancing_loss",
         lambda g: Call((_large(g, 12, 6), 3)),
         note="logits in the hundreds", tags=("large_logits",)),
    Case("balance_strided", "load_balancing_loss",
         lambda g: Call((torch.randn(16, 16, generator=g)[:, 1::2], 2)),
         note="logits every other column of a wider buffer", tags=("non_contiguous",)),
    Case("balance_bad_k", "load_balancing_loss", lambda g: Call((_logits(g, 4, 4), 7)),
         note="k > E: ValueError", tags=("validation",)),
    # hidden: z-loss
    Case("z_random", "router_z_loss", lambda g: Call((_logits(g, 24, 8),)),
         note="random logits"),
    Case("z_large_logits", "router_z_loss", lambda g: Call((_large(g, 8, 8),)),
         note="logits near +-300: exp overflows or underflows, logsumexp must not",
         tags=("large_logits",)),
    Case("z_grad", "router_z_loss", lambda g: Call((_logits(g, 6, 5),)), grad_wrt=(0,),
         note="gradient: 2 * lse * softmax / T", tags=("grad",)),
    Case("z_bf16", "router_z_loss", lambda g: Call((_logits(g, 10, 4, dtype=torch.bfloat16),)),
         note="bfloat16 logits, a float32 loss", tags=("bfloat16",)),
    Case("z_not_2d", "router_z_loss", lambda g: Call((torch.randn(8, generator=g),)),
         note="1-D logits: ValueError, not a loss", tags=("validation",)),
    Case("z_int_logits", "router_z_loss",
         lambda g: Call((torch.randint(-3, 4, (5, 4), generator=g),)),
         note="integer logits: ValueError", tags=("validation",)),
    Case("route_int_logits", "route_topk",
         lambda g: Call((torch.randint(-3, 4, (6, 4), generator=g), 2)),
         note="integer logits: ValueError", tags=("validation",)),
]
