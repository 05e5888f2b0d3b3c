"""kernels.beam_search (problem 76) against a candidate-by-candidate loop."""

from __future__ import annotations

import pytest
import torch

from kernels.beam_search import beam_search_step


def _loop(beams, tokens, lengths, finished, eos, pad, alpha, first_step=False):  # type: ignore[no-untyped-def]
    b, k, v = tokens.shape
    out = []
    for row in range(b):
        cands = []  # (score, parent, token, logprob, length, done)
        for i in range(1 if first_step else k):
            n, base = int(lengths[row, i]), float(beams[row, i])
            if bool(finished[row, i]):
                cands.append((base / n**alpha, i, pad, base, n, True))
                continue
            for tok in range(v):
                lp = float(torch.tensor(base) + tokens[row, i, tok])  # float32 sum
                cands.append((lp / (n + 1) ** alpha, i, tok, lp, n + 1, tok == eos))
        cands.sort(key=lambda c: (-c[0], c[1], c[2]))
        out.append(cands[:k])
    return out


@pytest.mark.parametrize(("b", "k", "v", "alpha", "p_done", "first"),
                         [(3, 4, 11, 0.6, 0.3, False), (2, 1, 7, 1.0, 0.5, False),
                          (2, 5, 9, 0.0, 1.0, False), (3, 4, 6, 1.2, 0.0, True),
                          (1, 6, 40, 0.8, 0.4, False)])
def test_beam_search_step_matches_a_loop(b: int, k: int, v: int, alpha: float, p_done: float,
                                         first: bool) -> None:
    gen = torch.Generator().manual_seed(76 + k)
    beams = -torch.rand(b, k, generator=gen) * 5
    tokens = torch.log_softmax(torch.randn(b, k, v, generator=gen), dim=-1)
    lengths = torch.randint(1, 9, (b, k), generator=gen)
    finished = torch.rand(b, k, generator=gen) < p_done
    if first:
        beams, lengths, finished = beams * 0, lengths * 0, finished & False
    got = beam_search_step(beams, tokens, lengths, finished, 2, 0, alpha, first_step=first)
    want = _loop(beams, tokens, lengths, finished, 2, 0, alpha, first)
    parents, toks, logprobs, new_len, done, scores = got
    assert parents.dtype == toks.dtype == new_len.dtype == torch.int64 and done.dtype == torch.bool
    for row in range(b):
        assert parents[row].tolist() == [c[1] for c in want[row]]
        assert toks[row].tolist() == [c[2] for c in want[row]]
        assert new_len[row].tolist() == [c[4] for c in want[row]]
        assert done[row].tolist() == [c[5] for c in want[row]]
        torch.testing.assert_close(logprobs[row], torch.tensor([c[3] for c in want[row]]))
        torch.testing.assert_close(scores[row], torch.tensor([c[0] for c in want[row]]))


def test_ties_go_to_the_lower_parent_then_the_lower_token() -> None:
    tokens = torch.zeros(1, 3, 4)  # every candidate scores 0
    got = beam_search_step(torch.zeros(1, 3), tokens, torch.ones(1, 3, dtype=torch.int64),
                           torch.tensor([[False, True, False]]), 3, 2, 0.5)
    assert got[0].tolist() == [[0, 0, 0]] and got[1].tolist() == [[0, 1, 2]]
    got = beam_search_step(torch.tensor([[-1.0, 0.0, -1.0]]), tokens, torch.ones(1, 3, dtype=torch.int64),
                           torch.tensor([[False, True, False]]), 3, 2, 0.0)
    assert got[0].tolist() == [[1, 0, 0]] and got[1].tolist() == [[2, 0, 1]]  # finished: pad 2


def test_bad_shapes_and_a_short_first_vocabulary_raise() -> None:
    with pytest.raises(ValueError):
        beam_search_step(torch.zeros(2, 3), torch.zeros(2, 4, 5), torch.zeros(2, 3, dtype=torch.int64),
                         torch.zeros(2, 3, dtype=torch.bool), 1, 0, 1.0)
    with pytest.raises(ValueError):
        beam_search_step(torch.zeros(1, 4), torch.zeros(1, 4, 3), torch.zeros(1, 4, dtype=torch.int64),
                         torch.zeros(1, 4, dtype=torch.bool), 1, 0, 1.0, first_step=True)


@pytest.mark.parametrize("seed", range(6))
def test_integer_log_probs_tie_inside_and_across_the_boundary(seed: int) -> None:
    gen = torch.Generator().manual_seed(seed)
    b, k, v = 4, 3, 5
    beams = -torch.randint(0, 3, (b, k), generator=gen).float()
    tokens = -torch.randint(0, 4, (b, k, v), generator=gen).float()
    lengths = torch.full((b, k), 2)
    finished = torch.rand(b, k, generator=gen) < 0.3
    lengths[finished] = 3  # the same length as the live candidates: exact ties across them
    got = beam_search_step(beams, tokens, lengths, finished, 4, 1, 1.0)
    want = _loop(beams, tokens, lengths, finished, 4, 1, 1.0)
    for row in range(b):
        assert got[0][row].tolist() == [c[1] for c in want[row]]
        assert got[1][row].tolist() == [c[2] for c in want[row]]


def test_views_give_the_same_step() -> None:
    gen = torch.Generator().manual_seed(7)
    beams, tokens = -torch.rand(2, 3, generator=gen), torch.randn(2, 3, 10, generator=gen)
    lengths, finished = torch.randint(1, 5, (2, 3), generator=gen), torch.tensor([[False, True, False]] * 2)
    want = beam_search_step(beams, tokens, lengths, finished, 2, 0, 0.7)
    got = beam_search_step(beams.t().contiguous().t(), tokens.transpose(1, 2).contiguous().transpose(1, 2),
                           lengths, finished[:1].expand(2, 3), 2, 0, 0.7)
    for a, b in zip(want, got, strict=True):
        assert torch.equal(a, b)
