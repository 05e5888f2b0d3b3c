"""kernels.embedding against slow, obviously-correct loops on seeded random inputs."""

from __future__ import annotations

import pytest
import torch

from kernels.embedding import embed, last_positions, last_token_logits, pad_batch


def slow_embed(ids: torch.Tensor, weight: torch.Tensor, pad_id: int) -> torch.Tensor:
    vocab, dim = weight.shape
    out = torch.zeros(ids.numel(), dim, dtype=weight.dtype)
    for p, i in enumerate(ids.flatten().tolist()):
        if i == pad_id:
            continue
        if not 0 <= i < vocab:
            raise IndexError(i)
        out[p] = weight[i]
    return out.reshape(*ids.shape, dim)


def slow_embed_grad(ids: torch.Tensor, vocab: int, pad_id: int, grad_out: torch.Tensor) -> torch.Tensor:
    grad = torch.zeros(vocab, grad_out.shape[-1], dtype=torch.float64)
    flat = grad_out.reshape(-1, grad_out.shape[-1]).double()
    for p, i in enumerate(ids.flatten().tolist()):
        if i != pad_id:
            grad[i] += flat[p]
    return grad


@pytest.mark.parametrize("pad_id", [0, 5, -1, 30])
@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_it_matches_loops_forward_and_backward(pad_id: int, dtype: torch.dtype) -> None:
    gen = torch.Generator().manual_seed(1000 + pad_id)
    ids = torch.randint(0, 30, (3, 7), generator=gen)
    ids[torch.rand(3, 7, generator=gen) < 0.3] = pad_id
    weight = torch.randn(30, 6, generator=gen).to(dtype).requires_grad_(True)
    out = embed(ids, weight, pad_id)
    assert out.dtype == dtype and out.shape == (3, 7, 6)
    assert torch.equal(out.detach(), slow_embed(ids, weight.detach(), pad_id))
    grad_out = torch.randn(3, 7, 6, generator=gen).to(dtype)
    out.backward(grad_out)
    assert weight.grad is not None
    expected = slow_embed_grad(ids, 30, pad_id, grad_out)
    torch.testing.assert_close(weight.grad.double(), expected, atol=2e-2, rtol=2e-2)


@pytest.mark.parametrize("bad", [-1, -2, 30, 1000])
def test_it_raises_for_ids_outside_the_vocabulary(bad: int) -> None:
    ids = torch.tensor([[1, 2], [bad, 0]])
    with pytest.raises(IndexError):
        embed(ids, torch.randn(30, 4), pad_id=0 if bad != 0 else -1)


def test_it_zeroes_a_nan_padding_row() -> None:
    weight = torch.randn(4, 3)
    weight[2] = float("nan")
    out = embed(torch.tensor([2, 1]), weight, 2)
    assert torch.equal(out[0], torch.zeros(3)) and torch.equal(out[1], weight[1])


@pytest.mark.parametrize("side", ["right", "left"])
def test_last_token_logits_matches_loops(side: str) -> None:
    gen = torch.Generator().manual_seed(7)
    b, t, d, v = 6, 9, 8, 20
    hidden, weight = torch.randn(b, t, d, generator=gen), torch.randn(v, d, generator=gen)
    lengths = torch.randint(1, t + 1, (b,), generator=gen).tolist()
    mask = torch.zeros(b, t, dtype=torch.bool)
    for row, n in enumerate(lengths):
        if side == "right":
            mask[row, :n] = True
        else:
            mask[row, t - n :] = True
    expected = torch.stack([
        torch.stack([weight[k] @ hidden[row, max(i for i in range(t) if mask[row, i])] for k in range(v)])
        for row in range(b)
    ])
    torch.testing.assert_close(last_token_logits(hidden, weight, mask), expected)
    assert last_positions(mask).tolist() == [
        max(i for i in range(t) if mask[row, i]) for row in range(b)
    ]


@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_batch_matches_loops(side: str) -> None:
    gen = torch.Generator().manual_seed(3)
    seqs = [torch.randint(0, 50, (n,), generator=gen).tolist() for n in [0, 4, 1, 7, 0]]
    ids, mask = pad_batch(seqs, -3, side)
    assert ids.dtype == torch.int64 and mask.dtype == torch.bool and ids.shape == (5, 7)
    for row, seq in enumerate(seqs):
        pad = [-3] * (7 - len(seq))
        assert ids[row].tolist() == (seq + pad if side == "right" else pad + seq)
        real = [True] * len(seq)
        none = [False] * (7 - len(seq))
        assert mask[row].tolist() == (real + none if side == "right" else none + real)


def test_pad_batch_edge_cases() -> None:
    ids, mask = pad_batch([], 0)
    assert ids.shape == (0, 0) and mask.shape == (0, 0)
    with pytest.raises(ValueError):
        pad_batch([[1]], 0, side="middle")
