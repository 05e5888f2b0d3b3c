# Classic mistake: attends every slot of the blocks a row uses, the whole last block
# included: the slots after the row's last token (NaN, or an earlier sequence's values) get weight.
import torch


def paged_decode_attention(q, k_cache, v_cache, block_tables, context_lens, scale):
    b, h, d = q.shape
    num_blocks, block_size, hkv, _ = k_cache.shape
    if h % hkv or k_cache.shape[3] != d:
        raise ValueError("the key/value heads do not fit the query heads")
    lens = context_lens.long()
    span = block_tables.shape[1] * block_size
    if bool(((lens < 0) | (lens > span)).any()):
        raise IndexError("a context does not fit its block table")
    t = torch.arange(span)
    valid = t[None, :] < (-(-lens // block_size) * block_size)[:, None]  # whole blocks
    blocks = block_tables.long()[:, t // block_size]
    if bool((valid & ((blocks < 0) | (blocks >= num_blocks))).any()):
        raise IndexError("a needed block table entry lies outside the pool")
    blocks = torch.where(valid, blocks, 0)
    slots = (t % block_size).expand(b, span)
    keep = valid[:, :, None, None]
    keys = torch.where(keep, k_cache[blocks, slots].float(), 0.0)  # [B, T, H_kv, D]
    values = torch.where(keep, v_cache[blocks, slots].float(), 0.0)
    keys = keys.repeat_interleave(h // hkv, dim=2)  # [B, T, H, D]
    values = values.repeat_interleave(h // hkv, dim=2)
    scores = torch.einsum("bhd,bthd->bht", q.float(), keys) * scale
    scores = scores.masked_fill(~valid[:, None, :], float("-inf"))
    probs = torch.where(valid[:, None, :], torch.softmax(scores, dim=-1), 0.0)  # empty rows: 0
    out = torch.einsum("bht,bthd->bhd", probs, values)
    return out.to(q.dtype)
