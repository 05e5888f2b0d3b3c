# Mistake: the mean divides by BLOCK (the padded power of two), not by d: right only when d
# is a power of two.
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
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / BLOCK + eps)
    w = tl.load(w_ptr + cols, mask=keep, other=0.0).to(tl.float32)
    y = x * rstd * w
    tl.store(y_ptr + row * d + cols, y.to(y_ptr.dtype.element_ty), mask=keep)


def rms_norm(x, weight, eps):
    x, weight = x.contiguous(), weight.contiguous()
    rows, d = x.shape
    y = torch.empty(rows, d, dtype=x.dtype, device=x.device)
    if rows:
        _kernel[(rows,)](x, weight, y, d, eps, BLOCK=triton.next_power_of_2(d))
    return y
