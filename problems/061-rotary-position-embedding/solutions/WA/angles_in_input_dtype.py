# Classic mistake: positions, frequencies and the rotation in x's dtype. Fine in float32;
# in bfloat16 position 1001 becomes 1000 and the angles are off by radians.
import torch


def apply_rope(x, offset=0, base=10000.0, interleaved=False):
    b, h, t, d = x.shape
    if d % 2:
        raise ValueError("d must be even")
    inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=x.dtype) / d)
    pos = torch.arange(t, dtype=x.dtype)
    if isinstance(offset, torch.Tensor):
        angles = ((pos[None, :] + offset.to(x.dtype)[:, None])[..., None] * inv_freq)[:, None]
    else:
        angles = (pos + offset)[:, None] * inv_freq
    cos, sin = angles.cos(), angles.sin()
    a, c = (x[..., 0::2], x[..., 1::2]) if interleaved else (x[..., : d // 2], x[..., d // 2:])
    ya, yc = a * cos - c * sin, a * sin + c * cos
    return torch.stack((ya, yc), dim=-1).reshape(b, h, t, d) if interleaved else torch.cat((ya, yc), -1)
