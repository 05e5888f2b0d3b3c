"""Tests of problem 56. Kept small: on a CPU every kernel runs in Triton's interpreter."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

W3 = [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def _random(gen: torch.Generator, *, n: int = 40, vocab: int = 25, dim: int = 24,
            dtype: torch.dtype = torch.float32) -> Call:
    ids = torch.randint(0, vocab, (n,), generator=gen)
    return Call((ids, torch.randn(vocab, dim, generator=gen).to(dtype)))


CASES: list[Case] = [
    Case("example_small", "embedding_gather",
         lambda g: Call((torch.tensor([2, 0, 2]), torch.tensor(W3))), public=True, exact=True,
         note="three ids, one repeated"),
    Case("example_out_of_range", "embedding_gather",
         lambda g: Call((torch.tensor([1, 3]), torch.tensor(W3))), public=True,
         note="id 3 with V = 3 raises IndexError", tags=("errors",)),
    Case("random", "embedding_gather", lambda g: _random(g), exact=True,
         note="40 ids, d = 24 (not a power of two: masked columns)"),
    Case("wide_rows", "embedding_gather", lambda g: _random(g, n=6, dim=300), exact=True,
         note="d = 300: more columns than one block"),
    Case("exactly_one_block", "embedding_gather", lambda g: _random(g, n=5, dim=128), exact=True,
         note="d = 128"),
    Case("one_column", "embedding_gather", lambda g: _random(g, n=9, dim=1), exact=True,
         note="d = 1"),
    Case("bf16", "embedding_gather", lambda g: _random(g, n=12, dtype=torch.bfloat16), exact=True,
         note="bfloat16 table: bfloat16 out", tags=("bfloat16",)),
    Case("no_ids", "embedding_gather",
         lambda g: Call((torch.zeros(0, dtype=torch.int64), torch.randn(5, 3, generator=g))),
         exact=True, note="N = 0: an empty [0, d] result, no launch"),
    Case("table_column_slice", "embedding_gather",
         lambda g: Call((torch.randint(0, 20, (10,), generator=g),
                         torch.randn(20, 32, generator=g)[:, 1::2])),
         exact=True, note="the table is every other column of a wider one: row stride 32, "
                          "column stride 2 (a kernel assuming row * d reads the wrong values)", tags=("non_contiguous",)),
    Case("table_transposed", "embedding_gather",
         lambda g: Call((torch.randint(0, 12, (7,), generator=g),
                         torch.randn(24, 12, generator=g).t())),
         exact=True, note="a table stored [d, V] and used transposed: row stride 1", tags=("non_contiguous",)),
    Case("ids_strided", "embedding_gather",
         lambda g: Call((torch.randint(0, 15, (22,), generator=g)[::2],
                         torch.randn(15, 24, generator=g))),
         exact=True, note="ids every other element of a longer tensor: stride 2", tags=("non_contiguous",)),
    Case("negative_id", "embedding_gather",
         lambda g: Call((torch.tensor([0, -1]), torch.randn(4, 3, generator=g))),
         note="id -1 raises IndexError", tags=("errors",)),
]
