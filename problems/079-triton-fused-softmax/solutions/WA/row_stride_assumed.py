# Mistake: assumes a contiguous matrix: row r starts at r * n_cols and columns are adjacent.
# For a column slice or a transpose of another matrix it silently reads other numbers.
import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import triton
import triton.language as tl


@triton.jit
def _kernel(x_ptr, out_ptr, n_cols, sxr, sxc, sor, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    keep = cols < n_cols
    x = tl.load(x_ptr + row * n_cols + cols, mask=keep, other=float("-inf")).to(tl.float32)
    m = tl.max(x, 0)
    m = tl.where(m == float("-inf"), 0.0, m)  # a row of only -inf: exp(-inf) = 0 everywhere
    e = tl.exp(x - m)
    s = tl.sum(e, 0)
    s = tl.where(s > 0, s, 1.0)
    tl.store(out_ptr + row * sor + cols, (e / s).to(out_ptr.dtype.element_ty), mask=keep)


def softmax(x):
    rows, n_cols = x.shape
    out = torch.empty(rows, n_cols, dtype=x.dtype, device=x.device)
    if rows and n_cols:
        _kernel[(rows,)](x, out, n_cols, x.stride(0), x.stride(1), out.stride(0),
                         BLOCK=triton.next_power_of_2(n_cols))
    return out
