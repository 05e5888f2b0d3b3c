import torch


def to_bfloat16(x, rounding="nearest", random_bits=None):
    """float32 -> bfloat16 on the bits: nearest (ties to even), zero, or stochastic."""
    u = x.contiguous().view(torch.int32).to(torch.int64) & 0xFFFFFFFF
    # TODO: this truncates whatever `rounding` says. Nearest adds 0x7FFF plus the last kept
    # bit, stochastic adds random_bits; every NaN must become 0x7FC0; check the arguments.
    high = (u >> 16) & 0xFFFF
    return torch.where(high >= 0x8000, high - 0x10000, high).to(torch.int16).view(torch.bfloat16)
