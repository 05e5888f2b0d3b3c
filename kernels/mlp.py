"""The transformer block's MLP half and the block itself: the references of problems 67
(SwiGLU FFN and its sizes) and 68 (a pre-norm block's residual stream), and their baselines.

Self-contained (torch and the standard library only): the judge loads a baseline from this
file's source into its own sandbox. Weights are stored as ``nn.Linear`` stores them,
``[out_features, in_features]``, so a projection is ``x @ W.T``. Tensors are computed in
float32 and returned in the input dtype.
"""

from __future__ import annotations

import math

import torch

# --- 67: SwiGLU -------------------------------------------------------------------------------


def swiglu_ffn(
    x: torch.Tensor, w_gate: torch.Tensor, w_up: torch.Tensor, w_down: torch.Tensor
) -> torch.Tensor:
    """``(silu(x W_gate^T) * (x W_up^T)) W_down^T`` for ``x`` of shape ``[..., d]``,
    ``w_gate``/``w_up`` ``[f, d]``, ``w_down`` ``[d, f]``; ValueError on other shapes."""
    d = x.shape[-1] if x.dim() else -1
    f = w_gate.shape[0] if w_gate.dim() == 2 else -1
    if (
        x.dim() < 1
        or tuple(w_gate.shape) != (f, d)
        or tuple(w_up.shape) != (f, d)
        or tuple(w_down.shape) != (d, f)
    ):
        raise ValueError("expected w_gate, w_up [f, d] and w_down [d, f] for x [..., d]")
    x32 = x.float()
    gate = x32 @ w_gate.float().T
    up = x32 @ w_up.float().T
    return ((torch.nn.functional.silu(gate) * up) @ w_down.float().T).to(x.dtype)


def swiglu_hidden_size(dim: int, multiple_of: int = 256, ffn_dim_multiplier: float | None = None) -> int:
    """The Llama rule for the SwiGLU width: ``int(2 * 4 * dim / 3)``, times the multiplier
    (truncated to an int) when one is given, rounded **up** to a multiple of ``multiple_of``."""
    if dim < 1 or multiple_of < 1:
        raise ValueError("dim and multiple_of must be positive")
    hidden = int(2 * (4 * dim) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def swiglu_param_count(dim: int, hidden: int, bias: bool = False) -> int:
    """Parameters of one SwiGLU FFN: three matrices (gate, up: ``hidden x dim``; down:
    ``dim x hidden``), plus biases ``hidden + hidden + dim`` when ``bias``."""
    if dim < 1 or hidden < 1:
        raise ValueError("dim and hidden must be positive")
    return 3 * dim * hidden + (2 * hidden + dim if bias else 0)


# --- 68: a pre-norm block ----------------------------------------------------------------------

BLOCK_KEYS = ("attn_norm", "wq", "wk", "wv", "wo", "mlp_norm", "w_gate", "w_up", "w_down")


def _rms(h: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
    return h * torch.rsqrt(h.square().mean(dim=-1, keepdim=True) + eps) * weight


def _causal_mha(n: torch.Tensor, p: dict[str, torch.Tensor], n_heads: int) -> torch.Tensor:
    b, t, d = n.shape
    dh = d // n_heads

    def heads(w: torch.Tensor) -> torch.Tensor:  # [B, T, d] -> [B, H, T, dh]
        return (n @ w.T).reshape(b, t, n_heads, dh).transpose(1, 2)

    q, k, v = heads(p["wq"]), heads(p["wk"]), heads(p["wv"])
    scores = q @ k.transpose(-1, -2) / math.sqrt(dh)
    future = torch.ones(t, t, dtype=torch.bool, device=n.device).triu(1)
    probs = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)
    return (probs @ v).transpose(1, 2).reshape(b, t, d) @ p["wo"].T


def _block(x: torch.Tensor, p: dict[str, torch.Tensor], n_heads: int, eps: float) -> torch.Tensor:
    h = x + _causal_mha(_rms(x, p["attn_norm"], eps), p, n_heads)
    n = _rms(h, p["mlp_norm"], eps)
    return h + (torch.nn.functional.silu(n @ p["w_gate"].T) * (n @ p["w_up"].T)) @ p["w_down"].T


def _check_block(x: torch.Tensor, weights: dict[str, torch.Tensor], n_heads: int) -> None:
    if x.dim() != 3:
        raise ValueError("x must be [B, T, d]")
    d = x.shape[-1]
    if set(weights) != set(BLOCK_KEYS):
        raise ValueError(f"weights must have exactly the keys {BLOCK_KEYS}")
    if n_heads < 1 or d % n_heads:
        raise ValueError("n_heads must divide d")
    f = weights["w_gate"].shape[0] if weights["w_gate"].dim() == 2 else -1
    want = {"attn_norm": (d,), "mlp_norm": (d,), "wq": (d, d), "wk": (d, d), "wv": (d, d),
            "wo": (d, d), "w_gate": (f, d), "w_up": (f, d), "w_down": (d, f)}
    for key, shape in want.items():
        if tuple(weights[key].shape) != shape:
            raise ValueError(f"weights[{key!r}] must be {list(shape)}")


def prenorm_block(
    x: torch.Tensor, weights: dict[str, torch.Tensor], n_heads: int, eps: float = 1e-6
) -> torch.Tensor:
    """One pre-norm decoder block on the residual stream ``x`` (float32 ``[B, T, d]``):
    ``h = x + Attn(RMSNorm(x))``, ``out = h + SwiGLU(RMSNorm(h))``, the attention causal
    with ``n_heads`` heads of ``d / n_heads`` (no positional encoding)."""
    _check_block(x, weights, n_heads)
    return _block(x, weights, n_heads, eps)


def residual_stream(
    x: torch.Tensor,
    layers: list[dict[str, torch.Tensor]],
    final_norm: torch.Tensor,
    n_heads: int,
    eps: float = 1e-6,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``(out, streams)`` of a stack of :func:`prenorm_block` layers: ``streams`` is
    ``[L + 1, B, T, d]``, the stream before the first block and after each one (never
    normalised), ``out`` the last stream through the final RMSNorm."""
    for p in layers:
        _check_block(x, p, n_heads)
    if tuple(final_norm.shape) != (x.shape[-1],):
        raise ValueError("final_norm must be [d]")
    streams = [x]
    for p in layers:
        streams.append(_block(streams[-1], p, n_heads, eps))
    return _rms(streams[-1], final_norm, eps), torch.stack(streams)
