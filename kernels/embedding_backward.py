"""The gradient of an embedding lookup as a scatter-add (problem 49's reference and baseline)."""

from __future__ import annotations

import torch


def embedding_backward(
    ids: torch.Tensor, grad_output: torch.Tensor, num_embeddings: int, pad_id: int
) -> torch.Tensor:
    """``[V, d]`` gradient of ``out = W[ids]`` given ``grad_output = dL/d out``.

    ``grad_weight[v] = sum of grad_output[p] over positions p with ids[p] == v``; positions
    holding ``pad_id`` contribute nothing. Accumulates in float32 (bfloat16 sums of many
    repeats lose most of their bits) and returns ``grad_output.dtype``. Raises IndexError for
    an id that is neither ``pad_id`` nor in ``[0, num_embeddings)``.
    """
    flat_ids = ids.reshape(-1)
    dim = grad_output.shape[-1]
    flat_grad = grad_output.reshape(-1, dim)
    keep = flat_ids != pad_id
    bad = keep & ((flat_ids < 0) | (flat_ids >= num_embeddings))
    if bool(bad.any()):
        raise IndexError(f"token id {int(flat_ids[bad][0])} outside [0, {num_embeddings})")
    acc = torch.zeros(num_embeddings, dim, dtype=torch.float32, device=grad_output.device)
    acc.index_add_(0, flat_ids[keep], flat_grad[keep].float())
    return acc.to(grad_output.dtype)
