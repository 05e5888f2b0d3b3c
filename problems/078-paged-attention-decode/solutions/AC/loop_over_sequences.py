# Correct, slower: one row at a time, its blocks in table order, the last one cut at the
# context; key/value heads copied to their groups with repeat_interleave.
import torch


def paged_decode_attention(q, k_cache, v_cache, block_tables, context_lens, scale):
    b, h, d = q.shape
    num_blocks, block_size, hkv, _ = k_cache.shape
    if h % hkv or k_cache.shape[3] != d:
        raise ValueError("the key/value heads do not fit the query heads")
    out = torch.zeros(b, h, d)
    for row in range(b):
        n = int(context_lens[row])
        if n < 0 or n > block_tables.shape[1] * block_size:
            raise IndexError(f"row {row}: context {n} does not fit its table")
        if n == 0:
            continue
        keys, values = [], []
        for j in range(-(-n // block_size)):
            block = int(block_tables[row, j])
            if not 0 <= block < num_blocks:
                raise IndexError(f"row {row}: table entry {j} is {block}")
            used = min(block_size, n - j * block_size)
            keys.append(k_cache[block, :used])
            values.append(v_cache[block, :used])
        keys = torch.cat(keys).float().repeat_interleave(h // hkv, dim=1)  # [n, H, D]
        values = torch.cat(values).float().repeat_interleave(h // hkv, dim=1)
        scores = torch.einsum("hd,nhd->hn", q[row].float(), keys) * scale
        out[row] = torch.einsum("hn,nhd->hd", torch.softmax(scores, dim=-1), values)
    return out.to(q.dtype)
