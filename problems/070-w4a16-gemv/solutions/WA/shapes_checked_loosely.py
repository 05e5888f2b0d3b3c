# Wrong: checks only the last dimension of x and the scales' shape as [N, K // group_size], so a
# 3-D x slips through a broadcasting matmul and a group_size that does not divide K fails later
# with a RuntimeError instead of the ValueError the statement asks for.
import torch


def _codes(packed):
    p = packed.to(torch.int16)
    lo, hi = p & 0xF, p >> 4
    both = torch.stack((lo, hi), dim=-1).reshape(packed.shape[0], 2 * packed.shape[1])
    return torch.where(both >= 8, both - 16, both)


def w4a16_gemv(x, packed, scales, group_size):
    if x.dtype not in (torch.bfloat16, torch.float16):
        raise TypeError("x must be bfloat16 or float16")
    n, k = packed.shape[0], 2 * packed.shape[1]
    if x.shape[-1] != k:
        raise ValueError("x does not fit the weights")
    if group_size < 1 or tuple(scales.shape) != (n, k // group_size):
        raise ValueError("scales do not fit")
    w = _codes(packed).float() * scales.float().repeat_interleave(group_size, dim=1)
    return (x.float() @ w.T).to(x.dtype)
