"""Tests of problem 75. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

RANK0 = [[0, 5], [3, 1], [1, 2]]
RANK2 = [[1, 0], [5, 3], [3, 2]]
COUNTS = [[3, 2, 1], [0, 0, 0], [2, 3, 1]]


def _example() -> list[torch.Tensor]:
    return [torch.tensor(RANK0), torch.zeros(0, 2, dtype=torch.int64), torch.tensor(RANK2)]


def _choices(gen: torch.Generator, t: int, k: int, e: int) -> torch.Tensor:
    """Each token's k distinct experts, in random order (as a router ranks them)."""
    if t == 0:
        return torch.zeros(0, k, dtype=torch.int64)
    return torch.stack([torch.randperm(e, generator=gen)[:k] for _ in range(t)])


def _ranks(gen: torch.Generator, r: int, e: int, k: int, most: int = 40,
           empty: tuple[int, ...] = ()) -> list[torch.Tensor]:
    sizes = torch.randint(1, most + 1, (r,), generator=gen).tolist()
    return [_choices(gen, 0 if s in empty else n, k, e) for s, n in enumerate(sizes)]


def _counts_call(gen: torch.Generator, r: int = 4, e: int = 16, k: int = 2,
                 empty: tuple[int, ...] = ()) -> Call:
    return Call((_ranks(gen, r, e, k, empty=empty), e))


def _last_rank_idle(gen: torch.Generator) -> Call:
    """No token chooses an expert of the last rank: its column is all zeros."""
    r, e, k = 4, 16, 2
    ranks = [_choices(gen, n, k, e - 4) for n in torch.randint(5, 30, (r,), generator=gen).tolist()]
    return Call((ranks, e))


def _same_rank_pairs(gen: torch.Generator) -> Call:
    """Every token's two experts live on one rank (8 experts per rank): two rows each."""
    r, e = 2, 16
    ranks = []
    for n in (12, 9):
        dest = torch.randint(0, r, (n, 1), generator=gen)
        local = torch.stack([torch.randperm(8, generator=gen)[:2] for _ in range(n)])
        ranks.append(dest * 8 + local)
    return Call((ranks, e))


def _counts_views(gen: torch.Generator) -> Call:
    a = _choices(gen, 14, 2, 12).t().contiguous().t()  # column-major [T, k]
    wide = torch.zeros(10, 7, dtype=torch.int64)
    wide[:, 1::2] = _choices(gen, 10, 3, 12)
    return Call(([a, wide[:, 1::2], _choices(gen, 6, 2, 12)], 12))


def _random_counts(gen: torch.Generator, r: int = 5, high: int = 20) -> torch.Tensor:
    return torch.randint(0, high, (r, r), generator=gen)


def _sparse_counts(gen: torch.Generator) -> torch.Tensor:
    """Rank 1 sends nothing, rank 3 receives nothing."""
    c = _random_counts(gen, 5)
    c[1] = 0
    c[:, 3] = 0
    return c


def _huge_counts(gen: torch.Generator) -> torch.Tensor:
    """Counts near 2**30: the prefix sums pass 2**31 (and 2**32)."""
    return torch.randint(2**29, 2**30, (6, 6), generator=gen)


def _order_call(gen: torch.Generator, t: int = 20, k: int = 2, e: int = 8, r: int = 4) -> Call:
    return Call((_choices(gen, t, k, e), e, r))


def _crowded(gen: torch.Generator) -> Call:
    """30 tokens over 4 experts on 2 ranks: each expert gets about 15 assignments, whose order
    must stay the assignment order."""
    return Call((_choices(gen, 30, 2, 4), 4, 2))


def _order_views(gen: torch.Generator) -> Call:
    wide = torch.zeros(16, 7, dtype=torch.int64)
    wide[:, 1::2] = _choices(gen, 16, 3, 12)
    return Call((wide[:, 1::2], 12, 3))


CASES: list[Case] = [
    Case("example_counts", "a2a_counts", lambda g: Call((_example(), 6)), public=True,
         note="rows sent from each rank to each rank; rank 1 has no tokens", tags=("counts",)),
    Case("example_offsets", "a2a_offsets", lambda g: Call((torch.tensor(COUNTS),)), public=True,
         note="exclusive prefix sums; the receive side is the transpose", tags=("offsets",)),
    Case("example_order", "send_order", lambda g: Call((torch.tensor(RANK0), 6, 3)),
         public=True, note="grouped by rank, then by expert, stable; and the inverse",
         tags=("order",)),
    # hidden: a2a_counts
    Case("counts_random", "a2a_counts", lambda g: _counts_call(g),
         note="4 ranks, 16 experts (4 per rank), top-2: contiguous blocks, not e % R",
         tags=("counts",)),
    Case("counts_eight_ranks", "a2a_counts", lambda g: _counts_call(g, 8, 32, 4),
         note="8 ranks, 32 experts, top-4", tags=("counts",)),
    Case("counts_same_rank_pairs", "a2a_counts", _same_rank_pairs,
         note="both experts of a token on one rank: two rows, not one token", tags=("counts",)),
    Case("counts_empty_ranks", "a2a_counts", lambda g: _counts_call(g, 4, 8, 2, empty=(0, 2)),
         note="ranks 0 and 2 have no tokens: zero rows", tags=("empty",)),
    Case("counts_last_rank_idle", "a2a_counts", _last_rank_idle,
         note="the last rank receives nothing: still an [R, R] matrix", tags=("empty",)),
    Case("counts_one_rank", "a2a_counts", lambda g: _counts_call(g, 1, 4, 2),
         note="R = 1: everything stays home", tags=("counts",)),
    Case("counts_top1", "a2a_counts", lambda g: _counts_call(g, 3, 6, 1),
         note="k = 1", tags=("counts",)),
    Case("counts_non_contiguous", "a2a_counts", _counts_views,
         note="column-major and strided choices", tags=("counts", "non_contiguous")),
    Case("counts_bad_expert", "a2a_counts",
         lambda g: Call(([torch.tensor([[0, 1]]), torch.tensor([[2, 8]])], 8)),
         note="expert id 8 with E = 8: ValueError", tags=("errors",)),
    Case("counts_negative_expert", "a2a_counts",
         lambda g: Call(([torch.tensor([[0, -1]]), torch.tensor([[2, 3]])], 8)),
         note="expert id -1: ValueError", tags=("errors",)),
    Case("counts_not_divisible", "a2a_counts",
         lambda g: Call(([_choices(g, 3, 2, 6) for _ in range(4)], 6)),
         note="6 experts over 4 ranks: ValueError", tags=("errors",)),
    Case("counts_int32_choices", "a2a_counts",
         lambda g: Call(([_choices(g, 3, 2, 4).int(), _choices(g, 3, 2, 4)], 4)),
         note="int32 choices: ValueError", tags=("errors",)),
    Case("counts_no_experts", "a2a_counts",
         lambda g: Call(([torch.zeros(0, 2, dtype=torch.int64), torch.zeros(0, 2, dtype=torch.int64)], 0)),
         note="num_experts = 0 over 2 ranks with no tokens (0 % 2 == 0): ValueError, not positive",
         tags=("errors",)),
    # hidden: a2a_offsets
    Case("offsets_random", "a2a_offsets", lambda g: Call((_random_counts(g),)),
         note="5 ranks, random counts", tags=("offsets",)),
    Case("offsets_sparse", "a2a_offsets", lambda g: Call((_sparse_counts(g),)),
         note="a rank that sends nothing, a rank that receives nothing", tags=("offsets",)),
    Case("offsets_huge", "a2a_offsets", lambda g: Call((_huge_counts(g),)),
         note="sums beyond 2**31: exact in int64"),
    Case("offsets_one_rank", "a2a_offsets", lambda g: Call((torch.tensor([[7]]),)),
         note="R = 1: offsets 0", tags=("offsets",)),
    Case("offsets_non_contiguous", "a2a_offsets",
         lambda g: Call((_random_counts(g, 6).t().contiguous().t(),)),
         note="counts stored column-major", tags=("offsets", "non_contiguous")),
    Case("offsets_not_square", "a2a_offsets", lambda g: Call((_random_counts(g, 4)[:3],)),
         note="[3, 4] counts: ValueError", tags=("errors",)),
    Case("offsets_negative", "a2a_offsets", lambda g: Call((torch.tensor([[1, 2], [-1, 0]]),)),
         note="a negative count: ValueError", tags=("errors",)),
    # hidden: send_order
    Case("order_random", "send_order", lambda g: _order_call(g),
         note="20 tokens, top-2 of 8 experts over 4 ranks", tags=("order",)),
    Case("order_two_ranks", "send_order", lambda g: _order_call(g, 24, 2, 8, 2),
         note="4 experts per rank: by expert inside a rank, not by rank alone", tags=("order",)),
    Case("order_crowded", "send_order", _crowded,
         note="many assignments per expert: stable, token by token", tags=("order",)),
    Case("order_top4", "send_order", lambda g: _order_call(g, 12, 4, 16, 4),
         note="k = 4: assignments numbered t * k + j", tags=("order",)),
    Case("order_one_token", "send_order", lambda g: _order_call(g, 1, 3, 6, 3),
         note="one token", tags=("order",)),
    Case("order_no_tokens", "send_order",
         lambda g: Call((torch.zeros(0, 2, dtype=torch.int64), 8, 4)),
         note="T = 0: empty order, [0, k] positions", tags=("empty",)),
    Case("order_non_contiguous", "send_order", _order_views,
         note="choices every other column of a wider buffer", tags=("order", "non_contiguous")),
    Case("order_bad_expert", "send_order", lambda g: Call((torch.tensor([[0, 1], [9, 2]]), 8, 2)),
         note="expert id 9 with E = 8: ValueError", tags=("errors",)),
    Case("order_not_divisible", "send_order", lambda g: Call((_choices(g, 5, 2, 6), 6, 4)),
         note="6 experts over 4 ranks: ValueError", tags=("errors",)),
    Case("order_no_experts", "send_order",
         lambda g: Call((torch.zeros(0, 2, dtype=torch.int64), 0, 2)),
         note="num_experts = 0, no tokens: ValueError (a positive multiple)", tags=("errors",)),
]
