# Mistake: assumes a contiguous table. The kernel addresses row `tok` at tok * d and is handed
# the table as it came: for a sliced or transposed table the row stride is not d, and the
# kernel silently copies other numbers (the memory is there, so nothing fails).
import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import triton
import triton.language as tl


@triton.jit
def _kernel(ids_ptr, w_ptr, out_ptr, d, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    keep = cols < d
    tok = tl.load(ids_ptr + row)
    tl.store(out_ptr + row * d + cols, tl.load(w_ptr + tok * d + cols, mask=keep), mask=keep)


def embedding_gather(ids, weight):
    ids = ids.contiguous()
    n, (v, d) = ids.shape[0], weight.shape
    if ((ids < 0) | (ids >= v)).any():
        raise IndexError("id out of range")
    out = torch.empty(n, d, dtype=weight.dtype, device=weight.device)
    if n:
        _kernel[(n, triton.cdiv(d, 64))](ids, weight, out, d, BLOCK=64)
    return out
