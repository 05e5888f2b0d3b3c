# Correct but slow: one value at a time through struct, in Python integers.
import torch


def to_bfloat16(x, rounding="nearest", random_bits=None):
    if not isinstance(x, torch.Tensor) or x.dtype != torch.float32:
        raise TypeError("x must be float32")
    import math, struct
    flat = x.reshape(-1).tolist()
    r_list = None
    if rounding == "nearest":
        pass
    elif rounding == "stochastic":
        if random_bits is None or random_bits.shape != x.shape or random_bits.is_floating_point():
            raise ValueError("random_bits must be an integer tensor shaped like x")
        r_list = random_bits.reshape(-1).tolist()
        if any(v < 0 or v > 0xFFFF for v in r_list):
            raise ValueError("random_bits must lie in [0, 65536)")
    elif rounding != "zero":
        raise ValueError("unknown rounding")
    out = []
    for i, v in enumerate(flat):
        if math.isnan(v):
            out.append(0x7FC0)
            continue
        u = struct.unpack('<I', struct.pack('<f', v))[0]
        if rounding == 'nearest':
            u += 0x7FFF + ((u >> 16) & 1)
        elif rounding == 'stochastic':
            u += r_list[i]
        out.append((u >> 16) & 0xFFFF)
    signed = [b - 0x10000 if b >= 0x8000 else b for b in out]
    return torch.tensor(signed, dtype=torch.int16).reshape(x.shape).view(torch.bfloat16)
