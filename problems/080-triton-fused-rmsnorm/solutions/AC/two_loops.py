# A student's correct kernel for long rows: a fixed block of 128 columns, one loop over the row
# for the sum of squares, a second loop to normalise, weight and store.
import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import triton
import triton.language as tl

BLOCK = 128


@triton.jit
def _kernel(x_ptr, w_ptr, y_ptr, d, stride_x, stride_y, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    x_row = x_ptr + row * stride_x
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, d, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        x = tl.load(x_row + cols, mask=cols < d, other=0.0).to(tl.float32)
        acc += x * x
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / d + eps)
    for start in range(0, d, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        keep = cols < d
        x = tl.load(x_row + cols, mask=keep, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + cols, mask=keep, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * stride_y + cols, (x * rstd * w).to(y_ptr.dtype.element_ty),
                 mask=keep)


def rms_norm(x, weight, eps):
    x, weight = x.contiguous(), weight.contiguous()
    rows, d = x.shape
    y = torch.empty_like(x)
    if rows:
        _kernel[(rows,)](x, weight, y, d, x.stride(0), y.stride(0), eps, BLOCK=BLOCK)
    return y
