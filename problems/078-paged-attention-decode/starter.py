import torch


def paged_decode_attention(q, k_cache, v_cache, block_tables, context_lens, scale):
    """out[b, h] = softmax(scale * q[b, h] . K_b) V_b over the first context_lens[b] tokens of
    row b, token t in slot t % block_size of block block_tables[b, t // block_size]."""
    b, h, d = q.shape
    block_size = k_cache.shape[1]
    out = torch.zeros(b, h, d)
    for row in range(b):
        n = int(context_lens[row])
        blocks = block_tables[row, : -(-n // block_size)]
        # TODO: the last block is used in full (its tail may hold NaN); H_kv < H is not handled;
        # empty contexts, bad lengths and bad table entries are not either.
        keys = k_cache[blocks].reshape(-1, h, d).float()  # [tokens, H, D]
        values = v_cache[blocks].reshape(-1, h, d).float()
        scores = torch.einsum("hd,nhd->hn", q[row].float(), keys) * scale
        out[row] = torch.einsum("hn,nhd->hd", torch.softmax(scores, dim=-1), values)
    return out.to(q.dtype)
