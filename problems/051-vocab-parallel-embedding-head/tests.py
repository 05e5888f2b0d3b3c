"""Tests of problem 51. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

EXAMPLE_SHARDS = [[[0.0], [1.0]], [[2.0], [-1.0]]]


def _shards(gen: torch.Generator, sizes: list[int], dim: int, scale: float = 1.0,
            dtype: torch.dtype = torch.float32) -> list[torch.Tensor]:
    return [(torch.randn(n, dim, generator=gen) * scale).to(dtype) for n in sizes]


def _embed(gen: torch.Generator, sizes: list[int], shape: tuple[int, ...] = (5, 7),
           dtype: torch.dtype = torch.float32) -> Call:
    ids = torch.randint(0, sum(sizes), shape, generator=gen)
    return Call((ids, _shards(gen, sizes, 6, dtype=dtype)))


def _head(gen: torch.Generator, sizes: list[int], n: int = 12, scale: float = 1.0) -> Call:
    hidden = torch.randn(n, 8, generator=gen)
    targets = torch.randint(0, sum(sizes), (n,), generator=gen)
    return Call((hidden, _shards(gen, sizes, 8, scale), targets))


def _tie(gen: torch.Generator) -> Call:
    # Integer tables: every logit is exact, and rows have their maximum in two shards.
    sizes = [3, 4, 2]
    full = torch.randint(-3, 4, (9, 4), generator=gen).float()
    full[[1, 5, 8]] = 3.0  # the largest row, in all three shards: tokens 1, 5 and 8 tie
    hidden = torch.randint(0, 3, (10, 4), generator=gen).float()  # >= 0, so they win
    return Call((hidden, list(full.split(sizes)), torch.randint(0, 9, (10,), generator=gen)))


def _tie_wide(gen: torch.Generator) -> Call:
    # Shards of more than 3 rows whose maximum is reached by several rows of the same shard
    # and of other shards: per shard, only an argmax that returns the first maximum (max,
    # argmax) is right; topk(1) on CPU returns another of the tied positions for such rows.
    sizes = [6, 8, 5]
    full = torch.randint(-3, 3, (19, 4), generator=gen).float()  # entries <= 2
    full[[2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 16, 17]] = 3.0  # tokens 2..13, 16, 17 tie
    hidden = torch.randint(0, 3, (10, 4), generator=gen).float()
    hidden[:, 0] = 1.0  # every row scores 3 * sum(h) on the tied tokens, less elsewhere
    return Call((hidden, list(full.split(sizes)), torch.randint(0, 19, (10,), generator=gen)))


def _embed_views(gen: torch.Generator) -> Call:
    """ids transposed, shards every other column of wider tables."""
    ids = torch.randint(0, 15, (6, 4), generator=gen).t()
    shards = [torch.randn(n, 10, generator=gen)[:, ::2] for n in (7, 3, 5)]
    return Call((ids, shards))


def _head_views(gen: torch.Generator) -> Call:
    """hidden transposed out of a [d, N] buffer, shards stored [d, V_i] and used transposed."""
    hidden = torch.randn(8, 12, generator=gen).t()
    shards = [torch.randn(8, n, generator=gen).t() for n in (10, 14, 6)]
    targets = torch.randint(0, 30, (24,), generator=gen)[::2]
    return Call((hidden, shards, targets))


CASES: list[Case] = [
    Case("example_vp_embed", "vp_embed",
         lambda g: Call((torch.tensor([4, 0, 2]),
                         [torch.tensor([[1.0, 1.0], [2.0, 2.0]]), torch.tensor([[3.0, 3.0]]),
                          torch.tensor([[4.0, 4.0], [5.0, 5.0]])])),
         public=True, note="three shards of 2, 1 and 2 rows; id 2 lives in the middle shard"),
    Case("example_vp_argmax_logprob", "vp_argmax_logprob",
         lambda g: Call((torch.tensor([[1.0], [-1.0]]),
                         [torch.tensor(s) for s in EXAMPLE_SHARDS], torch.tensor([0, 3]))),
         public=True, note="V = 4 in two shards; the winners sit in different shards"),
    Case("example_tie", "vp_argmax_logprob",
         lambda g: Call((torch.tensor([[1.0]]),
                         [torch.tensor([[0.0], [1.0]]), torch.tensor([[1.0], [-1.0]])],
                         torch.tensor([2]))),
         public=True, note="tokens 1 and 2 tie across shards: the smaller id wins"),
    Case("embed_two_shards", "vp_embed", lambda g: _embed(g, [9, 7]), note="two uneven shards"),
    Case("embed_five_shards", "vp_embed", lambda g: _embed(g, [4, 1, 6, 3, 5]),
         note="five shards, one with a single row"),
    Case("embed_one_shard", "vp_embed", lambda g: _embed(g, [13]), note="k = 1"),
    Case("embed_ids_3d", "vp_embed", lambda g: _embed(g, [5, 5, 5], shape=(2, 3, 4)),
         note="ids [2, 3, 4]"),
    Case("embed_bf16", "vp_embed", lambda g: _embed(g, [6, 8], dtype=torch.bfloat16),
         note="bfloat16 shards: bfloat16 out", tags=("bfloat16",)),
    Case("embed_id_too_large", "vp_embed",
         lambda g: Call((torch.tensor([[0, 5], [16, 2]]), _shards(g, [8, 8], 3))),
         note="id 16 belongs to no shard: IndexError", tags=("errors",)),
    Case("embed_negative_id", "vp_embed",
         lambda g: Call((torch.tensor([3, -1]), _shards(g, [8, 8], 3))),
         note="id -1 belongs to no shard: IndexError", tags=("errors",)),
    Case("head_two_shards", "vp_argmax_logprob", lambda g: _head(g, [20, 30]),
         note="two uneven shards"),
    Case("head_four_shards", "vp_argmax_logprob", lambda g: _head(g, [10, 25, 5, 40]),
         note="four shards"),
    Case("head_one_shard", "vp_argmax_logprob", lambda g: _head(g, [33]), note="k = 1"),
    Case("head_large_logits", "vp_argmax_logprob", lambda g: _head(g, [20, 20, 20], scale=60.0),
         note="logits in the hundreds: exp without subtracting a maximum overflows"),
    Case("head_peaked_shard", "vp_argmax_logprob",
         lambda g: Call((torch.ones(4, 2), [torch.full((5, 2), -20.0), torch.full((3, 2), 20.0)],
                         torch.tensor([0, 5, 7, 2]))),
         note="one shard dominates by e^80: its local sum must be rescaled, the others vanish"),
    Case("head_ties", "vp_argmax_logprob", _tie,
         note="exact ties between shards: the smallest id wins"),
    Case("head_single_row", "vp_argmax_logprob", lambda g: _head(g, [7, 9], n=1), note="N = 1"),
    Case("head_ties_inside_shards", "vp_argmax_logprob", _tie_wide,
         note="ties inside shards of 5 to 8 rows and across shards: a per-shard topk(1) may "
              "return a later tied row; the smallest id wins"),
    Case("head_target_too_large", "vp_argmax_logprob",
         lambda g: Call((torch.randn(3, 4, generator=g), _shards(g, [5, 6], 4),
                         torch.tensor([0, 11, 3]))),
         note="target 11 with V = 11: IndexError (no shard owns it)", tags=("errors",)),
    Case("head_target_negative", "vp_argmax_logprob",
         lambda g: Call((torch.randn(3, 4, generator=g), _shards(g, [5, 6], 4),
                         torch.tensor([2, -1, 3]))),
         note="target -1: IndexError rather than wrapping to the last token", tags=("errors",)),
    Case("embed_ids_scalar", "vp_embed",
         lambda g: Call((torch.randint(0, 9, (), generator=g), _shards(g, [4, 5], 3))),
         note="a 0-d id (any shape includes 0-d): a [d] result"),
    Case("embed_empty_ids", "vp_embed",
         lambda g: Call((torch.zeros(0, dtype=torch.int64), _shards(g, [4, 5], 3))),
         note="no ids (any shape includes empty): a [0, d] result; ids.min() would raise"),
    Case("embed_empty_ids_2d", "vp_embed",
         lambda g: Call((torch.zeros(3, 0, dtype=torch.int64), _shards(g, [2, 6, 1], 5))),
         note="ids of shape [3, 0]: a [3, 0, d] result"),
    Case("embed_non_contiguous", "vp_embed", _embed_views,
         note="transposed ids and shards that are strided views of wider tables", tags=("non_contiguous",)),
    Case("head_non_contiguous", "vp_argmax_logprob", _head_views,
         note="transposed hidden states and shards, strided targets", tags=("non_contiguous",)),
]
