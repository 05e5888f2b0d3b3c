"""Decoding: the reference of problem 74 (temperature, top-k and top-p sampling) and its speed
baseline.

Self-contained (torch and the standard library only): the judge loads a baseline from this
file's source into its own sandbox. Logits are ``[B, V]``; probabilities are float32.
"""

from __future__ import annotations

import torch


def _check(logits: torch.Tensor, temperature: float, top_k: int, top_p: float) -> None:
    if logits.dim() != 2 or not logits.is_floating_point() or logits.shape[1] < 1:
        raise ValueError("logits must be a float [B, V] tensor with V >= 1")
    if temperature < 0 or top_k < 0 or not 0 < top_p <= 1:
        raise ValueError("need temperature >= 0, top_k >= 0 and 0 < top_p <= 1")


def sampling_probs(
    logits: torch.Tensor, temperature: float = 1.0, top_k: int = 0, top_p: float = 1.0
) -> torch.Tensor:
    """The float32 ``[B, V]`` distribution a sampler draws each row's token from.

    Temperature 0 is greedy: all the mass on the first maximal logit. Otherwise
    ``softmax(logits / temperature)``, then top-k (the ``top_k`` most probable tokens; 0 or
    ``>= V`` keeps all), then top-p on what is left (renormalised): the most probable tokens
    while the probability before them is below ``top_p``, i.e. the shortest prefix that
    reaches ``top_p``. Ranks break ties by the lower token index. The kept probabilities are
    renormalised; every other token gets exactly 0."""
    _check(logits, temperature, top_k, top_p)
    z = logits.float()
    b, v = z.shape
    if temperature == 0:
        return torch.nn.functional.one_hot(z.argmax(dim=-1), v).float()  # argmax: first maximum
    probs = torch.softmax(z / temperature, dim=-1)
    ranked = torch.sort(probs, dim=-1, descending=True, stable=True)
    sorted_p, order = ranked.values, ranked.indices
    keep = torch.ones_like(sorted_p, dtype=torch.bool)
    if 0 < top_k < v:
        keep[:, top_k:] = False
    if top_p < 1:
        kept = torch.where(keep, sorted_p, torch.zeros((), dtype=sorted_p.dtype))
        kept = kept / kept.sum(dim=-1, keepdim=True)
        before = kept.cumsum(dim=-1) - kept
        keep &= before < top_p
    kept = torch.where(keep, sorted_p, torch.zeros((), dtype=sorted_p.dtype))
    kept = kept / kept.sum(dim=-1, keepdim=True)
    return torch.zeros_like(probs).scatter(1, order, kept)


def sample(
    logits: torch.Tensor,
    num_samples: int,
    seed: int,
    temperature: float = 1.0,
    top_k: int = 0,
    top_p: float = 1.0,
) -> torch.Tensor:
    """int64 ``[B, num_samples]``: independent draws from each row of :func:`sampling_probs`,
    with replacement, from a generator seeded with ``seed``."""
    if num_samples < 0:
        raise ValueError("num_samples must be >= 0")
    probs = sampling_probs(logits, temperature, top_k, top_p)
    if num_samples == 0:
        return torch.zeros(probs.shape[0], 0, dtype=torch.int64)
    gen = torch.Generator().manual_seed(int(seed))
    return torch.multinomial(probs, num_samples, replacement=True, generator=gen)
