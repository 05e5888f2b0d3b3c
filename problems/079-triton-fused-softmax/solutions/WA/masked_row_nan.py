# Mistake: no guard for a row of only -inf: its max is -inf, x - max is -inf - -inf = NaN,
# and the row comes out NaN instead of zeros.
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
    x = tl.load(x_ptr + row * sxr + cols * sxc, mask=keep, other=float("-inf")).to(tl.float32)
    m = tl.max(x, 0)
    e = tl.exp(x - m)
    s = tl.sum(e, 0)
    tl.store(out_ptr + row * sor + cols, (e / s).to(out_ptr.dtype.element_ty), mask=keep)


def softmax(x):
    rows, n_cols = x.shape
    out = torch.empty(rows, n_cols, dtype=x.dtype, device=x.device)
    if rows and n_cols:
        _kernel[(rows,)](x, out, n_cols, x.stride(0), x.stride(1), out.stride(0),
                         BLOCK=triton.next_power_of_2(n_cols))
    return out
