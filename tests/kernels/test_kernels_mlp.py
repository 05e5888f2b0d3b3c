"""kernels.mlp (problems 67-68) against slow loop versions and published model sizes."""

from __future__ import annotations

import math

import pytest
import torch

from kernels.mlp import (
    prenorm_block,
    residual_stream,
    swiglu_ffn,
    swiglu_hidden_size,
    swiglu_param_count,
)


def test_swiglu_ffn_matches_a_token_loop_and_stays_finite_for_huge_gates() -> None:
    gen = torch.Generator().manual_seed(6)
    x = torch.randn(5, 8, generator=gen) * 40
    wg, wu, wd = torch.randn(12, 8, generator=gen), torch.randn(12, 8, generator=gen), torch.randn(8, 12, generator=gen)
    loop = torch.stack([
        sum(wd[:, j] * (g / (1 + math.exp(-g)) if g > -700 else 0.0) * float(wu[j] @ row)
            for j, g in enumerate((wg @ row).tolist()))
        for row in x.double().float()
    ])
    got = swiglu_ffn(x, wg, wu, wd)
    assert torch.isfinite(got).all()
    torch.testing.assert_close(got, loop.float(), rtol=1e-4, atol=1e-3)
    with pytest.raises(ValueError):
        swiglu_ffn(x, wg, wu[:5], wd)


@pytest.mark.parametrize(("args", "want"), [
    ((4096, 256), 11008), ((5120, 256), 13824), ((8192, 4096, 1.3), 28672),
    ((4096, 1024, 1.3), 14336), ((16384, 4096, 1.2), 53248),
])
def test_swiglu_hidden_size_gives_the_published_llama_widths(args: tuple, want: int) -> None:
    assert swiglu_hidden_size(*args) == want


def test_swiglu_param_count_counts_three_matrices_and_their_biases() -> None:
    assert swiglu_param_count(4096, 11008) == 3 * 4096 * 11008
    assert swiglu_param_count(4, 6, bias=True) == 3 * 24 + 6 + 6 + 4
    with pytest.raises(ValueError):
        swiglu_hidden_size(16, 0)


def _weights(gen: torch.Generator, d: int, f: int) -> dict[str, torch.Tensor]:
    keys = {"attn_norm": (d,), "mlp_norm": (d,), "wq": (d, d), "wk": (d, d), "wv": (d, d),
            "wo": (d, d), "w_gate": (f, d), "w_up": (f, d), "w_down": (d, f)}
    return {k: torch.randn(*s, generator=gen) / math.sqrt(s[-1]) for k, s in keys.items()}


def _slow_block(x: torch.Tensor, p: dict[str, torch.Tensor], heads: int, eps: float) -> torch.Tensor:
    """One position and one head at a time, in float64."""
    x = x.double()
    p = {k: v.double() for k, v in p.items()}

    def rms(z: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
        return z / torch.sqrt((z * z).mean() + eps) * w

    b, t, d = x.shape
    dh = d // heads
    out = torch.empty_like(x)
    for bi in range(b):
        n = torch.stack([rms(x[bi, i], p["attn_norm"]) for i in range(t)])
        q, k, v = n @ p["wq"].T, n @ p["wk"].T, n @ p["wv"].T
        h = torch.empty(t, d, dtype=torch.float64)
        for i in range(t):
            parts = []
            for hd in range(heads):
                sl = slice(hd * dh, (hd + 1) * dh)
                s = torch.stack([q[i, sl] @ k[j, sl] for j in range(i + 1)]) / math.sqrt(dh)
                parts.append(torch.softmax(s, 0) @ v[: i + 1, sl])
            h[i] = x[bi, i] + torch.cat(parts) @ p["wo"].T
            m = rms(h[i], p["mlp_norm"])
            g = m @ p["w_gate"].T
            out[bi, i] = h[i] + (g * torch.sigmoid(g) * (m @ p["w_up"].T)) @ p["w_down"].T
    return out


def test_prenorm_block_matches_a_position_loop_and_the_stack_keeps_raw_streams() -> None:
    gen = torch.Generator().manual_seed(7)
    x = torch.randn(2, 5, 12, generator=gen)
    layers = [_weights(gen, 12, 20) for _ in range(2)]
    torch.testing.assert_close(prenorm_block(x, layers[0], 3).double(), _slow_block(x, layers[0], 3, 1e-6),
                               atol=1e-4, rtol=1e-4)
    final = torch.randn(12, generator=gen)
    out, streams = residual_stream(x, layers, final, 3)
    assert streams.shape == (3, 2, 5, 12) and torch.equal(streams[0], x)
    torch.testing.assert_close(streams[2], prenorm_block(streams[1], layers[1], 3))
    torch.testing.assert_close(out, streams[2] * torch.rsqrt(streams[2].pow(2).mean(-1, keepdim=True) + 1e-6) * final)
    with pytest.raises(ValueError):
        prenorm_block(x, layers[0], 5)
