import math
import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")  # no GPU: run kernels in Triton's interpreter

import triton
import triton.language as tl

BLOCK_M = 16
BLOCK_N = 16


@triton.jit
def attention_kernel(q_ptr, k_ptr, v_ptr, o_ptr, t, s, scale,
                     CAUSAL: tl.constexpr, D: tl.constexpr,
                     BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    block = tl.program_id(0)
    head = tl.program_id(1)
    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, D)
    q = tl.load(q_ptr + head * t * D + rows[:, None] * D + cols[None, :], mask=rows[:, None] < t, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    for start in range(0, s, BLOCK_N):
        keys = start + tl.arange(0, BLOCK_N)
        inside = keys[:, None] < s
        k = tl.load(k_ptr + head * s * D + keys[:, None] * D + cols[None, :], mask=inside, other=0.0)
        v = tl.load(v_ptr + head * s * D + keys[:, None] * D + cols[None, :], mask=inside, other=0.0)
        scores = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        scores = tl.where(keys[None, :] < s, scores, float("-inf"))
        # TODO: the causal mask; and when the maximum grows, what was accumulated under the
        # old maximum must be scaled by exp(m_old - m_new).
        m_new = tl.maximum(m_i, tl.max(scores, 1))
        p = tl.exp(scores - m_new[:, None])
        l_i = l_i + tl.sum(p, 1)
        acc = acc + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    tl.store(o_ptr + head * t * D + rows[:, None] * D + cols[None, :], acc / l_i[:, None],
             mask=rows[:, None] < t)


def attention_forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                      causal: bool = False) -> torch.Tensor:
    """softmax(q k^T / sqrt(d)) v with a Triton kernel; q [B, H, T, d], k and v [B, H, S, d]."""
    b, h, t, d = q.shape
    s = k.shape[2]
    q, k, v = q.contiguous(), k.contiguous(), v.contiguous()
    out = torch.empty_like(q)
    grid = (triton.cdiv(t, BLOCK_M), b * h)
    attention_kernel[grid](q, k, v, out, t, s, 1.0 / math.sqrt(d),
                           CAUSAL=causal, D=d, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return out
