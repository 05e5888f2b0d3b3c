# Correct: the kernel's order of work: per group, the dot product of integer codes with
# x, then one multiplication by the group's scale, summed over groups in float32.
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
    if x.dim() not in (1, 2) or x.shape[-1] != k:
        raise ValueError("x does not fit the weights")
    if group_size < 1 or k % group_size or tuple(scales.shape) != (n, k // group_size):
        raise ValueError("scales do not fit")
    q = _codes(packed).float().reshape(n, k // group_size, group_size)
    xs = x.float().reshape(*x.shape[:-1], k // group_size, group_size)
    dots = torch.einsum('njg,...jg->...nj', q, xs)
    return (dots * scales.float()).sum(dim=-1).to(x.dtype)
