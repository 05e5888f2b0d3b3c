# Correct, simpler and slower on a GPU: one program per (query, head), no tl.dot; each key
# block's scores are a product and a sum over d, with the same online softmax.
import math
import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import triton
import triton.language as tl

BLOCK_N = 32


@triton.jit
def _row_kernel(q_ptr, k_ptr, v_ptr, o_ptr, t, s, scale,
                CAUSAL: tl.constexpr, D: tl.constexpr, BLOCK_N: tl.constexpr):
    i = tl.program_id(0)
    head = tl.program_id(1)
    cols = tl.arange(0, D)
    q = tl.load(q_ptr + (head * t + i) * D + cols)
    m = -float("inf")
    l = 0.0
    acc = tl.zeros([D], tl.float32)
    end = s
    if CAUSAL:
        end = i + 1
    for start in range(0, end, BLOCK_N):
        keys = start + tl.arange(0, BLOCK_N)
        ok = keys < end
        k = tl.load(k_ptr + (head * s + keys[:, None]) * D + cols[None, :], mask=ok[:, None], other=0.0)
        v = tl.load(v_ptr + (head * s + keys[:, None]) * D + cols[None, :], mask=ok[:, None], other=0.0)
        scores = tl.where(ok, tl.sum(k * q[None, :], 1) * scale, -float("inf"))
        m_new = tl.maximum(m, tl.max(scores, 0))
        p = tl.exp(scores - m_new)
        alpha = tl.exp(m - m_new)
        l = l * alpha + tl.sum(p, 0)
        acc = acc * alpha + tl.sum(p[:, None] * v, 0)
        m = m_new
    tl.store(o_ptr + (head * t + i) * D + cols, acc / l)


def attention_forward(q, k, v, causal=False):
    b, h, t, d = q.shape
    s = k.shape[2]
    if causal and t != s:
        raise ValueError("causal attention needs T == S")
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    out = torch.empty_like(q)
    _row_kernel[(t, b * h)](q, k, v, out, t, s, 1.0 / math.sqrt(d),
                            CAUSAL=causal, D=d, BLOCK_N=BLOCK_N)
    return out
