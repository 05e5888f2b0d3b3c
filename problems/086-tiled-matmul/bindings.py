"""Problem 86's bindings: matmul(a, b) through the student's solve (runs in the sandbox)."""

from typing import Any

import torch

launch: Any  # injected by the runner: launch(signature, args, inout=()) -> {name: tensor}

SIGNATURE = "void solve(const float* a, const float* b, float* c, int M, int N, int K)"


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    if a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError(f"a must be [M, K] and b [K, N], got {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    (m, k), n = a.shape, b.shape[1]
    c = torch.empty(m, n, dtype=torch.float32, device=a.device)
    args = {"a": a.contiguous(), "b": b.contiguous(), "c": c, "M": m, "N": n, "K": k}
    return launch(SIGNATURE, args)["c"]  # noqa: F821 (launch is injected)
