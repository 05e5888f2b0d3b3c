"""Decoding: the reference of problem 76 (one step of beam search with a length penalty) and its
speed baseline.

Self-contained (torch and the standard library only): the judge loads a baseline from this
file's source into its own sandbox. Scores are float32; ``B`` independent searches of ``K``
beams over a vocabulary of ``V`` tokens.
"""

from __future__ import annotations

import torch


def _check(
    beam_logprobs: torch.Tensor,
    token_logprobs: torch.Tensor,
    lengths: torch.Tensor,
    finished: torch.Tensor,
    first_step: bool,
) -> None:
    if token_logprobs.dim() != 3:
        raise ValueError("token_logprobs must be [B, K, V]")
    b, k, v = token_logprobs.shape
    for name, x in (("beam_logprobs", beam_logprobs), ("lengths", lengths), ("finished", finished)):
        if tuple(x.shape) != (b, k):
            raise ValueError(f"{name} must be [B, K] = [{b}, {k}]")
    if first_step and v < k:
        raise ValueError("the first step needs at least K tokens (only beam 0 expands)")


def beam_search_step(
    beam_logprobs: torch.Tensor,
    token_logprobs: torch.Tensor,
    lengths: torch.Tensor,
    finished: torch.Tensor,
    eos_id: int,
    pad_id: int,
    alpha: float,
    first_step: bool = False,
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(parents, tokens, logprobs, lengths, finished, scores)``, each ``[B, K]``: the ``K``
    candidates of highest score ``logprob / length ** alpha`` per row, by decreasing score
    (ties: the lower parent beam, then the lower token id). A live beam ``i`` offers every
    token ``v`` (log-prob ``beam_logprobs[i] + token_logprobs[i, v]``, length + 1, finished
    when ``v == eos_id``); a finished beam offers only ``pad_id`` at no cost and no length. On
    the first step only beam 0 offers candidates (the beams are copies of the prompt)."""
    _check(beam_logprobs, token_logprobs, lengths, finished, first_step)
    b, k, v = token_logprobs.shape
    done = finished.to(torch.bool)
    base = beam_logprobs.float()
    grown = (lengths.long() + (~done).long()).float().pow(alpha)  # live candidates: one longer
    score = torch.empty(b, k, v, dtype=torch.float32, device=token_logprobs.device)
    torch.add(token_logprobs, base[:, :, None], out=score)  # contiguous whatever the input's layout
    score.div_(grown[:, :, None])
    if bool(done.any()):  # a finished beam offers only the pad, at its own score
        pad_score = torch.where(done, base / grown, score[:, :, pad_id])
        score.masked_fill_(done[:, :, None], -torch.inf)
        score[:, :, pad_id] = pad_score
    if first_step:
        score[:, 1:] = -torch.inf
    flat = score.view(b, k * v)
    chosen = _select(flat, k)
    parents, tokens = chosen // v, chosen % v
    was_done = done.gather(1, parents)
    rows = torch.arange(b, device=chosen.device)[:, None]
    picked = token_logprobs[rows, parents, tokens].float()
    logprobs = torch.where(was_done, base.gather(1, parents), base.gather(1, parents) + picked)
    return (
        parents,
        tokens,
        logprobs,
        lengths.long().gather(1, parents) + (~was_done).long(),
        was_done | (tokens == eos_id),
        flat.gather(1, chosen),
    )


def _select(flat: torch.Tensor, k: int) -> torch.Tensor:
    """int64 ``[B, k]``: the flat indices of each row's ``k`` largest values, by decreasing value,
    equal values by increasing index. A top-(k+1) settles the set when the k-th value beats the
    next; rows with a tie across that boundary take every candidate at or above the k-th value
    (a few), in index order, through a stable sort."""
    b, n = flat.shape
    top = flat.topk(min(k + 1, n), dim=1)
    index = top.indices[:, :k].sort(dim=1).values  # the set in index order, then stably by value
    index = index.gather(1, flat.gather(1, index).sort(dim=1, descending=True, stable=True).indices)
    if n > k:
        tied = top.values[:, k] == top.values[:, k - 1]
        for row in tied.nonzero().flatten().tolist():
            at_least = (flat[row] >= top.values[row, k - 1]).nonzero().flatten()  # index order
            best = flat[row, at_least].sort(descending=True, stable=True).indices[:k]
            index[row] = at_least[best]
    return index
