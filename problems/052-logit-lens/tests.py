"""Tests of problem 52. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _lens(gen: torch.Generator, *, layers: int = 4, n: int = 6, dim: int = 16, vocab: int = 40,
          scales: list[float] | None = None, dtype: torch.dtype = torch.float32,
          eps: float = 1e-6) -> Call:
    hidden = torch.randn(layers, n, dim, generator=gen)
    if scales is not None:
        hidden = hidden * torch.tensor(scales)[:, None, None]
    norm_weight = 0.5 + torch.rand(dim, generator=gen)
    weight = torch.randn(vocab, dim, generator=gen) * 0.5
    return Call((hidden.to(dtype), norm_weight.to(dtype), weight.to(dtype), eps))


def _hot(gen: torch.Generator) -> Call:
    """A large norm weight and table: logits of 100 to 300, where exp() overflows float32."""
    call = _lens(gen, layers=3, n=5, dim=16, vocab=40)
    hidden, norm_weight, weight, eps = call.args
    return Call((hidden, norm_weight * 8.0, weight * 5.0, eps))


def _views(gen: torch.Generator) -> Call:
    """Layers stacked position-first ([N, L, d], transposed to [L, N, d]), the norm weight a
    strided view, the tied table stored [d, V] and used transposed."""
    layers, n, dim, vocab = 4, 6, 16, 40
    hidden = torch.randn(n, layers, dim, generator=gen).transpose(0, 1)
    norm_weight = (0.5 + torch.rand(2 * dim, generator=gen))[::2]
    weight = (torch.randn(dim, vocab, generator=gen) * 0.5).t()
    return Call((hidden, norm_weight, weight, 1e-6))


def _near_ties(expected: object, got: object) -> str | None:
    """Probabilities within the float32 tolerance; top-1 ids equal except at float32 near-ties
    of the two best logits, where either token is the top one and the probability is the same
    to rounding (at most one position in 256: a near-tie is rare)."""
    if not (isinstance(got, tuple) and len(got) == 2 and all(isinstance(t, torch.Tensor) for t in got)):
        return "expected a tuple (ids, probs) of two tensors"
    (e_ids, e_probs), (g_ids, g_probs) = expected, got  # type: ignore[misc]
    for name, e, g in (("ids", e_ids, g_ids), ("probs", e_probs, g_probs)):
        if e.shape != g.shape or e.dtype != g.dtype:
            return f"{name}: expected {e.dtype} {tuple(e.shape)}, got {g.dtype} {tuple(g.shape)}"
    if not torch.allclose(g_probs, e_probs, atol=1e-5, rtol=1e-4):
        return f"probabilities differ (largest difference {(g_probs - e_probs).abs().max().item():.3g})"
    differ = e_ids != g_ids
    tie = (g_probs - e_probs).abs() <= 1e-6
    if bool((differ & ~tie).any()) or int(differ.sum()) > 1 + differ.numel() // 256:
        return f"top-1 token differs at {int(differ.sum())} of {differ.numel()} positions"
    return None


CASES: list[Case] = [
    Case(
        "example_two_layers", "logit_lens",
        lambda g: Call((torch.tensor([[[3.0, 4.0]], [[0.0, -2.0]]]), torch.tensor([1.0, 1.0]),
                        torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]), 1e-6)),
        public=True, note="L = 2 layers, one position, d = 2, V = 3",
    ),
    Case(
        "example_norm_weight", "logit_lens",
        lambda g: Call((torch.tensor([[[3.0, 4.0]]]), torch.tensor([2.0, 0.0]),
                        torch.tensor([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]]), 1e-6)),
        public=True, note="the norm weight zeroes the second feature: token 0 wins now",
    ),
    # Its comparison (ties) is also the benchmark's re-verification of timed outputs.
    Case("random_layers", "logit_lens", lambda g: _lens(g), check=_near_ties,
         note="4 layers, 6 positions"),
    Case("growing_residual", "logit_lens",
         lambda g: _lens(g, layers=5, scales=[0.5, 2.0, 8.0, 30.0, 100.0]),
         note="the residual stream grows with depth; the norm removes the scale"),
    Case("tiny_early_layer", "logit_lens",
         lambda g: _lens(g, layers=3, scales=[3e-4, 1e-2, 1.0], eps=1e-5),
         note="activations near sqrt(eps): eps belongs inside the square root"),
    Case("peaked", "logit_lens", lambda g: _lens(g, layers=2, dim=32, vocab=60, scales=[30.0, 60.0]),
         note="confident predictions: probabilities near 1"),
    Case("single_position", "logit_lens", lambda g: _lens(g, layers=6, n=1), note="N = 1"),
    Case("one_layer", "logit_lens", lambda g: _lens(g, layers=1, n=9), note="L = 1"),
    Case("bf16_inputs", "logit_lens", lambda g: _lens(g, dtype=torch.bfloat16),
         note="bfloat16 inputs: compute in float32, return int64 ids and float32 probabilities", tags=("bfloat16",)),
    Case("logits_near_overflow", "logit_lens", _hot,
         note="logits of 100 to 300: exp() of them is inf in float32, subtract the maximum first"),
    Case("non_contiguous", "logit_lens", _views,
         note="transposed hidden states and table, a strided norm weight", tags=("non_contiguous",)),
]
