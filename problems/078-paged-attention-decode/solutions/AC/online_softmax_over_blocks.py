# Correct, the way a paged-attention kernel works: walk the block tables one block column at a
# time for the whole batch, with a running maximum, sum and accumulator (online softmax); only
# the slots inside each row's context count, and a masked slot is replaced before any product.
import torch


def paged_decode_attention(q, k_cache, v_cache, block_tables, context_lens, scale):
    b, h, d = q.shape
    num_blocks, block_size, hkv, _ = k_cache.shape
    if h % hkv or k_cache.shape[3] != d:
        raise ValueError("the key/value heads do not fit the query heads")
    lens = context_lens.long()
    if bool((lens < 0).any()) or bool((lens > block_tables.shape[1] * block_size).any()):
        raise IndexError("a context does not fit its block table")
    g = h // hkv
    qg = q.float().reshape(b, hkv, g, d)
    m = torch.full((b, hkv, g), float("-inf"))
    s = torch.zeros(b, hkv, g)
    acc = torch.zeros(b, hkv, g, d)
    slot = torch.arange(block_size)
    for j in range(-(-int(lens.max()) // block_size) if b else 0):
        pos = j * block_size + slot  # [bs]
        valid = pos[None, :] < lens[:, None]  # [B, bs]
        live = valid.any(dim=1)
        entry = block_tables[:, j].long()
        if bool((live & ((entry < 0) | (entry >= num_blocks))).any()):
            raise IndexError(f"a needed entry of table column {j} lies outside the pool")
        entry = torch.where(live, entry, 0)
        keep = valid[:, :, None, None]
        keys = torch.where(keep, k_cache[entry].float(), 0.0)  # [B, bs, H_kv, D]
        values = torch.where(keep, v_cache[entry].float(), 0.0)
        scores = torch.einsum("bkgd,btkd->bkgt", qg, keys) * scale
        scores = scores.masked_fill(~valid[:, None, None, :], float("-inf"))
        m_new = torch.maximum(m, scores.amax(dim=-1))
        safe = torch.where(m_new == float("-inf"), 0.0, m_new)
        p = torch.exp(scores - safe[..., None])
        correction = torch.exp(m - safe)
        s = s * correction + p.sum(dim=-1)
        acc = acc * correction[..., None] + torch.einsum("bkgt,btkd->bkgd", p, values)
        m = m_new
    out = torch.where(s[..., None] > 0, acc / s.clamp(min=1e-30)[..., None], 0.0)
    return out.reshape(b, h, d).to(q.dtype)
