import torch


def apply_rope(x: torch.Tensor, offset=0, base: float = 10000.0, interleaved: bool = False) -> torch.Tensor:
    """Rotary embedding of x [B, H, T, d]; the token at index t has position offset + t."""
    t, d = x.shape[-2], x.shape[-1]
    # TODO: `offset` may also be a [B] tensor (one offset per row); `interleaved` pairs
    # channels (2i, 2i + 1); and bfloat16 inputs need float32 arithmetic.
    pos = torch.arange(t, dtype=x.dtype) + offset
    inv_freq = base ** (-torch.arange(0, d // 2, dtype=x.dtype) * 2 / d)
    angles = pos[:, None] * inv_freq
    cos, sin = angles.cos(), angles.sin()
    x1, x2 = x[..., : d // 2], x[..., d // 2:]
    return torch.cat((x1 * cos - x2 * sin, x2 * cos + x1 * sin), dim=-1)
