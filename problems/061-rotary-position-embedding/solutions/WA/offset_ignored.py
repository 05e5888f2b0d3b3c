# Classic mistake: positions always start at 0: right for a prompt, wrong for every decode
# step (and per-row offsets are ignored too).
import torch


def apply_rope(x, offset=0, base=10000.0, interleaved=False):
    b, h, t, d = x.shape
    if d % 2:
        raise ValueError("d must be even")
    inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float32) / d)
    angles = torch.arange(t, dtype=torch.float32)[:, None] * inv_freq
    cos, sin = angles.cos(), angles.sin()
    xf = x.float()
    a, c = (xf[..., 0::2], xf[..., 1::2]) if interleaved else (xf[..., : d // 2], xf[..., d // 2:])
    ya, yc = a * cos - c * sin, a * sin + c * cos
    out = torch.stack((ya, yc), dim=-1).reshape(b, h, t, d) if interleaved else torch.cat((ya, yc), -1)
    return out.to(x.dtype)
