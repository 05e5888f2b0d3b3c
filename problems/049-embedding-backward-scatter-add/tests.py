"""Tests of problem 49. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case


def _random(gen: torch.Generator, *, shape: tuple[int, ...] = (6, 10), vocab: int = 12, dim: int = 8,
            pad_id: int = 0, pad_rate: float = 0.25, dtype: torch.dtype = torch.float32) -> Call:
    ids = torch.randint(0, vocab, shape, generator=gen)
    ids = torch.where(torch.rand(shape, generator=gen) < pad_rate, torch.tensor(pad_id), ids)
    grad = torch.randn(*shape, dim, generator=gen).to(dtype)
    return Call((ids, grad, vocab, pad_id))


def _bad(gen: torch.Generator, bad: int, pad_id: int = 0) -> Call:
    call = _random(gen, shape=(3, 4), vocab=10, pad_id=pad_id)
    ids = call.args[0].clone()
    ids[2, 1] = bad
    return Call((ids, call.args[1], 10, pad_id))


def _views(gen: torch.Generator) -> Call:
    """ids transposed out of a [T, B] buffer, grad_output every other column of a wider one."""
    ids = torch.randint(0, 9, (7, 5), generator=gen)
    ids[torch.rand(7, 5, generator=gen) < 0.3] = 0
    wide = torch.randn(5, 7, 12, generator=gen)
    return Call((ids.t(), wide[..., 1::2], 9, 0))


def _broadcast_grad(gen: torch.Generator) -> Call:
    """The upstream gradient of a sum: one [d] vector expanded to every position (stride 0)."""
    ids = torch.randint(0, 6, (4, 8), generator=gen)
    grad = torch.randn(5, generator=gen).expand(4, 8, 5)
    return Call((ids, grad, 6, 3))


CASES: list[Case] = [
    Case(
        "example_repeats_and_padding", "embedding_backward",
        lambda g: Call((
            torch.tensor([[1, 3, 1], [0, 2, 0]]),
            torch.tensor([[[1.0, 0.0], [0.0, 1.0], [2.0, 2.0]], [[5.0, 5.0], [1.0, -1.0], [7.0, 7.0]]]),
            4, 0,
        )),
        public=True, note="id 1 appears twice and accumulates; the two padding positions add nothing",
    ),
    Case(
        "example_pad_outside", "embedding_backward",
        lambda g: Call((torch.tensor([2, -1, 2]),
                        torch.tensor([[1.0, 1.0], [9.0, 9.0], [0.5, 0.0]]), 3, -1)),
        public=True, note="pad_id = -1; rows 0 and 1 are never used and stay zero",
    ),
    Case(
        "example_bad_id", "embedding_backward",
        lambda g: Call((torch.tensor([0, 3]), torch.ones(2, 2), 3, -1)),
        public=True, note="id 3 with num_embeddings = 3 raises IndexError", tags=("errors",),
    ),
    Case("random_pad_inside", "embedding_backward", lambda g: _random(g, pad_id=5),
         note="many repeats, padding id inside the vocabulary"),
    Case("random_pad_outside", "embedding_backward", lambda g: _random(g, pad_id=-1),
         note="padding id -1"),
    Case("random_pad_zero", "embedding_backward", lambda g: _random(g, pad_id=0, vocab=4),
         note="four rows, heavy repetition, pad_id = 0"),
    Case("no_padding_present", "embedding_backward", lambda g: _random(g, pad_id=99, pad_rate=0.0),
         note="pad_id = 99 never occurs"),
    Case("pad_id_is_v", "embedding_backward", lambda g: _random(g, vocab=10, pad_id=10),
         note="pad_id = V occurs in ids: those positions send nothing, no IndexError", tags=("errors",)),
    Case("pad_id_above_v", "embedding_backward", lambda g: _random(g, vocab=10, pad_id=1000),
         note="pad_id far above V occurs in ids: dropped, not out of range", tags=("errors",)),
    Case("unused_rows", "embedding_backward",
         lambda g: _random(g, vocab=50, shape=(2, 3), pad_id=7), note="most rows get no gradient"),
    Case("ids_3d", "embedding_backward", lambda g: _random(g, shape=(2, 3, 5), pad_id=1),
         note="ids [2, 3, 5], grad_output [2, 3, 5, d]"),
    Case("ids_scalar", "embedding_backward",
         lambda g: Call((torch.tensor(4), torch.randn(6, generator=g), 8, 0)),
         note="a 0-d id and a [d] gradient"),
    Case("ids_empty", "embedding_backward",
         lambda g: Call((torch.zeros(0, dtype=torch.int64), torch.zeros(0, 5), 6, 0)),
         note="no tokens: an all-zero [V, d] gradient"),
    Case("bf16_heavy_repeats", "embedding_backward",
         lambda g: _random(g, shape=(40, 100), vocab=3, dim=16, pad_id=-1, dtype=torch.bfloat16),
         note="bfloat16: about 1300 repeats per row; summing in bfloat16 loses the result", tags=("bfloat16",)),
    Case("bf16_dtype", "embedding_backward",
         lambda g: _random(g, pad_id=2, dtype=torch.bfloat16), note="bfloat16 in, bfloat16 out", tags=("bfloat16",)),
    Case("bad_id_too_large", "embedding_backward", lambda g: _bad(g, 10),
         note="id = V raises IndexError", tags=("errors",)),
    Case("bad_id_negative", "embedding_backward", lambda g: _bad(g, -1),
         note="id -1 (pad_id is 0) raises IndexError rather than wrapping", tags=("errors",)),
    Case("bad_id_negative_other_pad", "embedding_backward", lambda g: _bad(g, -3, pad_id=-1),
         note="id -3 while pad_id = -1 raises IndexError", tags=("errors",)),
    Case("non_contiguous", "embedding_backward", _views,
         note="transposed ids and a strided grad_output: .view(-1) on them fails", tags=("non_contiguous",)),
    Case("expanded_grad_output", "embedding_backward", _broadcast_grad,
         note="grad_output expanded from one [d] vector (the gradient of a sum), stride 0", tags=("non_contiguous",)),
]
