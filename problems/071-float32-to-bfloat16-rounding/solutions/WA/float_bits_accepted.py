# Wrong: checks random_bits' shape and range but not that it is an integer tensor, so float
# random bits are used (converted) instead of raising ValueError as the statement says.
import torch


def to_bfloat16(x, rounding="nearest", random_bits=None):
    if not isinstance(x, torch.Tensor) or x.dtype != torch.float32:
        raise TypeError("x must be float32")
    u = x.contiguous().view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    if rounding == "nearest":
        u = u + 0x7FFF + ((u >> 16) & 1)
    elif rounding == "stochastic":
        if random_bits is None or random_bits.shape != x.shape:
            raise ValueError("random_bits must be an integer tensor shaped like x")
        r = random_bits.to(torch.int64)
        if r.numel() and (r.min() < 0 or r.max() > 0xFFFF):
            raise ValueError("random_bits must lie in [0, 65536)")
        u = u + r
    elif rounding != "zero":
        raise ValueError("unknown rounding")
    high = (u >> 16) & 0xFFFF
    high = torch.where(torch.isnan(x), torch.full_like(high, 0x7FC0), high)
    return torch.where(high >= 0x8000, high - 0x10000, high).to(torch.int16).view(torch.bfloat16)
