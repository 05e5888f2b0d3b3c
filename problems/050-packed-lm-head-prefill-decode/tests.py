"""Tests of problem 50. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _cu(lengths: list[int]) -> torch.Tensor:
    return torch.tensor([0, *torch.tensor(lengths).cumsum(0).tolist()], dtype=torch.int64)


def _batch(gen: torch.Generator, lengths: list[int], *, needs: str = "random", vocab: int = 30,
           dim: int = 8, dtype: torch.dtype = torch.float32) -> Call:
    n = sum(lengths)
    hidden = torch.randn(n, dim, generator=gen).to(dtype)
    weight = (torch.randn(vocab, dim, generator=gen) * 0.3).to(dtype)
    if needs == "random":
        mask = torch.rand(len(lengths), generator=gen) < 0.6
    else:
        mask = torch.full((len(lengths),), needs == "all", dtype=torch.bool)
    return Call((hidden, _cu(lengths), weight, mask))


def _mixed(gen: torch.Generator, **kw: object) -> Call:
    # decode rows (1 token) and prefill chunks (several), shuffled
    lengths = [1] * 6 + torch.randint(2, 12, (5,), generator=gen).tolist()
    order = torch.randperm(len(lengths), generator=gen).tolist()
    return _batch(gen, [lengths[i] for i in order], **kw)  # type: ignore[arg-type]


def _views(gen: torch.Generator) -> Call:
    """hidden the second half of a fused [N, 2d] buffer, cu_seqlens every other entry of a
    longer tensor, the tied table stored [d, V] and used transposed, needs_logits a slice."""
    lengths = [3, 1, 1, 6, 2]
    n, dim, vocab = sum(lengths), 8, 30
    fused = torch.randn(n, 2 * dim, generator=gen)
    cu = torch.stack([_cu(lengths), torch.zeros(len(lengths) + 1, dtype=torch.int64)], 1)[:, 0]
    weight = (torch.randn(dim, vocab, generator=gen) * 0.3).t()
    flags = (torch.rand(2 * len(lengths), generator=gen) < 0.6)[::2]
    flags[0] = True
    return Call((fused[:, dim:], cu, weight, flags))


CASES: list[Case] = [
    Case("example_last_token_indices", "last_token_indices",
         lambda g: Call((torch.tensor([0, 3, 4, 9]),)), public=True,
         note="three sequences of lengths 3, 1 and 5"),
    Case(
        "example_sample_logits", "sample_logits",
        lambda g: Call((
            torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [2.0, 0.0], [0.0, 0.0], [3.0, 3.0]]),
            torch.tensor([0, 3, 4, 6]),
            torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, -1.0]]),
            torch.tensor([True, True, False]),
        )),
        public=True, note="a prefill of 3 tokens, a decode step, and a prefill chunk needing no logits",
    ),
    Case("example_empty_sequence", "last_token_indices",
         lambda g: Call((torch.tensor([0, 2, 2, 5]),)), public=True,
         note="an empty sequence (2 to 2) raises ValueError", tags=("errors",)),
    # hidden: last_token_indices
    Case("indices_random", "last_token_indices",
         lambda g: Call((_cu(torch.randint(1, 9, (12,), generator=g).tolist()),)),
         note="twelve random lengths"),
    Case("indices_all_decode", "last_token_indices", lambda g: Call((_cu([1] * 7),)),
         note="all sequences of length 1: indices 0..B-1"),
    Case("indices_no_sequence", "last_token_indices", lambda g: Call((torch.tensor([0]),)),
         note="cu_seqlens = [0]: no sequences, an empty int64 result"),
    Case("indices_not_from_zero", "last_token_indices", lambda g: Call((torch.tensor([1, 4, 6]),)),
         note="cu_seqlens must start at 0: ValueError", tags=("errors",)),
    Case("indices_decreasing", "last_token_indices", lambda g: Call((torch.tensor([0, 5, 3, 8]),)),
         note="decreasing offsets: ValueError", tags=("errors",)),
    Case("indices_empty_tensor", "last_token_indices",
         lambda g: Call((torch.zeros(0, dtype=torch.int64),)),
         note="an empty cu_seqlens does not start at 0: ValueError ([0] is the empty batch)", tags=("errors",)),
    Case("indices_column", "last_token_indices",
         lambda g: Call((torch.tensor([[0], [3], [4], [9]]),)),
         note="a valid-looking [B + 1, 1] column is not 1-D: ValueError (flattening hides it)", tags=("errors",)),
    Case("indices_row", "last_token_indices", lambda g: Call((torch.tensor([[0, 3, 4, 9]]),)),
         note="a [1, B + 1] row is not 1-D: ValueError", tags=("errors",)),
    Case("indices_strided", "last_token_indices",
         lambda g: Call((torch.tensor([0, 99, 2, 99, 7, 99, 8])[::2],)),
         note="cu_seqlens every other element of a longer tensor (stride 2)", tags=("non_contiguous",)),
    # hidden: sample_logits
    Case("logits_mixed_batch", "sample_logits", lambda g: _mixed(g),
         note="decode rows and prefill chunks mixed, random needs_logits"),
    Case("logits_mixed_all_needed", "sample_logits", lambda g: _mixed(g, needs="all"),
         note="every sequence needs logits"),
    Case("logits_none_needed", "sample_logits", lambda g: _mixed(g, needs="none"),
         note="no sequence needs logits: shape [0, V]"),
    Case("logits_all_decode", "sample_logits", lambda g: _batch(g, [1] * 9),
         note="pure decode step: one token per sequence"),
    Case("logits_single_long", "sample_logits", lambda g: _batch(g, [37], needs="all"),
         note="one long prompt: only its last token"),
    Case("logits_first_is_long", "sample_logits", lambda g: _batch(g, [20, 1, 1, 3], needs="all"),
         note="first sequence long, then short ones"),
    Case("logits_bf16", "sample_logits", lambda g: _mixed(g, dtype=torch.bfloat16),
         note="bfloat16 in, bfloat16 out", tags=("bfloat16",)),
    Case("logits_no_sequence", "sample_logits",
         lambda g: Call((torch.zeros(0, 4), torch.tensor([0]), torch.randn(5, 4, generator=g),
                         torch.zeros(0, dtype=torch.bool))),
         note="an empty batch: shape [0, V]"),
    Case("logits_bad_cu", "sample_logits",
         lambda g: Call((torch.randn(5, 4, generator=g), torch.tensor([0, 3, 3, 5]),
                         torch.randn(6, 4, generator=g), torch.tensor([True, True, True]))),
         note="an empty sequence in cu_seqlens: ValueError", tags=("errors",)),
    Case("logits_token_count_mismatch", "sample_logits",
         lambda g: Call((torch.randn(7, 4, generator=g), torch.tensor([0, 3, 5]),
                         torch.randn(6, 4, generator=g), torch.tensor([True, True]))),
         note="hidden has 7 rows but cu_seqlens[-1] = 5: ValueError", tags=("errors",)),
    Case("logits_needs_too_long", "sample_logits",
         lambda g: Call((torch.randn(5, 4, generator=g), torch.tensor([0, 3, 5]),
                         torch.randn(6, 4, generator=g), torch.tensor([True, True, True]))),
         note="three flags for two sequences: ValueError (zip would drop the extra one)", tags=("errors",)),
    Case("logits_needs_too_short", "sample_logits",
         lambda g: Call((torch.randn(5, 4, generator=g), torch.tensor([0, 1, 3, 5]),
                         torch.randn(6, 4, generator=g), torch.tensor([True, False]))),
         note="two flags for three sequences: ValueError", tags=("errors",)),
    Case("logits_needs_column", "sample_logits",
         lambda g: Call((torch.randn(5, 4, generator=g), torch.tensor([0, 3, 5]),
                         torch.randn(6, 4, generator=g), torch.tensor([[True], [False]]))),
         note="flags of shape [B, 1]: the right count, the wrong shape: ValueError", tags=("errors",)),
    Case("logits_2d_cu_seqlens", "sample_logits",
         lambda g: Call((torch.randn(5, 4, generator=g), torch.tensor([[0], [3], [5]]),
                         torch.randn(6, 4, generator=g), torch.tensor([True, True]))),
         note="cu_seqlens of shape [3, 1]: ValueError", tags=("errors",)),
    Case("logits_non_contiguous", "sample_logits", _views,
         note="hidden a column slice of a fused buffer, strided cu_seqlens and flags, a transposed table", tags=("non_contiguous",)),
]
