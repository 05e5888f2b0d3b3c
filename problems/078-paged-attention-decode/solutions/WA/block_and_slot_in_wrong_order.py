# Mistake: gathers each row's blocks as [B, max_blocks, block_size, ...] and flattens them
# slot-major (transposed), so "token t" comes from the wrong axis: slot t // max_blocks of
# block entry t % max_blocks. The first context_lens[b] of those are the wrong slots.
import torch


def paged_decode_attention(q, k_cache, v_cache, block_tables, context_lens, scale):
    b, h, d = q.shape
    num_blocks, block_size, hkv, _ = k_cache.shape
    max_blocks = block_tables.shape[1]
    if h % hkv or k_cache.shape[3] != d:
        raise ValueError("the key/value heads do not fit the query heads")
    lens = context_lens.long()
    span = max_blocks * block_size
    if bool(((lens < 0) | (lens > span)).any()):
        raise IndexError("a context does not fit its block table")
    entries = block_tables.long()
    needed = torch.arange(max_blocks)[None, :] < -(-lens[:, None] // block_size)  # [B, M]
    if bool((needed & ((entries < 0) | (entries >= num_blocks))).any()):
        raise IndexError("a needed block table entry lies outside the pool")
    entries = torch.where(needed, entries, 0)
    keys = k_cache[entries].transpose(1, 2).reshape(b, span, hkv, d).float()  # slot-major
    values = v_cache[entries].transpose(1, 2).reshape(b, span, hkv, d).float()
    valid = torch.arange(span)[None, :] < lens[:, None]  # [B, T]
    keep = valid[:, :, None, None]
    keys = torch.where(keep, keys, 0.0).repeat_interleave(h // hkv, dim=2)  # [B, T, H, D]
    values = torch.where(keep, values, 0.0).repeat_interleave(h // hkv, dim=2)
    scores = torch.einsum("bhd,bthd->bht", q.float(), keys) * scale
    scores = scores.masked_fill(~valid[:, None, :], float("-inf"))
    probs = torch.where(valid[:, None, :], torch.softmax(scores, dim=-1), 0.0)
    out = torch.einsum("bht,bthd->bhd", probs, values)
    return out.to(q.dtype)
