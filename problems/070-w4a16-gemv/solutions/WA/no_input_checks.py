# Classic mistake: no checks; a mismatched x or scales fails inside torch with a
# RuntimeError (or runs on float32 activations) instead of the stated errors.
import torch


def _codes(packed):
    p = packed.to(torch.int16)
    lo, hi = p & 0xF, p >> 4
    both = torch.stack((lo, hi), dim=-1).reshape(packed.shape[0], 2 * packed.shape[1])
    return torch.where(both >= 8, both - 16, both)


def w4a16_gemv(x, packed, scales, group_size):
    n, k = packed.shape[0], 2 * packed.shape[1]
    w = _codes(packed).float() * scales.float().repeat_interleave(group_size, dim=1)
    return (x.float() @ w.T).to(x.dtype)
