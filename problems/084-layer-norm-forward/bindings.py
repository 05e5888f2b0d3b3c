"""Problem 84's bindings: layer_norm(x, weight, bias, eps) through the student's solve (runs in
the sandbox)."""

from typing import Any

import torch

launch: Any  # injected by the runner: launch(signature, args, inout=()) -> {name: tensor}

SIGNATURE = ("void solve(const float* x, const float* weight, const float* bias, float* y, "
             "int rows, int cols, float eps)")


def layer_norm(x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor,
               eps: float) -> torch.Tensor:
    if x.ndim != 2 or weight.shape != (x.shape[1],) or bias.shape != (x.shape[1],):
        raise ValueError("x must be [R, C] and weight, bias [C]")
    rows, cols = x.shape
    y = torch.empty(rows, cols, dtype=torch.float32, device=x.device)
    args = {"x": x.contiguous(), "weight": weight.contiguous(), "bias": bias.contiguous(),
            "y": y, "rows": rows, "cols": cols, "eps": float(eps)}
    return launch(SIGNATURE, args)["y"]  # noqa: F821 (launch is injected)
