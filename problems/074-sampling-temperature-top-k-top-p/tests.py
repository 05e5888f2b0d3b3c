"""Tests of problem 74. Public cases are the statement's examples, value for value.

``sampling_probs`` is compared with the reference as usual. ``sample`` is judged by a
statistical test against the exact distribution: each ``sample`` case has fixed logits (the
secret seed of a judging changes only the sampler's ``seed``), and its ``check`` recomputes the
distribution in float64 here, independently of the reference. A draw of a token of probability
0 fails at once; otherwise each row's counts go through Pearson's chi-square test, and a row
fails when its p-value is below ``ALPHA`` (1e-6). The sample cases test 13 rows, so a correct
sampler is rejected with probability at most 1.3e-5 per judging (measured: see
docs/sampling_tests.md)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from sandbox.problem import Call, Case

ALPHA = 1e-6
DRAWS = 20_000
LOGITS = [[2.0, 1.0, 1.0, 0.0]]


def true_probs(logits: list[list[float]], temperature: float, top_k: int, top_p: float) -> torch.Tensor:
    """The statement's distribution in float64, rank by rank (ties: the lower index first)."""
    rows = []
    for row in logits:
        v = len(row)
        if temperature == 0:
            best = max(range(v), key=lambda i: (row[i], -i))
            rows.append([1.0 if i == best else 0.0 for i in range(v)])
            continue
        top = max(row)
        weights = [math.exp((z - top) / temperature) for z in row]
        total = sum(weights)
        p = [w / total for w in weights]
        ranked = sorted(range(v), key=lambda i: (-p[i], i))
        if 0 < top_k < v:
            ranked = ranked[:top_k]
        if top_p < 1:
            mass = sum(p[i] for i in ranked)
            kept, before = [], 0.0
            for i in ranked:
                if before >= top_p:
                    break
                kept.append(i)
                before += p[i] / mass
            ranked = kept
        mass = sum(p[i] for i in ranked)
        rows.append([p[i] / mass if i in ranked else 0.0 for i in range(v)])
    return torch.tensor(rows, dtype=torch.float64)


def chi_square_p_value(counts: torch.Tensor, probs: torch.Tensor) -> float:
    """Pearson's goodness-of-fit p-value of ``counts`` (over the tokens of non-zero
    probability) against ``probs``: the regularised upper incomplete gamma function."""
    support = probs > 0
    n = float(counts.sum())
    expected = n * probs[support]
    stat = float(((counts[support].double() - expected) ** 2 / expected).sum())
    dof = int(support.sum()) - 1
    if dof == 0:
        return 1.0
    return float(torch.special.gammaincc(torch.tensor(dof / 2, dtype=torch.float64),
                                         torch.tensor(stat / 2, dtype=torch.float64)))


def sample_check(logits: list[list[float]], temperature: float, top_k: int, top_p: float,
                 draws: int) -> Callable[[Any, Any], str | None]:
    """The ``check`` of a sample case: shape, dtype and range, tokens of probability 0 never
    drawn, and each row's chi-square p-value at least ALPHA."""
    probs = true_probs(logits, temperature, top_k, top_p)

    def check(expected: Any, got: Any) -> str | None:
        b, v = probs.shape
        if not isinstance(got, torch.Tensor) or got.dtype != torch.int64:
            return "expected an int64 tensor of token ids"
        if tuple(got.shape) != (b, draws):
            return f"expected shape {[b, draws]}, got {list(got.shape)}"
        if draws and (int(got.min()) < 0 or int(got.max()) >= v):
            return f"token ids must lie in [0, {v})"
        for row in range(b):
            counts = torch.bincount(got[row], minlength=v)
            impossible = (counts > 0) & (probs[row] == 0)
            if bool(impossible.any()):
                token = int(impossible.nonzero()[0])
                return f"row {row}: token {token} has probability 0 but was drawn {int(counts[token])} times"
            p_value = chi_square_p_value(counts, probs[row])
            if p_value < ALPHA:
                expected_counts = (probs[row] * draws).round().long().tolist()
                return (f"row {row}: the counts {counts.tolist()} do not fit the distribution "
                        f"(expected about {expected_counts}; chi-square p-value {p_value:.2g})")
        return None

    return check


def _sampled(logits: list[list[float]], temperature: float = 1.0, top_k: int = 0,
             top_p: float = 1.0, draws: int = DRAWS) -> dict[str, Any]:
    """``make`` and ``check`` of a sample case: ``Case("name", "sample", **_sampled(...), ...)``
    (a literal Case call, so that sandbox/hints.py's static index sees its name and tags)."""
    def make(gen: torch.Generator) -> Call:
        seed = int(torch.randint(0, 2**62, (), generator=gen))
        return Call((torch.tensor(logits), draws, seed, temperature, top_k, top_p))

    return {"make": make, "check": sample_check(logits, temperature, top_k, top_p, draws)}


def _random_logits(gen: torch.Generator, b: int = 4, v: int = 50, scale: float = 2.0) -> torch.Tensor:
    return torch.randn(b, v, generator=gen) * scale


def _top_p_between(gen: torch.Generator, logits: torch.Tensor, temperature: float, top_k: int) -> float:
    """A top_p halfway between two consecutive cumulative sums of every row's (top-k) ranked
    distribution, where they are far enough apart: no float rounding decides the cut."""
    probs = torch.softmax(logits.double() / temperature, dim=-1).sort(dim=-1, descending=True).values
    if 0 < top_k < probs.shape[1]:
        probs = probs[:, :top_k] / probs[:, :top_k].sum(dim=-1, keepdim=True)
    cums = probs.cumsum(dim=-1)
    for _ in range(100):
        p = float(torch.rand((), generator=gen)) * 0.8 + 0.1
        if float((cums - p).abs().min()) > 1e-4:
            return p
    return 0.5


def _probs_case(gen: torch.Generator, *, temperature: float = 1.0, top_k: int = 0,
                top_p: bool = False, b: int = 4, v: int = 50,
                dtype: torch.dtype = torch.float32) -> Call:
    logits = _random_logits(gen, b, v)
    p = _top_p_between(gen, logits, temperature, top_k) if top_p else 1.0
    return Call((logits.to(dtype), temperature, top_k, p))


def _ties(gen: torch.Generator) -> Call:
    """Integer logits: many equal probabilities at the top-k and top-p boundaries."""
    logits = torch.randint(0, 4, (6, 12), generator=gen).float()
    return Call((logits, 1.0, 5, 1.0))


CASES: list[Case] = [
    Case("example_top_k_tie", "sampling_probs", lambda g: Call((torch.tensor(LOGITS), 1.0, 2)),
         public=True, note="tokens 1 and 2 tie for the second place: the lower index stays",
         tags=("top_k",)),
    Case("example_top_p", "sampling_probs",
         lambda g: Call((torch.tensor(LOGITS),), {"top_p": 0.6}),
         public=True, note="the token that crosses top_p is kept", tags=("top_p",)),
    Case("example_greedy", "sampling_probs", lambda g: Call((torch.tensor(LOGITS), 0.0)),
         public=True, note="temperature 0: all the mass on the maximum", tags=("greedy",)),
    Case("example_sample_top1", "sample",
         lambda g: Call((torch.tensor(LOGITS), 8, int(torch.randint(0, 2**62, (), generator=g)), 1.0, 1, 1.0)),
         public=True, check=sample_check(LOGITS, 1.0, 1, 1.0, 8),
         note="top_k = 1: every draw is token 0, whatever the generator", tags=("sampler",)),
    # hidden: sampling_probs
    Case("probs_plain", "sampling_probs", lambda g: _probs_case(g),
         note="temperature 1, no filter: the softmax", tags=("temperature",)),
    Case("probs_temperature", "sampling_probs", lambda g: _probs_case(g, temperature=0.7),
         note="temperature 0.7 divides the logits, not the probabilities", tags=("temperature",)),
    Case("probs_hot", "sampling_probs", lambda g: _probs_case(g, temperature=2.5, top_k=10),
         note="temperature 2.5 with top-10", tags=("temperature",)),
    Case("probs_top_k", "sampling_probs", lambda g: _probs_case(g, top_k=7),
         note="top-7, renormalised", tags=("top_k",)),
    Case("probs_top_p", "sampling_probs", lambda g: _probs_case(g, top_p=True),
         note="top-p between two cumulative sums: the crossing token is kept", tags=("top_p",)),
    Case("probs_top_k_then_top_p", "sampling_probs",
         lambda g: _probs_case(g, temperature=0.8, top_k=12, top_p=True),
         note="top-p measured on the renormalised top-k distribution", tags=("top_k_then_top_p",)),
    Case("probs_ties", "sampling_probs", _ties,
         note="equal logits at the top-k boundary: lower indices first", tags=("top_k",)),
    Case("probs_top_k_large", "sampling_probs", lambda g: _probs_case(g, top_k=80),
         note="top_k >= V keeps everything", tags=("top_k",)),
    Case("probs_greedy", "sampling_probs",
         lambda g: Call((torch.tensor([[1.0, 3.0, 3.0, 0.0], [5.0, -1.0, 5.0, 5.0]]), 0.0, 2, 0.5)),
         note="temperature 0 with ties: the first maximum, the filters change nothing",
         tags=("greedy",)),
    Case("probs_bf16", "sampling_probs", lambda g: _probs_case(g, top_k=9, dtype=torch.bfloat16),
         note="bfloat16 logits, float32 probabilities", tags=("inputs",)),
    Case("probs_large_logits", "sampling_probs",
         lambda g: Call((_random_logits(g, 3, 20) + 500.0, 0.5, 0, 1.0)),
         note="logits near 500 at temperature 0.5: the softmax must subtract the maximum",
         tags=("temperature",)),
    Case("probs_non_contiguous", "sampling_probs",
         lambda g: Call((torch.randn(30, 5, generator=g).t(), 1.0, 4, 1.0)),
         note="transposed logits", tags=("inputs",)),
    Case("probs_bad_top_p", "sampling_probs",
         lambda g: Call((torch.randn(2, 5, generator=g), 1.0, 0, 0.0)),
         note="top_p = 0: ValueError", tags=("inputs",)),
    Case("probs_top_p_above_one", "sampling_probs",
         lambda g: Call((torch.randn(2, 5, generator=g), 1.0, 0, 1.5)),
         note="top_p = 1.5: ValueError (top_p lies in (0, 1])", tags=("inputs",)),
    Case("probs_bad_top_k", "sampling_probs",
         lambda g: Call((torch.randn(2, 5, generator=g), 1.0, -2)),
         note="top_k = -2: ValueError", tags=("inputs",)),
    Case("probs_not_2d", "sampling_probs",
         lambda g: Call((torch.randn(6, generator=g),)),
         note="1-D logits: ValueError, not a distribution", tags=("inputs",)),
    Case("probs_bad_temperature", "sampling_probs",
         lambda g: Call((torch.randn(2, 5, generator=g), -1.0)),
         note="a negative temperature: ValueError", tags=("inputs",)),
    # hidden: sample, judged statistically
    Case("sample_plain", "sample", **_sampled([[2.0, 1.0, 0.5, 0.0, -1.0, -3.0]]),
         note="temperature 1, no filter: six tokens, the rarest at 0.4%", tags=("sampler",)),
    Case("sample_temperature", "sample",
         **_sampled([[1.0, 0.5, 0.0, -0.5, -1.0]], temperature=0.4),
         note="temperature 0.4 sharpens the distribution", tags=("sampler",)),
    Case("sample_hot", "sample", **_sampled([[3.0, 0.0, -1.0, -2.0]], temperature=3.0),
         note="temperature 3 flattens it", tags=("sampler",)),
    Case("sample_top_k_tie", "sample", **_sampled([[2.0, 1.0, 1.0, 1.0, 0.0]], top_k=2),
         note="top-2 with a three-way tie for second place: only token 1 joins token 0",
         tags=("sampler",)),
    Case("sample_top_p", "sample",
         **_sampled([[math.log(0.5), math.log(0.3), math.log(0.15), math.log(0.05)]], top_p=0.7),
         note="top-p 0.7 on (0.5, 0.3, 0.15, 0.05): tokens 0 and 1", tags=("sampler",)),
    Case("sample_top_k_then_top_p", "sample",
         **_sampled([[math.log(0.4), math.log(0.3), math.log(0.2), math.log(0.1)]],
                    top_k=3, top_p=0.75),
         note="top-3 first (0.44, 0.33, 0.22), then top-p 0.75: two tokens (the other order keeps three)",
         tags=("sampler",)),
    Case("sample_greedy", "sample", **_sampled([[0.5, 2.0, 2.0, 1.0]], temperature=0.0),
         note="temperature 0: always the first maximum", tags=("greedy",)),
    Case("sample_batch", "sample",
         **_sampled([[0.0, 1.0, 2.0, 3.0], [3.0, 2.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0],
                     [5.0, 0.0, 0.0, -5.0]], top_p=0.95),
         note="four rows, each its own distribution (top-p 0.95)", tags=("sampler",)),
    Case("sample_many_tokens", "sample",
         **_sampled([[0.05 * i for i in range(40)]], temperature=0.5, top_k=25),
         note="40 tokens, top-25 at temperature 0.5", tags=("sampler",)),
    Case("sample_no_draws", "sample",
         lambda g: Call((torch.tensor(LOGITS), 0, int(torch.randint(0, 2**62, (), generator=g)))),
         note="num_samples = 0: an empty [B, 0] result", tags=("sampler",)),
    Case("sample_bad_top_k", "sample",
         lambda g: Call((torch.tensor(LOGITS), 5, 0, 1.0, -1)),
         note="top_k = -1: ValueError", tags=("inputs",)),
    Case("sample_negative_draws", "sample",
         lambda g: Call((torch.tensor(LOGITS), -1, 0)),
         note="num_samples = -1: ValueError", tags=("inputs",)),
]
