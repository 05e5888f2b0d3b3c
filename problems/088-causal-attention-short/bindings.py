"""Problem 88's bindings: causal_attention(q, k, v) through the student's solve (runs in the
sandbox)."""

from typing import Any

import torch

launch: Any  # injected by the runner: launch(signature, args, inout=()) -> {name: tensor}

SIGNATURE = ("void solve(const float* q, const float* k, const float* v, float* out, "
             "int H, int T, int d)")


def causal_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    if q.ndim != 3 or k.shape != q.shape or v.shape != q.shape:
        raise ValueError("q, k and v must all be [H, T, d]")
    heads, tokens, dim = q.shape
    out = torch.empty(heads, tokens, dim, dtype=torch.float32, device=q.device)
    args = {"q": q.contiguous(), "k": k.contiguous(), "v": v.contiguous(), "out": out,
            "H": heads, "T": tokens, "d": dim}
    return launch(SIGNATURE, args)["out"]  # noqa: F821 (launch is injected)
