"""kernels.moe_parallel (problem 75) against plain loops."""

from __future__ import annotations

import pytest
import torch

from kernels.moe_parallel import a2a_counts, a2a_offsets, send_order


def _routing(gen: torch.Generator, t: int, k: int, e: int) -> torch.Tensor:
    if t == 0:
        return torch.zeros(0, k, dtype=torch.int64)
    return torch.stack([torch.randperm(e, generator=gen)[:k] for _ in range(t)])


@pytest.mark.parametrize(("ranks", "experts", "k"), [(1, 4, 2), (4, 16, 2), (8, 32, 4), (3, 3, 1)])
def test_counts_and_offsets_match_loops(ranks: int, experts: int, k: int) -> None:
    gen = torch.Generator().manual_seed(75 + ranks)
    sizes = torch.randint(0, 30, (ranks,), generator=gen).tolist()
    sizes[0] = 0  # a rank without tokens
    choices = [_routing(gen, n, k, experts) for n in sizes]
    counts = a2a_counts(choices, experts)
    per_rank = experts // ranks
    want = [[0] * ranks for _ in range(ranks)]
    for s, c in enumerate(choices):
        for e in c.reshape(-1).tolist():
            want[s][e // per_rank] += 1
    assert counts.dtype == torch.int64 and counts.tolist() == want
    send_off, recv, recv_off = a2a_offsets(counts)
    for s in range(ranks):
        for d in range(ranks):
            assert int(send_off[s, d]) == sum(want[s][:d])
            assert int(recv[d, s]) == want[s][d]
            assert int(recv_off[d, s]) == sum(want[x][d] for x in range(s))


def test_offsets_are_exact_beyond_int32() -> None:
    counts = torch.full((3, 3), 2**31 - 1, dtype=torch.int64)
    send_off, _, recv_off = a2a_offsets(counts)
    assert int(send_off[0, 2]) == 2 * (2**31 - 1) and int(recv_off[1, 2]) == 2 * (2**31 - 1)


@pytest.mark.parametrize(("t", "k", "e", "r"), [(0, 2, 8, 4), (1, 3, 6, 3), (40, 2, 4, 2), (25, 4, 16, 4)])
def test_send_order_is_the_stable_rank_then_expert_order_and_position_its_inverse(
    t: int, k: int, e: int, r: int
) -> None:
    gen = torch.Generator().manual_seed(750 + t)
    choices = _routing(gen, t, k, e)
    order, position = send_order(choices, e, r)
    flat = choices.reshape(-1).tolist()
    want = sorted(range(t * k), key=lambda a: (flat[a] // (e // r), flat[a], a))
    assert order.tolist() == want
    assert position.shape == (t, k)
    for i, a in enumerate(want):
        assert int(position.reshape(-1)[a]) == i
    if t:  # the send buffer's rows for each expert are consecutive
        x = torch.arange(t)
        sent = choices.reshape(-1)[order]
        assert bool((sent[1:] >= sent[:-1]).all())
        assert torch.equal(x[order // k], torch.tensor([a // k for a in want]))


@pytest.mark.parametrize(
    "bad",
    [
        lambda: a2a_counts([torch.tensor([[0, 8]])], 8),
        lambda: a2a_counts([torch.tensor([[0, 1]])] * 4, 6),
        lambda: a2a_counts([torch.tensor([[0, 1]], dtype=torch.int32)], 4),
        lambda: a2a_offsets(torch.zeros(2, 3, dtype=torch.int64)),
        lambda: a2a_offsets(torch.tensor([[0, -1], [0, 0]])),
        lambda: send_order(torch.tensor([[0, -1]]), 4, 2),
        lambda: send_order(torch.tensor([[0, 1]]), 6, 4),
    ],
)
def test_bad_inputs_raise_value_error(bad) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ValueError):
        bad()
