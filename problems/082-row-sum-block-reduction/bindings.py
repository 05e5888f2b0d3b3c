"""Problem 82's bindings: row_sum(x) through the student's solve (runs in the sandbox)."""

from typing import Any

import torch

launch: Any  # injected by the runner: launch(signature, args, inout=()) -> {name: tensor}

SIGNATURE = "void solve(const float* x, float* out, int rows, int cols)"


def row_sum(x: torch.Tensor) -> torch.Tensor:
    if x.ndim != 2:
        raise ValueError(f"x must be 2-D, got {x.ndim}-D")
    rows, cols = x.shape
    out = torch.empty(rows, dtype=torch.float32, device=x.device)
    args = {"x": x.contiguous(), "out": out, "rows": rows, "cols": cols}
    return launch(SIGNATURE, args)["out"]  # noqa: F821 (launch is injected)
