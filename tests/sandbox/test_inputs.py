"""Benchmark inputs (sandbox/runner/inputs.py): large normal tensors are mixed from a fixed pool, fresh
per seed, the same in the grader and the runner, and may be written into the last call's
tensors (the runner's recycling) without changing a value."""

from __future__ import annotations

import torch

from sandbox.runner import inputs

SPECS = [
    {"randint": [0, 8000], "shape": [4, 256]},
    {"randn": [1024, 256], "dtype": "float32", "scale": 0.5},
    {"randn": [300, 300], "dtype": "bfloat16"},
    {"randn": [8, 8]},
    0,
]


def test_the_same_seed_builds_the_same_values_and_another_seed_others() -> None:
    a, b, c = (inputs.build_inputs(SPECS, seed) for seed in (7, 7, 8))
    for x, y, z in zip(a[:4], b[:4], c[:4], strict=True):
        assert torch.equal(x, y)
        assert not torch.equal(x, z)
    assert a[1].shape == (1024, 256) and a[2].dtype == torch.bfloat16 and a[4] == 0


def test_a_mixed_tensor_is_standard_normal_and_unrelated_to_another_draw() -> None:
    gen = torch.Generator().manual_seed(1)
    x = inputs.mixed_normal(1 << 20, gen)
    y = inputs.mixed_normal(1 << 20, gen)
    assert abs(float(x.mean())) < 0.01 and abs(float(x.std()) - 1.0) < 0.01
    assert abs(float((x * y).mean())) < 0.01  # not a scaled copy of the other draw
    assert float((x - y).abs().mean()) > 0.5
    scaled = inputs.build_inputs([{"randn": [512, 256], "scale": 0.05}], 3)[0]
    assert abs(float(scaled.std()) - 0.05) < 0.002


def test_reuse_writes_into_the_old_tensors_with_the_same_values() -> None:
    first = inputs.build_inputs(SPECS, 1)
    fresh = inputs.build_inputs(SPECS, 2)
    reused = inputs.build_inputs(SPECS, 2, reuse=first)
    assert reused[1].data_ptr() == first[1].data_ptr()  # the large float32 one, recycled
    for x, y in zip(fresh[:4], reused[:4], strict=True):
        assert torch.equal(x, y)


def test_unfit_old_tensors_are_left_alone() -> None:
    spec = [{"randn": [1024, 256]}]
    for old in (
        torch.zeros(256, 1024).t(),  # not contiguous
        torch.zeros(1024, 256, dtype=torch.float64),
        torch.zeros(1024, 255),
        torch.zeros(1024, 256, requires_grad=True),
        torch.zeros(2048, 256)[1024:],  # a view into another tensor's storage
    ):
        kept = old.detach().clone()
        got = inputs.build_inputs(spec, 5, reuse=[old])[0]
        assert got.data_ptr() != old.data_ptr()
        assert torch.equal(old.detach(), kept)
        assert torch.equal(got, inputs.build_inputs(spec, 5)[0])
