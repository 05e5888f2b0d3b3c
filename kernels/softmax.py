"""Row-wise, numerically stable softmax (the reference of problem 79).

Plain torch, computed in float32 whatever the input dtype, the result cast back. A row whose
entries are all ``-inf`` returns zeros (``torch.softmax`` would return NaN): the convention of
attention kernels, where a fully masked row contributes nothing.
"""

from __future__ import annotations

import torch


def softmax_rows(x: torch.Tensor) -> torch.Tensor:
    """``softmax(x, dim=1)`` for a 2-D ``x`` (any strides), in float32, returned in ``x.dtype``.

    Each row is shifted by its maximum before ``exp`` (no overflow for large logits); ``-inf``
    entries get probability 0 and a row of nothing but ``-inf`` gets zeros, not NaN.
    """
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got {x.ndim}-D")
    if x.shape[1] == 0:
        return torch.empty(x.shape, dtype=x.dtype, device=x.device)
    xf = x.float()
    top = xf.amax(dim=1, keepdim=True)
    top = torch.where(torch.isneginf(top), torch.zeros_like(top), top)
    e = torch.exp(xf - top)
    total = e.sum(dim=1, keepdim=True)
    return (e / torch.where(total > 0, total, torch.ones_like(total))).to(x.dtype)
