# Classic mistake: theta_i = base^(-i/d) instead of base^(-2i/d): the frequencies fall off
# half as fast (equal only for pair 0).
import torch


def apply_rope(x, offset=0, base=10000.0, interleaved=False):
    b, h, t, d = x.shape
    if d % 2:
        raise ValueError("d must be even")
    inv_freq = 1.0 / base ** (torch.arange(d // 2, dtype=torch.float32) / d)
    pos = torch.arange(t, dtype=torch.float32)
    if isinstance(offset, torch.Tensor):
        angles = ((pos[None, :] + offset.float()[:, None])[..., None] * inv_freq)[:, None]
    else:
        angles = (pos + offset)[:, None] * inv_freq
    cos, sin = angles.cos(), angles.sin()
    xf = x.float()
    a, c = (xf[..., 0::2], xf[..., 1::2]) if interleaved else (xf[..., : d // 2], xf[..., d // 2:])
    ya, yc = a * cos - c * sin, a * sin + c * cos
    out = torch.stack((ya, yc), dim=-1).reshape(b, h, t, d) if interleaved else torch.cat((ya, yc), -1)
    return out.to(x.dtype)
