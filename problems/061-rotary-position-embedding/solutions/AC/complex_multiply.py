# Correct, another way: each pair as a complex number multiplied by e^{i p theta}.
# Rotate-half is turned into the interleaved layout and back.
import torch


def apply_rope(x, offset=0, base=10000.0, interleaved=False):
    b, h, t, d = x.shape
    if d % 2:
        raise ValueError("d must be even")
    theta = base ** (-torch.arange(d // 2, dtype=torch.float64) * 2 / d)
    if isinstance(offset, torch.Tensor):
        pos = (offset[:, None] + torch.arange(t)).double()[:, None, :, None]  # [B, 1, T, 1]
    else:
        pos = (torch.arange(t) + offset).double()[:, None]  # [T, 1]
    turn = torch.polar(torch.ones_like(pos * theta), pos * theta).to(torch.complex64)
    xf = x.float()
    if not interleaved:
        xf = torch.stack((xf[..., : d // 2], xf[..., d // 2:]), dim=-1)
    else:
        xf = xf.reshape(b, h, t, d // 2, 2)
    z = torch.view_as_real(torch.view_as_complex(xf.contiguous()) * turn)
    if not interleaved:
        z = torch.cat((z[..., 0], z[..., 1]), dim=-1)
    return z.reshape(b, h, t, d).to(x.dtype)
