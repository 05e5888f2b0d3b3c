"""kernels.sampling (problem 74) against a rank-by-rank float64 loop and a chi-square check."""

from __future__ import annotations

import math

import pytest
import torch

from kernels.sampling import sample, sampling_probs


def _loop(row: list[float], temperature: float, top_k: int, top_p: float) -> list[float]:
    v = len(row)
    if temperature == 0:
        best = max(range(v), key=lambda i: (row[i], -i))
        return [float(i == best) for i in range(v)]
    w = [math.exp((z - max(row)) / temperature) for z in row]
    p = [x / sum(w) for x in w]
    ranked = sorted(range(v), key=lambda i: (-p[i], i))
    if 0 < top_k < v:
        ranked = ranked[:top_k]
    if top_p < 1:
        mass, kept, before = sum(p[i] for i in ranked), [], 0.0
        for i in ranked:
            if before >= top_p:
                break
            kept.append(i)
            before += p[i] / mass
        ranked = kept
    mass = sum(p[i] for i in ranked)
    return [p[i] / mass if i in ranked else 0.0 for i in range(v)]


@pytest.mark.parametrize(("temperature", "top_k", "top_p"),
                         [(1.0, 0, 1.0), (0.7, 3, 1.0), (1.3, 0, 0.62), (0.9, 4, 0.77), (0.0, 2, 0.5)])
def test_sampling_probs_matches_a_rank_by_rank_loop(temperature: float, top_k: int, top_p: float) -> None:
    logits = torch.tensor([[2.0, 1.0, 1.0, 0.0, -0.5, 0.3], [0.0, 0.0, 0.0, 1.5, 1.5, -2.0]])
    want = torch.tensor([_loop(r, temperature, top_k, top_p) for r in logits.tolist()])
    torch.testing.assert_close(sampling_probs(logits, temperature, top_k, top_p), want)


def test_sample_draws_only_kept_tokens_in_the_right_proportions() -> None:
    logits = torch.tensor([[math.log(0.5), math.log(0.3), math.log(0.15), math.log(0.05)]])
    draws = sample(logits, 40_000, 3, top_p=0.7)
    counts = torch.bincount(draws[0], minlength=4).double()
    assert counts[2] == 0 and counts[3] == 0
    expected = torch.tensor([0.625, 0.375]) * 40_000
    stat = float(((counts[:2] - expected) ** 2 / expected).sum())
    assert stat < 30  # chi-square with 1 degree of freedom: p about 4e-8
    assert torch.equal(sample(logits, 5, 9), sample(logits, 5, 9))  # the seed decides
    with pytest.raises(ValueError):
        sampling_probs(logits, top_p=0.0)
