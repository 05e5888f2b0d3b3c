"""Cross-entropy through a tied LM head without materialising [N, V] logits (problem 54).

Forward and backward are computed together, one chunk of rows at a time: per chunk the
logits ``[c, V]``, their log-sum-exp, the loss terms, and the gradient of the logits
``softmax - onehot`` turned at once into contributions to ``dL/dhidden`` and ``dL/dweight``.
Peak extra memory is a few ``[c, V]`` blocks, whatever ``N`` is; autograd saves only the two
finished gradients.
"""

from __future__ import annotations

from typing import Any

import torch

DEFAULT_CHUNK_ROWS = 256


def _check_targets(targets: torch.Tensor, vocab: int, ignore_index: int) -> torch.Tensor:
    valid = targets != ignore_index
    bad = valid & ((targets < 0) | (targets >= vocab))
    if bool(bad.any()):
        raise IndexError(f"target {int(targets[bad][0])} outside [0, {vocab})")
    return valid


def _chunked(
    hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor, ignore_index: int,
    chunk_rows: int, with_grads: bool,
) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
    vocab = weight.shape[0]
    valid = _check_targets(targets, vocab, ignore_index)
    count = int(valid.sum())
    w = weight.float()
    loss = torch.zeros((), dtype=torch.float32, device=hidden.device)
    grad_h = torch.zeros(hidden.shape, dtype=torch.float32, device=hidden.device) if with_grads else None
    grad_w = torch.zeros(w.shape, dtype=torch.float32, device=hidden.device) if with_grads else None
    if count == 0:
        return loss, grad_h, grad_w
    for start in range(0, hidden.shape[0], chunk_rows):
        rows = slice(start, start + chunk_rows)
        keep = valid[rows]
        if not bool(keep.any()):
            continue
        h = hidden[rows].float()
        t = targets[rows].masked_fill(~keep, 0)
        logits = h @ w.T  # [c, V]: the only large block
        picked = logits.gather(1, t[:, None])[:, 0]
        row_max = logits.max(dim=1).values
        probs = logits.sub_(row_max[:, None]).exp_()  # one exp pass, in place of the logits
        total = probs.sum(dim=1)
        lse = row_max + total.log()
        loss = loss + torch.where(keep, lse - picked, 0.0).sum()
        if with_grads:
            assert grad_h is not None and grad_w is not None
            dlogits = probs.div_(total[:, None])  # softmax
            dlogits[torch.arange(t.shape[0], device=t.device), t] -= 1.0
            dlogits[~keep] = 0.0
            grad_h[rows] = dlogits @ w
            grad_w.addmm_(dlogits.T, h)
    scale = 1.0 / count
    return (
        loss * scale,
        grad_h.mul_(scale) if grad_h is not None else None,
        grad_w.mul_(scale) if grad_w is not None else None,
    )


class _ChunkedCrossEntropy(torch.autograd.Function):
    @staticmethod
    def forward(  # type: ignore[override]
        ctx: Any, hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor,
        ignore_index: int, chunk_rows: int,
    ) -> torch.Tensor:
        loss, grad_h, grad_w = _chunked(hidden, weight, targets, ignore_index, chunk_rows, True)
        assert grad_h is not None and grad_w is not None
        ctx.save_for_backward(grad_h.to(hidden.dtype), grad_w.to(weight.dtype))
        return loss

    @staticmethod
    def backward(ctx: Any, grad_loss: torch.Tensor) -> tuple[Any, ...]:  # type: ignore[override]
        grad_h, grad_w = ctx.saved_tensors
        return grad_h * grad_loss, grad_w * grad_loss, None, None, None


def chunked_cross_entropy(
    hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor, ignore_index: int = -100,
    chunk_rows: int = DEFAULT_CHUNK_ROWS,
) -> torch.Tensor:
    """Mean of ``logsumexp(W h_n) - (W h_n)[t_n]`` over rows whose target is not ignored.

    ``hidden`` ``[N, d]``, ``weight`` the tied ``[V, d]``, ``targets`` int64 ``[N]``. Returns a
    float32 scalar, 0 when every target is ignored. Differentiable w.r.t. ``hidden`` and
    ``weight`` (gradients computed during the forward pass, chunk by chunk). IndexError for a
    target outside ``[0, V)`` that is not ``ignore_index``.
    """
    if hidden.requires_grad or weight.requires_grad:
        return _ChunkedCrossEntropy.apply(hidden, weight, targets, ignore_index, chunk_rows)
    loss, _, _ = _chunked(hidden, weight, targets, ignore_index, chunk_rows, False)
    return loss
