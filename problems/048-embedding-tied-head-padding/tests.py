"""Tests of problem 48. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

# The table of the statement's examples: row 0 (the padding id there) is deliberately non-zero.
W4 = [[9.0, 9.0], [1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]


def _ids(gen: torch.Generator, shape: tuple[int, ...], vocab: int) -> torch.Tensor:
    return torch.randint(0, vocab, shape, generator=gen, dtype=torch.int64)


def _weight(gen: torch.Generator, vocab: int, dim: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(vocab, dim, generator=gen).to(dtype)


def _mask(gen: torch.Generator, batch: int, t: int, side: str, min_len: int = 1) -> torch.Tensor:
    lengths = torch.randint(min_len, t + 1, (batch,), generator=gen)
    pos = torch.arange(t).expand(batch, t)
    if side == "right":
        return pos < lengths[:, None]
    return pos >= (t - lengths)[:, None]


def _seqs(gen: torch.Generator, batch: int, max_len: int, vocab: int) -> list[list[int]]:
    lengths = torch.randint(0, max_len + 1, (batch,), generator=gen).tolist()
    return [torch.randint(0, vocab, (n,), generator=gen).tolist() for n in lengths]


# --- embed -------------------------------------------------------------------------------


def _embed_random(gen: torch.Generator, *, pad_id: int, shape: tuple[int, ...] = (4, 9),
                  dtype: torch.dtype = torch.float32, with_pad: bool = True) -> Call:
    vocab, dim = 50, 16
    ids = _ids(gen, shape, vocab)
    if with_pad:
        ids = torch.where(torch.rand(shape, generator=gen) < 0.3, torch.tensor(pad_id), ids)
    return Call((ids, _weight(gen, vocab, dim, dtype), pad_id))


def _embed_bad_id(gen: torch.Generator, *, bad: int, pad_id: int) -> Call:
    ids = _ids(gen, (3, 5), 20)
    ids[1, 2] = bad
    return Call((ids, _weight(gen, 20, 4), pad_id))


def _embed_views(gen: torch.Generator, *, pad_id: int) -> Call:
    """ids transposed out of a [T, B] buffer, the table every other column of a wider one."""
    vocab, dim = 30, 8
    ids = _ids(gen, (9, 4), vocab)
    ids = torch.where(torch.rand(9, 4, generator=gen) < 0.3, torch.tensor(pad_id), ids).t()
    wide = torch.randn(vocab, 2 * dim, generator=gen)
    return Call((ids, wide[:, 1::2], pad_id))


def _embed_beams(gen: torch.Generator) -> Call:
    """One prompt broadcast to 3 beams: ids of stride 0 along the batch."""
    prompt = _ids(gen, (7,), 20)
    prompt[2] = 0
    return Call((prompt[None].expand(3, 7), _weight(gen, 20, 6), 0))


# embed outputs are compared with the float tolerance, not bit for bit: a correct `out * mask`
# gives -0.0 at padding, which is a zero too.
CASES: list[Case] = [
    Case(
        "example_embed", "embed",
        lambda g: Call((torch.tensor([[2, 3, 0], [1, 0, 0]]), torch.tensor(W4), 0)),
        public=True,
        note="pad_id = 0 selects a zero vector although row 0 of the table is [9, 9]",
    ),
    Case(
        "example_embed_pad_minus_one", "embed",
        lambda g: Call((torch.tensor([3, -1, 0]), torch.tensor(W4), -1)),
        public=True,
        note="pad_id = -1 lies outside the vocabulary; id 0 is an ordinary token here",
    ),
    Case(
        "example_embed_out_of_range", "embed",
        lambda g: Call((torch.tensor([1, 4]), torch.tensor(W4), 0)),
        public=True,
        note="id 4 in a vocabulary of 4 rows raises IndexError", tags=("errors",),
    ),
    Case(
        "example_last_token_logits", "last_token_logits",
        lambda g: Call((
            torch.tensor([[[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]],
                          [[5.0, 5.0], [1.0, 1.0], [2.0, -1.0]]]),
            torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]),
            torch.tensor([[True, True, False], [False, True, True]]),
        )),
        public=True,
        note="row 0 is right-padded (last real token at t = 1), row 1 left-padded (t = 2)",
    ),
    Case(
        "example_pad_batch_right", "pad_batch",
        lambda g: Call(([[5, 6, 7], [8], []], 0)),
        public=True, exact=True, note="right padding (the default side), with an empty sequence",
    ),
    Case(
        "example_pad_batch_left", "pad_batch",
        lambda g: Call(([[5, 6, 7], [8]], -1), {"side": "left"}),
        public=True, exact=True, note="left padding with pad_id = -1",
    ),
    # hidden: embed
    Case("embed_random", "embed", lambda g: _embed_random(g, pad_id=7),
         note="random ids with padding, pad_id inside the vocabulary, its row non-zero"),
    Case("embed_pad_outside_vocab", "embed", lambda g: _embed_random(g, pad_id=-1),
         note="pad_id = -1, outside the vocabulary"),
    Case("embed_pad_equals_vocab", "embed", lambda g: _embed_random(g, pad_id=50),
         note="pad_id = V, one past the last row"),
    Case("embed_no_padding", "embed", lambda g: _embed_random(g, pad_id=0, with_pad=False),
         note="no padding at all; id 0 still ordinary if present"),
    Case("embed_bf16", "embed", lambda g: _embed_random(g, pad_id=3, dtype=torch.bfloat16),
         note="bfloat16 table: the output stays bfloat16"),
    Case("embed_ids_3d", "embed", lambda g: _embed_random(g, pad_id=1, shape=(2, 3, 4)),
         note="ids of shape [2, 3, 4]: output [2, 3, 4, d]"),
    Case("embed_ids_scalar", "embed",
         lambda g: Call((torch.tensor(5), _weight(g, 10, 6), 0)),
         note="a 0-d id gives a [d] vector"),
    Case("embed_ids_scalar_pad", "embed",
         lambda g: Call((torch.tensor(0), _weight(g, 10, 6), 0)),
         note="a 0-d padding id gives a zero [d] vector"),
    Case("embed_id_too_large", "embed", lambda g: _embed_bad_id(g, bad=20, pad_id=0),
         note="id = V raises IndexError", tags=("errors",)),
    Case("embed_negative_id", "embed", lambda g: _embed_bad_id(g, bad=-1, pad_id=0),
         note="id -1 (not the pad id) raises IndexError instead of wrapping to the last row", tags=("errors",)),
    Case("embed_negative_id_other_pad", "embed", lambda g: _embed_bad_id(g, bad=-2, pad_id=-1),
         note="id -2 while pad_id = -1 raises IndexError", tags=("errors",)),
    Case("embed_grad_repeated", "embed",
         lambda g: Call((torch.tensor([[1, 2, 1, 0], [1, 0, 3, 2]]), _weight(g, 5, 3), 0)),
         grad_wrt=(1,),
         note="gradient: row 1 appears three times and accumulates; row 0 (padding) gets zero"),
    Case("embed_grad_pad_outside", "embed", lambda g: _embed_random(g, pad_id=-1), grad_wrt=(1,),
         note="gradient with pad_id = -1"),
    Case("embed_grad_random", "embed", lambda g: _embed_random(g, pad_id=4, shape=(6, 20)),
         grad_wrt=(1,), note="gradient, many repeats, padding row inside the vocabulary"),
    Case("embed_ids_empty", "embed",
         lambda g: Call((torch.zeros(2, 0, dtype=torch.int64), _weight(g, 10, 6), 0)),
         note="ids of shape [2, 0] (any shape includes empty): a [2, 0, d] result, no id to check"),
    Case("embed_non_contiguous", "embed", lambda g: _embed_views(g, pad_id=2),
         note="transposed ids and a table that is a strided view: .view(-1) on them fails"),
    Case("embed_non_contiguous_grad", "embed", lambda g: _embed_views(g, pad_id=-1),
         grad_wrt=(1,), note="gradient with respect to a strided view of a table"),
    Case("embed_ids_expanded", "embed", _embed_beams,
         note="one prompt expanded to three beams (stride 0 along the batch)"),
]

# --- last_token_logits ---------------------------------------------------------------------


def _logits(gen: torch.Generator, *, side: str, b: int = 5, t: int = 11, min_len: int = 1,
            dtype: torch.dtype = torch.float32) -> Call:
    vocab, dim = 40, 16
    hidden = torch.randn(b, t, dim, generator=gen).to(dtype)
    weight = (torch.randn(vocab, dim, generator=gen) * 0.2).to(dtype)
    return Call((hidden, weight, _mask(gen, b, t, side, min_len)))


def _one_token_rows(gen: torch.Generator, side: str) -> Call:
    call = _logits(gen, side=side, b=4, t=6)
    mask = torch.zeros(4, 6, dtype=torch.bool)
    mask[:, 0 if side == "right" else -1] = True
    mask[3] = True  # one full row
    return Call((call.args[0], call.args[1], mask))


def _logits_seq_first(gen: torch.Generator) -> Call:
    """hidden and mask from sequence-first [T, B, ...] buffers, the tied table stored [d, V]."""
    b, t, vocab, dim = 4, 9, 30, 8
    hidden = torch.randn(t, b, dim, generator=gen).transpose(0, 1)
    weight = (torch.randn(dim, vocab, generator=gen) * 0.3).t()
    mask = _mask(gen, b, t, "left").t().contiguous().t()
    return Call((hidden, weight, mask))


CASES += [
    Case("logits_non_contiguous", "last_token_logits", _logits_seq_first,
         note="hidden and mask transposed from sequence-first buffers, the table transposed"),
    Case("logits_non_contiguous_grad", "last_token_logits", _logits_seq_first, grad_wrt=(0, 1),
         note="gradients through transposed hidden states and table"),
    Case("logits_right", "last_token_logits", lambda g: _logits(g, side="right"),
         note="right padding: the last real token is not at T - 1"),
    Case("logits_left", "last_token_logits", lambda g: _logits(g, side="left"),
         note="left padding: the last real token is at T - 1, the count of tokens is not its index"),
    Case("logits_left_ragged", "last_token_logits",
         lambda g: _logits(g, side="left", b=8, t=17), note="left padding, longer rows"),
    Case("logits_one_token_right", "last_token_logits", lambda g: _one_token_rows(g, "right"),
         note="rows with a single real token at t = 0"),
    Case("logits_one_token_left", "last_token_logits", lambda g: _one_token_rows(g, "left"),
         note="rows with a single real token at t = T - 1"),
    Case("logits_t1", "last_token_logits", lambda g: _logits(g, side="right", t=1),
         note="T = 1"),
    Case("logits_bf16", "last_token_logits", lambda g: _logits(g, side="right", dtype=torch.bfloat16),
         note="bfloat16 in, bfloat16 out"),
    Case("logits_grad", "last_token_logits", lambda g: _logits(g, side="left", b=3, t=5),
         grad_wrt=(0, 1), note="gradients w.r.t. hidden (only at last tokens) and the tied table"),
]

# --- pad_batch -----------------------------------------------------------------------------

CASES += [
    Case("pad_right_random", "pad_batch", lambda g: Call((_seqs(g, 6, 9, 100), 0)), exact=True,
         note="random lengths, right padding"),
    Case("pad_left_random", "pad_batch",
         lambda g: Call((_seqs(g, 6, 9, 100), 3), {"side": "left"}), exact=True,
         note="random lengths, left padding, pad_id = 3"),
    Case("pad_left_positional", "pad_batch",
         lambda g: Call(([[1, 2], [3, 4, 5, 6], [7]], 0, "left")), exact=True,
         note="side given positionally"),
    Case("pad_all_empty", "pad_batch", lambda g: Call(([[], [], []], 0)), exact=True,
         note="three empty sequences: shapes (3, 0)"),
    Case("pad_empty_batch", "pad_batch", lambda g: Call(([], 0)), exact=True,
         note="no sequences: shapes (0, 0)"),
    Case("pad_empty_batch_left", "pad_batch", lambda g: Call(([], 0), {"side": "left"}),
         exact=True, note="no sequences, left: shapes (0, 0)"),
    Case("pad_single", "pad_batch", lambda g: Call(([[4, 4, 4]], 9)), exact=True,
         note="one sequence, nothing to pad"),
    Case("pad_bad_side", "pad_batch", lambda g: Call(([[1], [2, 3]], 0), {"side": "center"}),
         note="side = 'center' raises ValueError", tags=("errors",)),
    Case("pad_bad_side_case", "pad_batch", lambda g: Call(([[1], [2, 3]], 0), {"side": "Left"}),
         note="side is case-sensitive: 'Left' raises ValueError", tags=("errors",)),
]
