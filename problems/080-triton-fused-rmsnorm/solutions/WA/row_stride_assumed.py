# Mistake: assumes a contiguous x. The kernel addresses row r at r * d and is handed x as it
# came: for rows of a wider buffer (or every other row) the row stride is not d, and the kernel
# silently normalises other numbers (the memory is there, so nothing fails).
import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import triton
import triton.language as tl


@triton.jit
def _kernel(x_ptr, w_ptr, y_ptr, d, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK)
    keep = cols < d
    x = tl.load(x_ptr + row * d + cols, mask=keep, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / d + eps)
    w = tl.load(w_ptr + cols, mask=keep, other=0.0).to(tl.float32)
    tl.store(y_ptr + row * d + cols, (x * rstd * w).to(y_ptr.dtype.element_ty), mask=keep)


def rms_norm(x, weight, eps):
    weight = weight.contiguous()
    rows, d = x.shape
    y = torch.empty(rows, d, dtype=x.dtype, device=x.device)
    if rows:
        _kernel[(rows,)](x, weight, y, d, eps, BLOCK=triton.next_power_of_2(d))
    return y
