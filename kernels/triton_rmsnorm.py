"""A fused Triton RMSNorm forward (problem 80's speed baseline on a GPU).

Imports triton, which is not in the CPU sandbox image: only problems that declare
``requires = ["triton"]`` use this module. Without a GPU it switches Triton to its interpreter
(``TRITON_INTERPRET=1``, unless already set) before importing it: slow, for correctness only.
"""

from __future__ import annotations

import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import triton  # noqa: E402  (after choosing the interpreter)
import triton.language as tl  # noqa: E402


@triton.jit
def _rms_norm_rows(x_ptr, w_ptr, y_ptr, n_cols, stride_x, stride_y, eps, BLOCK: tl.constexpr):  # type: ignore[no-untyped-def]
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    keep = cols < n_cols
    x = tl.load(x_ptr + row * stride_x + cols, mask=keep, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=keep, other=0.0).to(tl.float32)
    y = x * rstd * w
    tl.store(y_ptr + row * stride_y + cols, y.to(y_ptr.dtype.element_ty), mask=keep)


def rms_norm(x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    """``x / sqrt(mean(x^2) + eps) * weight`` per row of a 2-D ``x``: one program per row, the
    whole row in one block (``BLOCK`` the next power of two of ``d``), float32 inside, the output
    in ``x``'s dtype. Honours ``x``'s row stride (columns must be contiguous, else it copies)."""
    if x.ndim != 2 or weight.shape != (x.shape[1],):
        raise ValueError("x must be [rows, d] and weight [d]")
    if x.stride(1) != 1:
        x = x.contiguous()
    weight = weight.contiguous()
    rows, d = x.shape
    y = torch.empty(rows, d, dtype=x.dtype, device=x.device)
    if rows == 0 or d == 0:
        return y
    block = triton.next_power_of_2(d)
    _rms_norm_rows[(rows,)](x, weight, y, d, x.stride(0), y.stride(0), eps, BLOCK=block)
    return y
