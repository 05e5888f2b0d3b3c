# Mistake: the online softmax's running sum is kept in the input's dtype: in float16 a sum
# near 1 has a spacing of 2 ** -10, and a block of 64 terms of 6e-6 each (3.9e-4, under half
# of it) is rounded away: the sum stays at 1 where it should reach 1.018.
import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import triton
import triton.language as tl


@triton.jit
def _kernel(x_ptr, out_ptr, n_cols, sxr, sxc, sor, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    m = tl.max(tl.full([BLOCK], float("-inf"), tl.float32), 0)
    s = tl.sum(tl.zeros([BLOCK], out_ptr.dtype.element_ty), 0)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        x = tl.load(x_ptr + row * sxr + cols * sxc, mask=cols < n_cols, other=float("-inf"))
        x = x.to(tl.float32)
        m_new = tl.maximum(m, tl.max(x, 0))
        base = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = (s * tl.exp(m - base) + tl.sum(tl.exp(x - base), 0)).to(out_ptr.dtype.element_ty)
        m = m_new
    m = tl.where(m == float("-inf"), 0.0, m)
    s = tl.where(s > 0, s, 1.0)
    for start in range(0, n_cols, BLOCK):
        cols = start + lanes
        keep = cols < n_cols
        x = tl.load(x_ptr + row * sxr + cols * sxc, mask=keep, other=float("-inf")).to(tl.float32)
        tl.store(out_ptr + row * sor + cols, (tl.exp(x - m) / s).to(out_ptr.dtype.element_ty), mask=keep)


def softmax(x):
    rows, n_cols = x.shape
    out = torch.empty(rows, n_cols, dtype=x.dtype, device=x.device)
    if rows and n_cols:
        _kernel[(rows,)](x, out, n_cols, x.stride(0), x.stride(1), out.stride(0), BLOCK=64)
    return out
