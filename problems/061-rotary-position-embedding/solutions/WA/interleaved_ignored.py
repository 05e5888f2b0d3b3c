# Classic mistake: always pairs (i, i + d/2), whatever `interleaved` says (weights converted
# from a codebase with the other layout then produce garbage).
import torch


def apply_rope(x, offset=0, base=10000.0, interleaved=False):
    b, h, t, d = x.shape
    if d % 2:
        raise ValueError("d must be even")
    inv_freq = 1.0 / base ** (torch.arange(0, d, 2, dtype=torch.float32) / d)
    pos = torch.arange(t, dtype=torch.float32)
    if isinstance(offset, torch.Tensor):
        angles = ((pos[None, :] + offset.float()[:, None])[..., None] * inv_freq)[:, None]
    else:
        angles = (pos + offset)[:, None] * inv_freq
    cos, sin = angles.cos(), angles.sin()
    xf = x.float()
    a, c = xf[..., : d // 2], xf[..., d // 2:]
    return torch.cat((a * cos - c * sin, a * sin + c * cos), dim=-1).to(x.dtype)
