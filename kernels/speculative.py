"""Speculative decoding's accept/reject step (Leviathan et al. 2023, Chen et al. 2023): the
reference of problem 77 and its speed baseline.

Self-contained (torch and the standard library only): the judge loads a baseline from this
file's source into its own sandbox. ``draft_probs`` q is ``[B, k, V]`` (the draft model's
distribution at each of its k drafted positions), ``draft_tokens`` ``[B, k]`` the tokens it drew,
``target_probs`` p ``[B, k + 1, V]`` (the target model's distribution at the same positions and
one more). Probabilities are computed on in float32.
"""

from __future__ import annotations

import torch


def _check(draft_probs: torch.Tensor, draft_tokens: torch.Tensor, target_probs: torch.Tensor) -> None:
    if draft_probs.dim() != 3 or draft_tokens.dim() != 2 or target_probs.dim() != 3:
        raise ValueError("need draft_probs [B, k, V], draft_tokens [B, k], target_probs [B, k + 1, V]")
    b, k, v = draft_probs.shape
    if tuple(draft_tokens.shape) != (b, k) or tuple(target_probs.shape) != (b, k + 1, v):
        raise ValueError(
            f"shapes {list(draft_probs.shape)}, {list(draft_tokens.shape)}, {list(target_probs.shape)} "
            "do not fit [B, k, V], [B, k], [B, k + 1, V]"
        )
    if draft_tokens.numel() and bool(((draft_tokens < 0) | (draft_tokens >= v)).any()):
        raise IndexError(f"draft tokens outside [0, {v})")


def acceptance_probs(
    draft_probs: torch.Tensor, draft_tokens: torch.Tensor, target_probs: torch.Tensor
) -> torch.Tensor:
    """float32 ``[B, k]``: ``min(1, p_i(x_i) / q_i(x_i))`` for the drafted token ``x_i`` at each
    position; where ``q_i(x_i) = 0``, 1 if ``p_i(x_i) > 0`` else 0 (the chance that
    ``u * q < p`` for ``u`` uniform in ``[0, 1)``)."""
    _check(draft_probs, draft_tokens, target_probs)
    k = draft_probs.shape[1]
    index = draft_tokens.long()[..., None]
    q = draft_probs.float().gather(-1, index)[..., 0]
    p = target_probs[:, :k].float().gather(-1, index)[..., 0]
    ratio = torch.where(q > 0, p / torch.where(q > 0, q, 1.0), (p > 0).float())
    return ratio.clamp(max=1.0)


def residual_probs(draft_probs: torch.Tensor, target_probs: torch.Tensor) -> torch.Tensor:
    """float32, the shape of the inputs: ``max(0, p - q)`` normalised over the last axis; where
    that is zero everywhere (``p <= q``, as when ``p == q``), ``p`` itself."""
    if draft_probs.shape != target_probs.shape or draft_probs.dim() < 1:
        raise ValueError(f"shapes {list(draft_probs.shape)} and {list(target_probs.shape)} differ")
    p = target_probs.float()
    excess = (p - draft_probs.float()).clamp(min=0.0)
    total = excess.sum(dim=-1, keepdim=True)
    return torch.where(total > 0, excess / torch.where(total > 0, total, 1.0), p)


def speculative_step(
    draft_probs: torch.Tensor,
    draft_tokens: torch.Tensor,
    target_probs: torch.Tensor,
    seed: int,
    pad_id: int = -1,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One verification step per row: accept drafted token ``i`` with probability
    ``acceptance_probs`` (a fresh uniform per row and position) while every earlier one was
    accepted; at the first rejection, emit a draw from ``residual_probs`` of that position and
    stop; if all ``k`` are accepted, emit a bonus draw from ``target_probs[:, k]``. Returns int64
    ``num_accepted [B]`` and int64 ``tokens [B, k + 1]``: the accepted drafts, the one drawn
    token, then ``pad_id``. Random numbers from ``torch.Generator().manual_seed(seed)``."""
    accept = acceptance_probs(draft_probs, draft_tokens, target_probs)  # validates the shapes
    b, k, _ = draft_probs.shape
    gen = torch.Generator().manual_seed(int(seed))
    uniforms = torch.rand(b, k, generator=gen)
    accepted = (uniforms < accept).long().cumprod(dim=1)  # stop at the first rejection
    num = accepted.sum(dim=1)  # [B]
    rows = torch.arange(b)
    # The distribution of the one drawn token: the residual where a row stopped, else p[k].
    stop = num.clamp(max=max(k - 1, 0))
    p_stop = target_probs.float()[rows, num]  # [B, V]
    if k:
        residual = residual_probs(draft_probs[rows, stop], target_probs[rows, stop])
        p_stop = torch.where((num < k)[:, None], residual, p_stop)
    drawn = torch.multinomial(p_stop, 1, generator=gen)[:, 0] if b else torch.zeros(0, dtype=torch.long)
    positions = torch.arange(k + 1)[None, :]
    tokens = torch.full((b, k + 1), int(pad_id), dtype=torch.int64)
    tokens[:, :k] = torch.where(positions[:, :k] < num[:, None], draft_tokens.long(), tokens[:, :k])
    tokens[rows, num] = drawn
    return num, tokens
