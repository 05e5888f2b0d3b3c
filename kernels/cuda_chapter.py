"""The CUDA C++ chapter (issue 39): the trusted references and the speed baselines, one plain
torch function per problem. A CUDA submission is compared with these on the same inputs, and on
a GPU raced against them.

Self-contained (torch and the standard library only): the judge loads a baseline from this
file's source into its own sandbox. Inputs are float32; every function returns a new tensor.
"""

from __future__ import annotations

import torch

# --- 81: a*x + b*y with a grid-stride loop -------------------------------------------------


def axpby(x: torch.Tensor, y: torch.Tensor, a: float, b: float) -> torch.Tensor:
    """``a * x + b * y`` elementwise for two float32 tensors of one shape."""
    if x.shape != y.shape:
        raise ValueError(f"x and y must have one shape, got {tuple(x.shape)} and {tuple(y.shape)}")
    return torch.add(x * a, y, alpha=b)


# --- 82: per-row sums (a block reduction) ---------------------------------------------------


def row_sum(x: torch.Tensor) -> torch.Tensor:
    """``[R]``: the sum of each row of a 2-D float32 ``x``, accumulated in float64 (no float64
    copy of ``x``) and rounded once: the exact sum's neighbour, whatever order a kernel adds in."""
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got {x.ndim}-D")
    return x.sum(dim=1, dtype=torch.float64).to(x.dtype)


# --- 83: row softmax ------------------------------------------------------------------------


def row_softmax(x: torch.Tensor) -> torch.Tensor:
    """``softmax(x, dim=1)`` of a 2-D float32 ``x`` of finite values (the row's maximum is
    subtracted before ``exp``, as ``torch.softmax`` does)."""
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got {x.ndim}-D")
    return torch.softmax(x, dim=1)


# --- 84: layer norm forward -----------------------------------------------------------------


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
               eps: float) -> torch.Tensor:
    """LayerNorm over the last dimension of a 2-D ``x``: the biased variance, ``eps`` inside the
    square root, then ``* weight + bias`` (torch's own kernel: its statistics are accurate in
    float32 for rows far from zero, unlike the one-pass ``E[x^2] - E[x]^2``)."""
    if x.ndim != 2 or weight.shape != (x.shape[1],) or bias.shape != (x.shape[1],):
        raise ValueError("x must be [R, C] and weight, bias [C]")
    return torch.nn.functional.layer_norm(x, (x.shape[1],), weight, bias, eps)


# --- 85: transpose through shared memory ----------------------------------------------------


def transpose(x: torch.Tensor) -> torch.Tensor:
    """``x.T`` of a 2-D float32 ``x``, as a new contiguous ``[cols, rows]`` tensor."""
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got {x.ndim}-D")
    return x.t().contiguous()


# --- 86: tiled matmul -----------------------------------------------------------------------


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """``a @ b`` for float32 ``a [M, K]`` and ``b [K, N]``: products summed in float64 and
    rounded once, so the reference does not depend on an order of addition (the baseline on a
    GPU is the same product in float32: torch's own GEMM)."""
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"a must be [M, K] and b [K, N], got {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    if a.is_cuda:
        return a @ b
    return (a.double() @ b.double()).to(a.dtype)


# --- 87: argmax per row ---------------------------------------------------------------------


def row_argmax(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(values [R] float32, indices [R] int64)``: each row's largest entry and the lowest
    column holding it (``torch.argmax`` returns the first maximum). Rows have at least one
    column; entries are not NaN (-inf is allowed: a row of -inf gives -inf at column 0)."""
    if x.ndim != 2 or x.shape[1] == 0:
        raise ValueError(f"x must be [R, C] with C >= 1, got {tuple(x.shape)}")
    indices = torch.argmax(x, dim=1)
    return x.gather(1, indices[:, None])[:, 0], indices


# --- 88: causal attention forward for short sequences ---------------------------------------


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """``softmax(q k^T / sqrt(d) + causal mask) v`` per head for float32 ``[H, T, d]`` inputs:
    query ``i`` sees keys ``0..i``. Computed in float64 on a CPU (the maximum subtracted), in
    float32 with torch's fused kernel on a GPU (the baseline)."""
    if q.ndim != 3 or k.shape != q.shape or v.shape != q.shape:
        raise ValueError("q, k and v must all be [H, T, d]")
    if q.is_cuda:
        return torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    t, d = q.shape[1], q.shape[2]
    scores = (q.double() @ k.double().transpose(1, 2)) / d**0.5
    future = torch.ones(t, t, dtype=torch.bool).triu(1)
    weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return (weights @ v.double()).to(q.dtype)
