"""Tests of problem 54. Public cases are the statement's examples, value for value."""

from __future__ import annotations

import torch

from sandbox.problem import Call, Case

EX_HIDDEN = [[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]
EX_WEIGHT = [[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]


def _random(gen: torch.Generator, *, n: int = 24, vocab: int = 50, dim: int = 8, scale: float = 1.0,
            ignore_rate: float = 0.25, ignore_index: int = -100) -> Call:
    hidden = torch.randn(n, dim, generator=gen) * scale
    weight = torch.randn(vocab, dim, generator=gen) * 0.5
    targets = torch.randint(0, vocab, (n,), generator=gen)
    targets[torch.rand(n, generator=gen) < ignore_rate] = ignore_index
    kwargs = {} if ignore_index == -100 else {"ignore_index": ignore_index}
    return Call((hidden, weight, targets), kwargs)


def _hot(gen: torch.Generator) -> Call:
    """Logits in the hundreds that are exact integers (hidden entries multiples of 10 up to 80,
    the table's entries -1, 0 or 1), kept to rows whose top logit is at least 100 (exp()
    overflows float32 above 88.7, so a softmax without the max subtracted is NaN on every row)
    and at least 30 above the runner-up. That margin makes the gradients well-conditioned:
    at logits near 400 a float32 log-sum-exp is only known to its spacing there (3e-5), so
    exp(z - lse) is off by up to 1.5e-5 relative, and on a row whose target has p = 1 - e^-10
    the difference p - 1 = -4.5e-5 loses a third of its value (a correct recompute-from-lse
    backward was rejected on 11 of 200 seeds). With a margin of 30, lse equals the top logit
    in float32 (log(1 + 30 e^-30) rounds to 0), every correct method gets p = 1 for the top
    token and at most e^-30 elsewhere, and each gradient term is +-hidden or below 1e-11."""
    n, vocab, dim = 20, 30, 8
    weight = torch.randint(-1, 2, (vocab, dim), generator=gen).float()
    kept: list[torch.Tensor] = []
    for _ in range(1000):  # a few batches in practice; bounded all the same
        if len(kept) >= n:
            break
        rows = (torch.randint(-8, 9, (64, dim), generator=gen) * 10).float()
        top2 = (rows @ weight.T).topk(2, dim=1).values  # exact: integers below 2^24
        kept += list(rows[(top2[:, 0] >= 100) & (top2[:, 0] - top2[:, 1] >= 30)])
    if len(kept) < n:
        raise RuntimeError("no table with 20 rows of a clear top logit")  # needs a degenerate table
    hidden = torch.stack(kept[:n])
    targets = torch.randint(0, vocab, (n,), generator=gen)
    targets[torch.rand(n, generator=gen) < 0.2] = -100
    return Call((hidden, weight, targets))


def _views(gen: torch.Generator) -> Call:
    """hidden the first half of a wider buffer, the table stored [d, V] and used transposed,
    the targets every other entry of a longer tensor."""
    n, vocab, dim = 20, 40, 8
    hidden = torch.randn(n, 2 * dim, generator=gen)[:, :dim]
    weight = (torch.randn(dim, vocab, generator=gen) * 0.5).t()
    targets = torch.randint(0, vocab, (2 * n,), generator=gen)[::2]
    targets[3] = -100
    return Call((hidden, weight, targets))


CASES: list[Case] = [
    Case("example_small", "chunked_cross_entropy",
         lambda g: Call((torch.tensor(EX_HIDDEN), torch.tensor(EX_WEIGHT), torch.tensor([0, 2, -100]))),
         public=True, note="three rows, the last ignored: the mean is over two rows"),
    Case("example_all_ignored", "chunked_cross_entropy",
         lambda g: Call((torch.tensor(EX_HIDDEN), torch.tensor(EX_WEIGHT), torch.tensor([-100, -100, -100]))),
         public=True, note="every target ignored: the loss is 0, not NaN"),
    Case("example_gradients", "chunked_cross_entropy",
         lambda g: Call((torch.tensor(EX_HIDDEN), torch.tensor(EX_WEIGHT), torch.tensor([0, 2, -100]))),
         grad_wrt=(0, 1), public=True,
         note="the same call, gradients w.r.t. hidden and weight compared too", tags=("gradients",)),
    Case("random_with_grads", "chunked_cross_entropy", lambda g: _random(g), grad_wrt=(0, 1),
         note="24 rows, a quarter ignored, gradients compared", tags=("gradients",)),
    Case("no_ignored", "chunked_cross_entropy", lambda g: _random(g, ignore_rate=0.0),
         grad_wrt=(0, 1), note="no ignored target", tags=("gradients",)),
    Case("custom_ignore_index", "chunked_cross_entropy",
         lambda g: _random(g, ignore_index=-1, ignore_rate=0.4), grad_wrt=(0, 1),
         note="ignore_index = -1 passed by keyword"),
    Case("ignore_index_is_a_token", "chunked_cross_entropy",
         lambda g: _random(g, ignore_index=3, ignore_rate=0.3, vocab=10), grad_wrt=(0, 1),
         note="ignore_index = 3, a real token id: rows targeting 3 are ignored"),
    Case("all_ignored_grads", "chunked_cross_entropy",
         lambda g: _random(g, ignore_rate=1.0), grad_wrt=(0, 1),
         note="every target ignored: loss 0 and zero gradients", tags=("gradients",)),
    # Gradients are compared at moderate scale only: with logits in the hundreds, float32
    # rounding of the logits alone moves the softmax by more than the tolerance.
    Case("large_logits", "chunked_cross_entropy", lambda g: _random(g, scale=80.0),
         note="logits in the hundreds: exp without a max subtraction overflows"),
    Case("confident_rows_grads", "chunked_cross_entropy", lambda g: _random(g, scale=6.0),
         grad_wrt=(0, 1), note="confident predictions (logits around 20), gradients compared", tags=("gradients",)),
    Case("single_row", "chunked_cross_entropy", lambda g: _random(g, n=1, ignore_rate=0.0),
         grad_wrt=(0, 1), note="N = 1", tags=("gradients",)),
    Case("large_logits_grads", "chunked_cross_entropy", _hot, grad_wrt=(0, 1),
         note="logits of 100 to 640, each row's top one at least 30 above the rest, gradients "
              "compared: a softmax without the max subtracted gives NaN gradients even when "
              "the loss is right", tags=("gradients",)),
    Case("negative_target", "chunked_cross_entropy",
         lambda g: Call((torch.randn(4, 3, generator=g), torch.randn(6, 3, generator=g),
                         torch.tensor([0, -5, 1, -100]))),
         note="target -5 is not ignore_index (-100): IndexError, not an ignored row", tags=("errors",)),
    Case("non_contiguous", "chunked_cross_entropy", _views, grad_wrt=(0, 1),
         note="a strided hidden, a transposed table and strided targets, gradients compared", tags=("gradients", "non_contiguous",)),
    Case("bad_target", "chunked_cross_entropy",
         lambda g: Call((torch.randn(4, 3, generator=g), torch.randn(6, 3, generator=g),
                         torch.tensor([0, 6, 1, -100]))),
         note="target 6 with V = 6 (and not ignored): IndexError", tags=("errors",)),
    Case("big_vocab_with_grads", "chunked_cross_entropy",
         lambda g: _random(g, n=4096, vocab=65536, dim=8, ignore_rate=0.1), grad_wrt=(0, 1),
         note="N = 4096, V = 65536: 1 GiB of logits does not fit; neither does keeping every chunk"),
]
