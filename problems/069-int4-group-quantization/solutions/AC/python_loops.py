# Correct but slow: Python loops over groups and over bytes.
import torch


def quantize_int4(w, group_size):
    if w.dim() != 2 or group_size < 1 or w.shape[1] % group_size:
        raise ValueError("bad shape or group size")
    n, k = w.shape
    groups = w.float().reshape(n, k // group_size, group_size)
    scales = groups.abs().amax(dim=-1) / 7.0
    safe = torch.where(scales == 0, torch.ones_like(scales), scales)
    q = torch.zeros(n, k, dtype=torch.int8)
    for r in range(n):
        for j in range(k // group_size):
            for i in range(group_size):
                v = float(groups[r, j, i]) / float(safe[r, j]) if scales[r, j] else 0.0
                q[r, j * group_size + i] = max(-8, min(7, round(v)))  # round(): half to even
    return q, scales


def pack_int4(q):
    if q.dtype != torch.int8:
        raise TypeError("codes must be int8")
    if q.dim() < 1 or q.shape[-1] % 2:
        raise ValueError("odd length")
    if q.numel() and (q.min() < -8 or q.max() > 7):
        raise ValueError("code out of range")
    flat = q.reshape(-1, q.shape[-1]).tolist()
    out = [[(row[2 * i] & 0xF) | ((row[2 * i + 1] & 0xF) << 4) for i in range(len(row) // 2)] for row in flat]
    return torch.tensor(out, dtype=torch.uint8).reshape(*q.shape[:-1], q.shape[-1] // 2)


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
