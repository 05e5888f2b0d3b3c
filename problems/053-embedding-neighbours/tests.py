"""Tests of problem 53. Public cases are the statement's examples, value for value."""

from __future__ import annotations

from typing import Any

import torch

from sandbox.problem import Call, Case

EXAMPLE = [[1.0, 0.0], [2.0, 0.2], [0.0, 1.0], [-1.0, 0.0], [0.7, 0.7], [10.0, -3.0]]


def _table(gen: torch.Generator, vocab: int, dim: int) -> torch.Tensor:
    # rows of very different norms: a dot product ranks them differently from cosine
    scales = torch.exp(torch.randn(vocab, 1, generator=gen) * 1.5)
    return torch.randn(vocab, dim, generator=gen) * scales


def _random(gen: torch.Generator, *, vocab: int = 60, dim: int = 8, queries: int = 10, k: int = 5,
            dtype: torch.dtype = torch.float32) -> Call:
    weight = _table(gen, vocab, dim).to(dtype)
    ids = torch.randint(0, vocab, (queries,), generator=gen)
    return Call((weight, ids, k))


def _duplicates(gen: torch.Generator) -> Call:
    weight = _table(gen, 30, 6)
    weight[17] = weight[4] * 3.0  # same direction, another length: cosine 1
    weight[25] = weight[4]
    # Queries from the group only: its ties (similarity 1) then sit inside the top-k, never
    # across its boundary, so the expected set of neighbours is unambiguous.
    return Call((weight, torch.tensor([4, 17, 25]), 3))


def _check(expected: Any, got: Any) -> str | None:
    """Similarities must match; ids too, except that exact ties may come in either order."""
    if not (isinstance(got, tuple) and len(got) == 2 and all(isinstance(t, torch.Tensor) for t in got)):
        return "expected a tuple (ids, sims) of two tensors"
    (e_ids, e_sims), (g_ids, g_sims) = expected, got
    for name, e, g in (("ids", e_ids, g_ids), ("sims", e_sims, g_sims)):
        if e.shape != g.shape or e.dtype != g.dtype:
            return f"{name}: expected {e.dtype} {tuple(e.shape)}, got {g.dtype} {tuple(g.shape)}"
    if not torch.allclose(g_sims, e_sims, atol=1e-5, rtol=1e-4):
        worst = (g_sims - e_sims).abs().max().item()
        return f"similarities differ (largest difference {worst:.3g}), or are not sorted"
    for row in range(e_ids.shape[0]):
        if e_ids[row].tolist() == g_ids[row].tolist():
            continue
        # Allow a permutation among equal similarities only.
        for e_id, g_id, s in zip(e_ids[row].tolist(), g_ids[row].tolist(), e_sims[row].tolist(), strict=True):
            if e_id != g_id and (e_sims[row] - s).abs().lt(1e-6).sum() < 2:
                return f"query row {row}: expected neighbour {e_id}, got {g_id}"
        if sorted(e_ids[row].tolist()) != sorted(g_ids[row].tolist()):
            return f"query row {row}: neighbours {g_ids[row].tolist()}, expected {e_ids[row].tolist()}"
    return None


CASES: list[Case] = [
    Case("example_cosine", "nearest_neighbours",
         lambda g: Call((torch.tensor(EXAMPLE), torch.tensor([0, 2]), 2)), public=True,
         check=_check, note="row 5 is long but points elsewhere: cosine, not dot product"),
    Case("example_k_too_large", "nearest_neighbours",
         lambda g: Call((torch.tensor(EXAMPLE), torch.tensor([1]), 6)), public=True,
         note="k = 6 with V = 6: only 5 other tokens, ValueError", tags=("errors",)),
    Case("random_small", "nearest_neighbours", lambda g: _random(g), check=_check,
         note="60 tokens, rows of very different norms"),
    Case("random_wide", "nearest_neighbours", lambda g: _random(g, vocab=500, dim=32, queries=40, k=12),
         check=_check, note="500 tokens, 40 queries"),
    Case("all_others", "nearest_neighbours", lambda g: _random(g, vocab=9, queries=4, k=8),
         check=_check, note="k = V - 1: every other token, sorted"),
    Case("k_one", "nearest_neighbours", lambda g: _random(g, k=1), check=_check, note="k = 1"),
    Case("duplicate_rows", "nearest_neighbours", _duplicates, check=_check,
         note="other tokens with the same direction are neighbours with similarity 1; only the query itself is left out"),
    Case("repeated_queries", "nearest_neighbours",
         lambda g: Call((_table(g, 40, 5), torch.tensor([3, 3, 7, 3]), 3)), check=_check,
         note="the same query several times"),
    Case("bf16_table", "nearest_neighbours", lambda g: _random(g, dtype=torch.bfloat16), check=_check,
         note="bfloat16 table: similarities computed and returned in float32", tags=("bfloat16",)),
    Case("big_vocab", "nearest_neighbours",
         lambda g: _random(g, vocab=65536, dim=64, queries=16, k=8), check=_check,
         note="65536 tokens: the full V x V similarity (16 GiB) exceeds the memory limit"),
    Case("k_zero", "nearest_neighbours", lambda g: Call((_table(g, 10, 3), torch.tensor([1]), 0)),
         note="k = 0: ValueError", tags=("errors",)),
    Case("bad_token", "nearest_neighbours", lambda g: Call((_table(g, 10, 3), torch.tensor([2, 10]), 2)),
         note="query id 10 with V = 10: IndexError", tags=("errors",)),
    Case("negative_token", "nearest_neighbours",
         lambda g: Call((_table(g, 10, 3), torch.tensor([2, -1]), 2)),
         note="query id -1: IndexError rather than the last token", tags=("errors",)),
    Case("no_queries", "nearest_neighbours",
         lambda g: Call((_table(g, 12, 4), torch.zeros(0, dtype=torch.int64), 3)),
         note="no query at all: ids and sims of shape [0, k]"),
    Case("no_queries_bad_k", "nearest_neighbours",
         lambda g: Call((_table(g, 12, 4), torch.zeros(0, dtype=torch.int64), 12)),
         note="no query, k = V: still ValueError", tags=("errors",)),
    Case("non_contiguous", "nearest_neighbours",
         lambda g: Call((_table(g, 5, 80).t(), torch.randint(0, 80, (12,), generator=g)[::2], 4)),
         check=_check, note="a table stored [d, V] and used transposed, strided query ids", tags=("non_contiguous",)),
]
