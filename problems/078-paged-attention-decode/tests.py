"""Tests of problem 78. Public cases are the statement's examples, value for value.

Random cases build a block pool the way a serving engine leaves it: each row owns the blocks its
context needs (drawn from a shuffled pool, so a row's blocks are scattered and out of order),
table entries past those hold -1 (or junk), and every slot that no row's context covers (free
blocks, the tail of each row's last block) holds NaN, or huge finite values."""

from __future__ import annotations

import math

import torch

from sandbox.problem import Call, Case

NAN = float("nan")
LN2, LN3 = math.log(2.0), math.log(3.0)
# block_size 2, four blocks; H_kv = 1, D = 1. Row 0: blocks 2, 0 (three tokens: block 0's slot 1
# is the tail); row 1: block 1 (two tokens), then an unused entry -1; block 3 is free.
EX_K = [[[[LN2]], [[NAN]]], [[[LN3]], [[0.0]]], [[[0.0]], [[0.0]]], [[[NAN]], [[NAN]]]]
EX_V = [[[[2.0]], [[NAN]]], [[[4.0]], [[8.0]]], [[[4.0]], [[8.0]]], [[[NAN]], [[NAN]]]]
EX_Q = [[[0.0], [1.0]], [[1.0], [2.0]]]
EX_TABLES = [[2, 0], [1, -1]]


def _example(lens: list[int]) -> Call:
    return Call((torch.tensor(EX_Q), torch.tensor(EX_K), torch.tensor(EX_V),
                 torch.tensor(EX_TABLES), torch.tensor(lens), 1.0))


def _gqa_example(gen: torch.Generator) -> Call:
    k = torch.zeros(1, 1, 2, 1)
    v = torch.tensor([[[[1.0], [2.0]]]])
    return Call((torch.ones(1, 4, 1), k, v, torch.tensor([[0]]), torch.tensor([1]), 1.0))


def _lengths(gen: torch.Generator, b: int, block_size: int, max_blocks: int) -> list[int]:
    """Random lengths in [1, span], with one row ending inside a block and one on its boundary."""
    span = block_size * max_blocks
    lens = torch.randint(1, span + 1, (b,), generator=gen).tolist()
    lens[0] = span - block_size // 2  # the last block half full
    if b > 1:
        lens[1] = block_size * (max_blocks // 2)  # exactly full blocks: the next entry is unused
    return lens


def _paged(gen: torch.Generator, *, b: int = 4, h: int = 8, hkv: int = 2, d: int = 16,
           block_size: int = 4, max_blocks: int = 5, lens: list[int] | None = None,
           scale: float | None = None, stale: str = "nan", junk_entries: bool = False,
           share_prefix: bool = False, q_scale: float = 1.0, dtype: torch.dtype = torch.float32,
           index_dtype: torch.dtype = torch.int64) -> Call:
    if lens is None:
        lens = _lengths(gen, b, block_size, max_blocks)
    needed = [-(-max(n, 0) // block_size) for n in lens]
    num_blocks = sum(needed) + 3  # a few free blocks too
    pool = torch.randperm(num_blocks, generator=gen).tolist()
    tables = torch.full((b, max_blocks), -1, dtype=torch.int64)
    if junk_entries:  # entries past the needed ones: beyond the pool, or negative
        junk = torch.randint(num_blocks, 10 * num_blocks, (b, max_blocks), generator=gen)
        tables = torch.where(torch.rand(b, max_blocks, generator=gen) < 0.5, junk, -junk)
    for row, count in enumerate(needed):
        for j in range(count):
            tables[row, j] = pool.pop()
    if share_prefix and b > 1:  # row 1 continues row 0's first blocks (a shared prompt)
        shared = min(needed[0], needed[1]) - 1
        tables[1, :shared] = tables[0, :shared]
    k = torch.randn(num_blocks, block_size, hkv, d, generator=gen)
    v = torch.randn(num_blocks, block_size, hkv, d, generator=gen)
    used = torch.zeros(num_blocks, block_size, dtype=torch.bool)
    for row, n in enumerate(lens):
        for t in range(max(n, 0)):
            used[tables[row, t // block_size], t % block_size] = True
    where = ~used[:, :, None, None]
    if stale == "nan":
        k, v = k.masked_fill(where, NAN), v.masked_fill(where, NAN)
    else:  # an earlier sequence's values, far larger than the live ones
        k, v = torch.where(where, k * 1e4, k), torch.where(where, v * 1e4, v)
    q = torch.randn(b, h, d, generator=gen) * q_scale
    scale = 1.0 / math.sqrt(d) if scale is None else scale
    return Call((q.to(dtype), k.to(dtype), v.to(dtype), tables.to(index_dtype),
                 torch.tensor(lens, dtype=index_dtype), scale))


def _views(gen: torch.Generator) -> Call:
    """q transposed in memory, K and V the halves of one fused [num_blocks, 2, ...] buffer, the
    block table every other column of a wider one, the lengths a strided view (stale slots
    hold large finite values here: NaN is tested elsewhere)."""
    q, k, v, tables, lens, scale = _paged(gen, stale="large").args
    b, h, d = q.shape
    q_view = q.transpose(1, 2).contiguous().transpose(1, 2)
    kv = torch.stack([k, v], dim=1)
    wide = torch.full((b, 2 * tables.shape[1]), -1, dtype=tables.dtype)
    wide[:, 1::2] = tables
    lens_wide = torch.stack([lens, torch.zeros_like(lens)], dim=1).reshape(-1)
    return Call((q_view, kv[:, 0], kv[:, 1], wide[:, 1::2], lens_wide[::2], scale))


def _fp16_overflow(gen: torch.Generator) -> Call:
    """float16 inputs whose products q . k exceed 65504 (the float16 maximum) for one key per
    row, while scale * q . k is an ordinary float32 number: scores must be computed in float32."""
    q, k, v, tables, lens, scale = _paged(gen, b=3, h=4, hkv=2, d=64, block_size=8, max_blocks=3,
                                         q_scale=40.0).args
    for row in range(3):
        block = int(tables[row, 0])
        k[block, 0, 0] = 40.0 * torch.sign(q[row, 0])  # q[row, 0] . k = 40 * sum |q| ~ 80000
    half = torch.float16
    return Call((q.to(half), k.to(half), v.to(half), tables, lens, scale))


def _not_divisible(gen: torch.Generator) -> Call:
    q, k, v, tables, lens, scale = _paged(gen, h=6, hkv=4).args
    return Call((q, k, v, tables, lens, scale))


def _needed_entry(gen: torch.Generator, *, negative: bool) -> Call:
    """Row 1 (9 tokens in blocks of 4) needs entries 0, 1, 2; entry 2 holds -1, or a block
    number past the pool."""
    q, k, v, tables, lens, scale = _paged(gen, lens=[6, 9, 3, 12], max_blocks=4).args
    tables = tables.clone()
    tables[1, 2] = -1 if negative else k.shape[0] + 2
    return Call((q, k, v, tables, lens, scale))


def _bad_lengths(gen: torch.Generator, lens: list[int]) -> Call:
    q, k, v, tables, _, scale = _paged(gen, lens=[5, 7, 2, 20], max_blocks=5).args
    return Call((q, k, v, tables, torch.tensor(lens), scale))


CASES: list[Case] = [
    Case("example_paged", "paged_decode_attention", lambda g: _example([3, 2]), public=True,
         note="two rows through their block tables; the tail of row 0's last block and the free block hold NaN",
         tags=("table",)),
    Case("example_gqa", "paged_decode_attention", _gqa_example, public=True,
         note="four query heads over two key/value heads: heads 0, 1 read head 0, heads 2, 3 read head 1",
         tags=("gqa",)),
    Case("example_context_too_long", "paged_decode_attention", lambda g: _example([3, 5]), public=True,
         note="row 1 claims 5 tokens but its table has room for 4: IndexError", tags=("errors",)),
    Case("random_gqa", "paged_decode_attention", lambda g: _paged(g),
         note="8 query heads over 2 key/value heads (groups of 4 consecutive heads), scattered blocks",
         tags=("gqa",)),
    Case("multi_head", "paged_decode_attention", lambda g: _paged(g, h=4, hkv=4),
         note="H_kv = H: one key/value head per query head", tags=("gqa",)),
    Case("multi_query", "paged_decode_attention", lambda g: _paged(g, h=4, hkv=1),
         note="H_kv = 1: every query head reads the same key/value head", tags=("gqa",)),
    Case("scale_argument", "paged_decode_attention", lambda g: _paged(g, scale=0.7),
         note="scale 0.7, not 1/sqrt(D) = 0.25: the argument is the scale, applied once",
         tags=("scale",)),
    Case("partial_last_blocks", "paged_decode_attention",
         lambda g: _paged(g, lens=[1, 5, 13, 18], block_size=4, max_blocks=5),
         note="every row ends inside a block: the slots after its last token hold NaN",
         tags=("context",)),
    Case("full_last_blocks", "paged_decode_attention",
         lambda g: _paged(g, lens=[4, 8, 20, 12], block_size=4, max_blocks=5),
         note="contexts that end on a block boundary: the next table entry is unused (-1)",
         tags=("context",)),
    Case("junk_table_entries", "paged_decode_attention", lambda g: _paged(g, junk_entries=True),
         note="unused table entries hold numbers past the pool or negative: never follow them",
         tags=("table",)),
    Case("stale_large_values", "paged_decode_attention", lambda g: _paged(g, stale="large"),
         note="slots past the context hold values 10^4 times larger (finite): they must get no weight",
         tags=("context",)),
    Case("shared_prefix", "paged_decode_attention", lambda g: _paged(g, share_prefix=True),
         note="two rows whose tables start with the same blocks (a shared prompt)",
         tags=("table",)),
    Case("empty_context", "paged_decode_attention",
         lambda g: _paged(g, lens=[0, 7, 0, 3]), note="a row of context 0 gives zeros, not NaN",
         tags=("empty",)),
    Case("one_token", "paged_decode_attention", lambda g: _paged(g, lens=[1, 1, 2, 1]),
         note="a context of one token: the output is its value", tags=("context",)),
    Case("large_scores", "paged_decode_attention", lambda g: _paged(g, q_scale=30.0),
         note="scores in the hundreds: the softmax must subtract the maximum", tags=("precision",)),
    Case("fp16_scores_overflow", "paged_decode_attention", _fp16_overflow,
         note="float16 inputs with q . k beyond 65504: scores and softmax in float32",
         tags=("precision",)),
    Case("bf16", "paged_decode_attention", lambda g: _paged(g, dtype=torch.bfloat16),
         note="bfloat16 in, bfloat16 out", tags=("precision",)),
    Case("int32_tables", "paged_decode_attention", lambda g: _paged(g, index_dtype=torch.int32),
         note="int32 block tables and context lengths (as vLLM stores them)", tags=("table",)),
    Case("non_contiguous", "paged_decode_attention", _views,
         note="q transposed in memory, K and V halves of one fused buffer, a strided block table and lengths",
         tags=("table", "non_contiguous")),
    Case("heads_not_divisible", "paged_decode_attention", _not_divisible,
         note="6 query heads over 4 key/value heads: ValueError", tags=("errors",)),
    Case("needed_entry_negative", "paged_decode_attention", lambda g: _needed_entry(g, negative=True),
         note="a row's context needs a table entry that holds -1: IndexError (no wrap-around)",
         tags=("errors",)),
    Case("needed_entry_past_pool", "paged_decode_attention", lambda g: _needed_entry(g, negative=False),
         note="a needed table entry past the pool: IndexError", tags=("errors",)),
    Case("context_too_long", "paged_decode_attention", lambda g: _bad_lengths(g, [5, 26, 2, 20]),
         note="a context longer than max_blocks * block_size: IndexError", tags=("errors",)),
    Case("negative_context", "paged_decode_attention", lambda g: _bad_lengths(g, [5, -1, 2, 20]),
         note="a negative context length: IndexError", tags=("errors",)),
]
