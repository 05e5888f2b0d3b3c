"""Token embedding with a padding id, the tied LM head at the last real token, batch padding.

The reference for problem 48 and its speed baseline: a gather (not a one-hot product) and
logits for one position per row (not the full ``[B, T, V]``).
"""

from __future__ import annotations

import torch

SIDES = ("right", "left")


def embed(ids: torch.Tensor, weight: torch.Tensor, pad_id: int) -> torch.Tensor:
    """Rows of ``weight`` for every id; a zero vector where ``ids == pad_id``.

    ``ids``: int64, any shape; ``weight``: ``[V, d]``. Returns ``ids.shape + (d,)`` in
    ``weight.dtype``. Raises IndexError for an id that is neither ``pad_id`` nor in ``[0, V)``.
    The gradient w.r.t. ``weight`` accumulates over repeated ids; padding positions give none
    (``masked_fill`` after the gather, so even a NaN in ``weight[pad_id]`` cannot leak).
    """
    vocab = weight.shape[0]
    is_pad = ids == pad_id
    bad = ~is_pad & ((ids < 0) | (ids >= vocab))
    if bool(bad.any()):
        first = int(ids[bad].flatten()[0])
        raise IndexError(f"token id {first} is outside the vocabulary [0, {vocab})")
    if vocab == 0:  # every id is padding
        return weight.new_zeros(*ids.shape, weight.shape[1]) + weight.sum() * 0
    rows = torch.nn.functional.embedding(ids.masked_fill(is_pad, 0), weight)
    return rows.masked_fill(is_pad.unsqueeze(-1), 0)


def last_positions(mask: torch.Tensor) -> torch.Tensor:
    """Index of the last True of each row of a bool ``[B, T]`` mask (right or left padded)."""
    positions = torch.arange(mask.shape[1], device=mask.device).expand_as(mask)
    return torch.where(mask, positions, -1).amax(dim=1)


def last_token_logits(hidden: torch.Tensor, weight: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``[B, V]`` logits ``h @ weight.T`` of each row's last real token only.

    ``hidden``: ``[B, T, d]``; ``weight``: the tied ``[V, d]``; ``mask``: bool ``[B, T]`` with at
    least one True per row. One matrix product of ``[B, d]`` by ``[d, V]``.
    """
    rows = torch.arange(hidden.shape[0], device=hidden.device)
    last = hidden[rows, last_positions(mask)]
    return last @ weight.T


def pad_batch(
    seqs: list[list[int]], pad_id: int, side: str = "right"
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(ids, mask)``: int64 and bool ``[B, T_max]``; ``ids`` holds ``pad_id`` at padding.

    ``side`` is "right" (tokens first) or "left" (padding first); anything else raises
    ValueError. An empty batch gives two ``(0, 0)`` tensors.
    """
    if side not in SIDES:
        raise ValueError(f"side must be 'right' or 'left', not {side!r}")
    t_max = max((len(s) for s in seqs), default=0)
    ids = torch.full((len(seqs), t_max), pad_id, dtype=torch.int64)
    mask = torch.zeros((len(seqs), t_max), dtype=torch.bool)
    for row, seq in enumerate(seqs):
        n = len(seq)
        if n == 0:
            continue
        start = 0 if side == "right" else t_max - n
        ids[row, start : start + n] = torch.tensor(seq, dtype=torch.int64)
        mask[row, start : start + n] = True
    return ids, mask


def gather_rows(ids: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """``weight[ids]`` for 1-D int64 ``ids`` with a bounds check (problem 56's reference)."""
    if ids.ndim != 1 or weight.ndim != 2:
        raise ValueError("ids must be 1-D and weight 2-D")
    if bool(((ids < 0) | (ids >= weight.shape[0])).any()):
        raise IndexError(f"token id outside [0, {weight.shape[0]})")
    return weight[ids]
