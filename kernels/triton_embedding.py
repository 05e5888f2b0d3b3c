"""A Triton embedding gather (problem 56's speed baseline on a GPU).

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

BLOCK_D = 128


@triton.jit
def _gather_rows(ids_ptr, weight_ptr, out_ptr, d, stride_w, stride_out, BLOCK: tl.constexpr):  # type: ignore[no-untyped-def]
    row = tl.program_id(0)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    keep = cols < d
    token = tl.load(ids_ptr + row)
    values = tl.load(weight_ptr + token * stride_w + cols, mask=keep)
    tl.store(out_ptr + row * stride_out + cols, values, mask=keep)


def embedding_gather(ids: torch.Tensor, weight: torch.Tensor) -> torch.Tensor:
    """``weight[ids]`` for 1-D int64 ``ids``: one program per (token, block of columns).

    Honours ``weight``'s row stride (it may be a column slice of a wider table; columns must be
    contiguous). IndexError for ids outside ``[0, V)``, checked on the host before launching.
    """
    if ids.ndim != 1 or weight.ndim != 2:
        raise ValueError("ids must be 1-D and weight 2-D")
    if weight.stride(1) != 1:
        weight = weight.contiguous()
    n, (vocab, d) = ids.shape[0], weight.shape
    if n and bool(((ids < 0) | (ids >= vocab)).any()):
        raise IndexError(f"token id outside [0, {vocab})")
    out = torch.empty(n, d, dtype=weight.dtype, device=weight.device)
    if n == 0 or d == 0:
        return out
    grid = (n, triton.cdiv(d, BLOCK_D))
    _gather_rows[grid](ids, weight, out, d, weight.stride(0), out.stride(0), BLOCK=BLOCK_D)
    return out
