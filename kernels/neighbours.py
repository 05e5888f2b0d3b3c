"""Top-k cosine neighbours of tokens in an embedding table, in bounded memory (problem 53)."""

from __future__ import annotations

import torch

QUERY_CHUNK = 256  # queries per [chunk, V] similarity block: memory O(chunk * V), never V * V


def unit_rows(weight: torch.Tensor) -> torch.Tensor:
    """Rows scaled to unit L2 norm, in float32 (a zero row stays zero)."""
    w = weight.float()
    return w / w.norm(dim=1, keepdim=True).clamp_min(1e-12)


def nearest_neighbours(
    weight: torch.Tensor, token_ids: torch.Tensor, k: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """For each query token, the ``k`` other tokens of highest cosine similarity.

    Returns ``(ids int64 [Q, k], sims float32 [Q, k])``, most similar first; the query token
    itself is excluded (other tokens with an identical row are not). ``1 <= k <= V - 1``.
    """
    vocab = weight.shape[0]
    if not 1 <= k <= vocab - 1:
        raise ValueError(f"k must be in [1, {vocab - 1}], got {k}")
    if bool(((token_ids < 0) | (token_ids >= vocab)).any()):
        raise IndexError("token id outside the vocabulary")
    unit = unit_rows(weight)
    ids_out, sims_out = [], []
    for start in range(0, token_ids.shape[0], QUERY_CHUNK):
        chunk = token_ids[start : start + QUERY_CHUNK]
        sims = unit[chunk] @ unit.T  # [chunk, V]
        sims[torch.arange(chunk.shape[0]), chunk] = float("-inf")
        top = sims.topk(k, dim=1)
        ids_out.append(top.indices)
        sims_out.append(top.values)
    if not ids_out:
        return torch.zeros(0, k, dtype=torch.int64), torch.zeros(0, k)
    return torch.cat(ids_out), torch.cat(sims_out)
