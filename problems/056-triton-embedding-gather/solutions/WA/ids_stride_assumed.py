# Mistake: passes ids to the kernel as they came and loads id n at ids_ptr + n: for ids that
# are a strided view (every other element of a longer tensor) it reads the skipped ones.
import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import triton
import triton.language as tl


@triton.jit
def _kernel(ids_ptr, w_ptr, out_ptr, d, stride_w, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    keep = cols < d
    tok = tl.load(ids_ptr + row)
    tl.store(out_ptr + row * d + cols, tl.load(w_ptr + tok * stride_w + cols, mask=keep), mask=keep)


def embedding_gather(ids, weight):
    weight = weight.contiguous()
    n, (v, d) = ids.shape[0], weight.shape
    if ((ids < 0) | (ids >= v)).any():
        raise IndexError("id out of range")
    out = torch.empty(n, d, dtype=weight.dtype, device=weight.device)
    if n:
        _kernel[(n, triton.cdiv(d, 64))](ids, weight, out, d, weight.stride(0), BLOCK=64)
    return out
