"""kernels for problems 49-55 against slow, obviously-correct loop versions."""

from __future__ import annotations

import math

import pytest
import torch

from kernels.embedding_backward import embedding_backward
from kernels.lm_head import last_token_indices, sample_logits
from kernels.logit_lens import logit_lens, rms_norm
from kernels.param_count import count_parameters, embedding_share
from kernels.vocab_parallel import vp_argmax_logprob, vp_embed
from tests.conftest import require_triton


@pytest.mark.parametrize("pad_id", [0, -1, 3])
def test_embedding_backward_matches_autograd_and_loops(pad_id: int) -> None:
    gen = torch.Generator().manual_seed(11)
    ids = torch.randint(0, 6, (5, 7), generator=gen)
    ids[torch.rand(5, 7, generator=gen) < 0.3] = pad_id
    grad = torch.randn(5, 7, 4, generator=gen)
    loop = torch.zeros(6, 4)
    for p, i in enumerate(ids.flatten().tolist()):
        if i != pad_id:
            loop[i] += grad.reshape(-1, 4)[p]
    torch.testing.assert_close(embedding_backward(ids, grad, 6, pad_id), loop)
    weight = torch.randn(6, 4, requires_grad=True)
    from kernels.embedding import embed

    embed(ids, weight, pad_id).backward(grad)
    assert weight.grad is not None
    torch.testing.assert_close(embedding_backward(ids, grad, 6, pad_id), weight.grad)


def test_embedding_backward_accumulates_bf16_in_float32() -> None:
    ids = torch.zeros(4000, dtype=torch.int64)
    grad = torch.full((4000, 1), 0.01).bfloat16()
    out = embedding_backward(ids, grad, 1, -1)
    assert out.dtype == torch.bfloat16
    assert abs(out.item() - 4000 * grad[0, 0].float().item()) < 0.2


def test_embedding_backward_raises_for_bad_ids() -> None:
    with pytest.raises(IndexError):
        embedding_backward(torch.tensor([0, -2]), torch.ones(2, 3), 4, -1)


def test_sample_logits_matches_loops() -> None:
    gen = torch.Generator().manual_seed(5)
    lengths = [3, 1, 5, 2]
    cu = torch.tensor([0, 3, 4, 9, 11])
    hidden, weight = torch.randn(11, 6, generator=gen), torch.randn(13, 6, generator=gen)
    needs = torch.tensor([True, False, True, True])
    assert last_token_indices(cu).tolist() == [2, 3, 8, 10]
    rows, start = [], 0
    for n, need in zip(lengths, needs.tolist(), strict=True):
        if need:
            rows.append(torch.stack([weight[v] @ hidden[start + n - 1] for v in range(13)]))
        start += n
    torch.testing.assert_close(sample_logits(hidden, cu, weight, needs), torch.stack(rows))
    with pytest.raises(ValueError):
        last_token_indices(torch.tensor([0, 2, 2]))


@pytest.mark.parametrize("sizes", [[7], [3, 4], [5, 1, 6, 2]])
def test_vocab_parallel_matches_the_unsharded_head(sizes: list[int]) -> None:
    gen = torch.Generator().manual_seed(len(sizes))
    full = torch.randn(sum(sizes), 5, generator=gen) * 3
    shards = list(full.split(sizes))
    ids = torch.randint(0, sum(sizes), (4, 6), generator=gen)
    assert torch.equal(vp_embed(ids, shards), full[ids])
    hidden = torch.randn(9, 5, generator=gen)
    targets = torch.randint(0, sum(sizes), (9,), generator=gen)
    argmax, logprob = vp_argmax_logprob(hidden, shards, targets)
    logits = hidden @ full.T
    for n in range(9):
        row = logits[n].tolist()
        assert argmax[n].item() == row.index(max(row))
        lse = max(row) + math.log(sum(math.exp(x - max(row)) for x in row))
        assert abs(logprob[n].item() - (row[targets[n]] - lse)) < 1e-4


def test_vocab_parallel_breaks_ties_to_the_smallest_id_and_survives_huge_logits() -> None:
    shards = [torch.tensor([[0.0], [1.0]]), torch.tensor([[1.0], [-1.0]])]
    argmax, logprob = vp_argmax_logprob(torch.tensor([[1000.0]]), shards, torch.tensor([2]))
    assert argmax.tolist() == [1]
    assert abs(logprob.item() - math.log(0.5)) < 1e-5
    with pytest.raises(IndexError):
        vp_embed(torch.tensor([4]), shards)


def test_logit_lens_matches_loops() -> None:
    gen = torch.Generator().manual_seed(9)
    hs, norm_w, weight = torch.randn(3, 4, 6, generator=gen), torch.rand(6, generator=gen), torch.randn(10, 6, generator=gen)
    ids, prob = logit_lens(hs, norm_w, weight, 1e-6)
    for layer in range(3):
        for n in range(4):
            x = hs[layer, n]
            y = x / math.sqrt(sum(v * v for v in x.tolist()) / 6 + 1e-6) * norm_w
            logits = [float(weight[v] @ y) for v in range(10)]
            best = max(logits)
            assert ids[layer, n].item() == logits.index(best)
            assert abs(prob[layer, n].item() - 1 / sum(math.exp(v - best) for v in logits)) < 1e-5
    torch.testing.assert_close(rms_norm(hs, torch.ones(6), 0.0).pow(2).mean(-1), torch.ones(3, 4))


QWEN3_0_6B = {
    "vocab_size": 151936, "hidden_size": 1024, "num_layers": 28, "intermediate_size": 3072,
    "num_heads": 16, "num_kv_heads": 8, "head_dim": 128, "tie_embeddings": True, "qk_norm": True,
}


def test_parameter_count_of_qwen3_0_6b() -> None:
    counts = count_parameters(QWEN3_0_6B)
    assert counts["embedding"] == 151936 * 1024 == 155_582_464
    assert counts["total"] == 596_049_920
    assert counts["total"] - counts["embedding"] == 440_467_456  # "0.44B non-embedding"
    assert round(embedding_share(QWEN3_0_6B), 2) == 0.26


def test_parameter_count_matches_torch_modules() -> None:
    cfg = {"vocab_size": 50, "hidden_size": 16, "num_layers": 2, "intermediate_size": 24,
           "num_heads": 4, "num_kv_heads": 2, "head_dim": 8, "tie_embeddings": False,
           "qk_norm": True, "attention_bias": True}
    nn = torch.nn
    layer = [nn.Linear(16, 32, bias=True), nn.Linear(16, 16, bias=True), nn.Linear(16, 16, bias=True),
             nn.Linear(32, 16, bias=False), nn.Linear(16, 24, bias=False), nn.Linear(16, 24, bias=False),
             nn.Linear(24, 16, bias=False), nn.RMSNorm(16), nn.RMSNorm(16), nn.RMSNorm(8), nn.RMSNorm(8)]
    per_layer = sum(p.numel() for m in layer for p in m.parameters())
    expected = 2 * per_layer + 16 + 2 * 50 * 16
    assert count_parameters(cfg)["total"] == expected


def test_nearest_neighbours_matches_loops() -> None:
    from kernels.neighbours import nearest_neighbours

    gen = torch.Generator().manual_seed(21)
    weight = torch.randn(40, 5, generator=gen) * torch.rand(40, 1, generator=gen) * 5
    queries = torch.tensor([0, 7, 7, 39])
    ids, sims = nearest_neighbours(weight, queries, 4)
    for row, t in enumerate(queries.tolist()):
        cos = [
            (float(weight[t] @ weight[j]) / float(weight[t].norm() * weight[j].norm()), j)
            for j in range(40)
            if j != t
        ]
        best = sorted(cos, reverse=True)[:4]
        assert ids[row].tolist() == [j for _, j in best]
        assert all(abs(s - e) < 1e-5 for s, (e, _) in zip(sims[row].tolist(), best, strict=True))
    with pytest.raises(ValueError):
        nearest_neighbours(weight, queries, 40)


def test_triton_gather_matches_indexing_where_triton_is_installed() -> None:
    require_triton()
    from kernels.triton_embedding import embedding_gather  # sets TRITON_INTERPRET without a GPU

    gen = torch.Generator().manual_seed(4)
    weight = torch.randn(30, 200, generator=gen)
    ids = torch.randint(0, 30, (9,), generator=gen)
    assert torch.equal(embedding_gather(ids, weight), weight[ids])
    assert embedding_gather(ids[:0], weight).shape == (0, 200)
    with pytest.raises(IndexError):
        embedding_gather(torch.tensor([30]), weight)
