import torch


def quantize_int4(w, group_size):
    """(int8 codes [N, K], float32 scales [N, K // group_size]), s = max|w| / 7 per group."""
    n, k = w.shape
    groups = w.float().reshape(n, k // group_size, group_size)
    scales = groups.abs().amax(dim=-1) / 7.0
    # TODO: .to(torch.int8) truncates toward zero; round half to even instead. Zero groups
    # divide 0 by 0 here, and bad group sizes are not rejected.
    q = (groups / scales[..., None]).clamp(-8, 7).to(torch.int8)
    return q.reshape(n, k), scales


def pack_int4(q):
    """Two codes per byte: element 2i in the low nibble."""
    # TODO: check the dtype, the length and the range of the codes.
    nibbles = q.to(torch.int16) & 0xF
    return (nibbles[..., 0::2] | (nibbles[..., 1::2] << 4)).to(torch.uint8)


def unpack_int4(packed):
    """int8 codes from packed bytes."""
    p = packed.to(torch.int16)
    # TODO: nibbles of 8 to 15 are negative codes (sign extension is missing).
    both = torch.stack((p & 0xF, p >> 4), dim=-1)
    return both.reshape(*packed.shape[:-1], 2 * packed.shape[-1]).to(torch.int8)


def dequantize_int4(packed, scales, group_size):
    """float32 [N, K] = codes * the scale of their group."""
    q = unpack_int4(packed).float()
    return q * scales.repeat_interleave(group_size, dim=-1)
