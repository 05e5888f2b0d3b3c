# Correct, slow: one query at a time, softmax over the keys it may see, zeros when none.
import math

import torch


def causal_attention(q, k, v, key_padding_mask=None):
    b, h, t, d = q.shape
    rows = []
    for bi in range(b):
        heads = []
        for hi in range(h):
            outs = []
            for i in range(t):
                keys = [j for j in range(i + 1)
                        if key_padding_mask is None or bool(key_padding_mask[bi, j])]
                if not keys:
                    outs.append(torch.zeros(d) * q[bi, hi, i].float().sum() * 0)
                    continue
                idx = torch.tensor(keys)
                s = k[bi, hi, idx].float() @ q[bi, hi, i].float() / math.sqrt(d)
                outs.append(torch.softmax(s, dim=0) @ v[bi, hi, idx].float())
            heads.append(torch.stack(outs))
        rows.append(torch.stack(heads))
    return torch.stack(rows).to(q.dtype)
