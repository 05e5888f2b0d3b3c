# Classic mistake: the last key block is loaded with other=0.0 but its scores are not set
# to -inf past S: the zero keys get weight exp(0 - m) and dilute the softmax.
import math
import os

import torch

if not torch.cuda.is_available():
    os.environ.setdefault("TRITON_INTERPRET", "1")

import triton
import triton.language as tl

BLOCK_M = 16
BLOCK_N = 16


@triton.jit
def _attention_forward(
    q_ptr, k_ptr, v_ptr, o_ptr, t, s, scale,
    CAUSAL: tl.constexpr, D: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
):
    block = tl.program_id(0)
    head = tl.program_id(1)
    rows = block * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = tl.arange(0, D)
    q = tl.load(q_ptr + head * t * D + rows[:, None] * D + cols[None, :], mask=rows[:, None] < t, other=0.0)
    m_i = tl.full([BLOCK_M], float("-inf"), tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    end = s
    if CAUSAL:
        end = tl.minimum((block + 1) * BLOCK_M, s)
    for start in range(0, end, BLOCK_N):
        keys = start + tl.arange(0, BLOCK_N)
        inside = keys[:, None] < s
        k = tl.load(k_ptr + head * s * D + keys[:, None] * D + cols[None, :], mask=inside, other=0.0)
        v = tl.load(v_ptr + head * s * D + keys[:, None] * D + cols[None, :], mask=inside, other=0.0)
        scores = tl.dot(q, tl.trans(k), input_precision="ieee") * scale
        keep = keys[None, :] >= 0
        if CAUSAL:
            keep = keep & (keys[None, :] <= rows[:, None])
        scores = tl.where(keep, scores, float("-inf"))
        m_new = tl.maximum(m_i, tl.max(scores, 1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(scores - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None] + tl.dot(p, v, input_precision="ieee")
        m_i = m_new
    out = acc / l_i[:, None]
    tl.store(o_ptr + head * t * D + rows[:, None] * D + cols[None, :], out, mask=rows[:, None] < t)


def attention_forward(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False
) -> torch.Tensor:
    b, h, t, d = q.shape
    s = k.shape[2]
    if causal and t != s:
        raise ValueError("causal attention needs as many queries as keys")
    q, k, v = (x.float().contiguous() for x in (q, k, v))
    out = torch.empty(b, h, t, d, dtype=torch.float32, device=q.device)
    if t == 0 or b * h == 0:
        return out
    grid = (triton.cdiv(t, BLOCK_M), b * h)
    _attention_forward[grid](
        q, k, v, out, t, s, 1.0 / math.sqrt(d),
        CAUSAL=causal, D=d, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
    )
    return out
