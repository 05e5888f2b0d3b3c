# A student's correct solution: float32 cos/sin tables for the positions, pairs picked by
# slicing for either layout, the result cast back to the input dtype.
import torch


def apply_rope(x, offset=0, base=10000.0, interleaved=False):
    b, h, t, d = x.shape
    if d % 2:
        raise ValueError("d must be even")
    inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float32) / d)
    pos = torch.arange(t, dtype=torch.float32)
    if isinstance(offset, torch.Tensor):
        pos = pos[None, :] + offset.float()[:, None]  # [B, T]
        angles = (pos[..., None] * inv_freq)[:, None]  # [B, 1, T, d/2]
    else:
        angles = (pos + offset)[:, None] * inv_freq  # [T, d/2]
    cos, sin = angles.cos(), angles.sin()
    xf = x.float()
    if interleaved:
        a, c = xf[..., 0::2], xf[..., 1::2]
    else:
        a, c = xf[..., : d // 2], xf[..., d // 2:]
    ya, yc = a * cos - c * sin, a * sin + c * cos
    if interleaved:
        out = torch.stack((ya, yc), dim=-1).reshape(b, h, t, d)
    else:
        out = torch.cat((ya, yc), dim=-1)
    return out.to(x.dtype)
