"""A Triton row-wise softmax with an online (running) maximum (problem 79's speed baseline).

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

MAX_BLOCK = 1024


@triton.jit
def _softmax_rows(  # type: ignore[no-untyped-def]
    x_ptr, out_ptr, n_cols, stride_xr, stride_xc, stride_or, BLOCK: tl.constexpr,
):
    """Program r: row r in blocks of BLOCK columns. Pass 1 keeps a running maximum and sum per
    lane (float32); pass 2 writes exp(x - max) / sum. A row of only -inf gets zeros."""
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * stride_xr
    out_row = out_ptr + row * stride_or
    lanes = tl.arange(0, BLOCK)
    m_lane = tl.full([BLOCK], float("-inf"), tl.float32)
    l_lane = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_row + cols * stride_xc, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m_lane, x)
        shift = tl.where(m_new == float("-inf"), 0.0, m_new)
        l_lane = l_lane * tl.exp(m_lane - shift) + tl.exp(x - shift)
        m_lane = m_new
    top = tl.max(m_lane, 0)
    top = tl.where(top == float("-inf"), 0.0, top)
    total = tl.sum(l_lane * tl.exp(m_lane - top), 0)
    total = tl.where(total > 0, total, 1.0)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        keep = cols < n_cols
        x = tl.load(x_row + cols * stride_xc, mask=keep, other=float("-inf")).to(tl.float32)
        p = tl.exp(x - top) / total
        tl.store(out_row + cols, p.to(out_ptr.dtype.element_ty), mask=keep)


def softmax(x: torch.Tensor) -> torch.Tensor:
    """``softmax(x, dim=1)`` of a 2-D float tensor (any strides), computed in float32 and
    returned contiguous in ``x.dtype``; a row of only ``-inf`` gives zeros."""
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got {x.ndim}-D")
    rows, n_cols = x.shape
    out = torch.empty(rows, n_cols, dtype=x.dtype, device=x.device)
    if rows == 0 or n_cols == 0:
        return out
    block = min(MAX_BLOCK, triton.next_power_of_2(n_cols))
    _softmax_rows[(rows,)](x, out, n_cols, x.stride(0), x.stride(1), out.stride(0), BLOCK=block)
    return out
