# Wrong: pack_int4 refuses codes above 7 but not below -8, so -9 silently wraps to 7 (its low
# nibble) instead of raising ValueError for a code outside [-8, 7].
import torch


def quantize_int4(w, group_size):
    if w.dim() != 2 or group_size < 1 or w.shape[1] % group_size:
        raise ValueError("bad shape or group size")
    n, k = w.shape
    groups = w.float().reshape(n, k // group_size, group_size)
    scales = groups.abs().amax(dim=-1) / 7.0
    safe = torch.where(scales == 0, torch.ones_like(scales), scales)
    q = torch.round(groups / safe[..., None]).clamp(-8, 7)
    return q.to(torch.int8).reshape(n, k), scales


def pack_int4(q):
    if q.dtype != torch.int8:
        raise TypeError("codes must be int8")
    if q.dim() < 1 or q.shape[-1] % 2:
        raise ValueError("odd length")
    if q.numel() and q.max() > 7:
        raise ValueError("code out of range")
    nib = q.to(torch.int16) & 0xF
    return (nib[..., 0::2] | (nib[..., 1::2] << 4)).to(torch.uint8)


def unpack_int4(packed):
    if packed.dtype != torch.uint8:
        raise TypeError("bytes must be uint8")
    p = packed.to(torch.int16)
    lo, hi = p & 0xF, p >> 4
    both = torch.stack((lo, hi), dim=-1).reshape(*packed.shape[:-1], 2 * packed.shape[-1])
    return torch.where(both >= 8, both - 16, both).to(torch.int8)


def dequantize_int4(packed, scales, group_size):
    q = unpack_int4(packed)
    n, k = q.shape
    if group_size < 1 or k % group_size or tuple(scales.shape) != (n, k // group_size):
        raise ValueError("scales do not fit")
    return q.float() * scales.float().repeat_interleave(group_size, dim=1)
