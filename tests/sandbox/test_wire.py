"""The wire codec, benchmark input specs and execute_call: no sandbox involved."""

from __future__ import annotations

import math

import pytest
import torch

from sandbox.runner import calls, digests, framing, wire, wire_decode
from sandbox.runner import inputs as bench_inputs

DTYPES = list(wire.DTYPES.values())


def roundtrip(value: object, keep_class: bool = False) -> object:
    tree, blob = wire.encode(value)
    frame = framing.encode_frame({"v": tree}, blob)
    message, data = framing.decode_frame(frame)
    return wire_decode.decode(message["v"], data, keep_class=keep_class)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_it_round_trips_tensors_of_every_dtype_bit_for_bit(dtype: torch.dtype) -> None:
    base = torch.randn(3, 5, generator=torch.Generator().manual_seed(1)) * 10
    tensor = base.to(dtype) if dtype != torch.bool else base > 0
    back = roundtrip(tensor)
    assert isinstance(back, torch.Tensor)
    assert back.dtype == dtype and back.shape == (3, 5)
    assert torch.equal(
        back.view(-1).view(torch.uint8), tensor.contiguous().view(-1).view(torch.uint8)
    )


def test_it_round_trips_views_scalars_and_empty_tensors() -> None:
    big = torch.arange(24, dtype=torch.float32).reshape(4, 6)
    values = [
        big[:, 1::2],
        big.t(),
        torch.tensor(3.5),
        torch.empty(0, 7),
        torch.zeros(2, 0, dtype=torch.int64),
    ]
    for value, back in zip(values, roundtrip(values), strict=True):  # type: ignore[call-overload]
        assert back.shape == value.shape and torch.equal(back, value)


def test_it_keeps_nested_structure_and_python_types() -> None:
    value = {
        "a": (1, 2.5, "x", None, True),
        "b": [[torch.ones(2)], ()],
        "big": 2**80,
        "nan": math.nan,
        "inf": -math.inf,
    }
    back = roundtrip(value)
    assert isinstance(back, dict)
    assert back["a"] == (1, 2.5, "x", None, True) and type(back["a"]) is tuple
    assert type(back["b"]) is list and type(back["b"][1]) is tuple
    assert back["big"] == 2**80
    assert math.isnan(back["nan"]) and back["inf"] == -math.inf


def test_it_reports_the_exact_class_of_a_tensor_subclass() -> None:
    class Sneaky(torch.Tensor):
        pass

    back = roundtrip(torch.ones(2).as_subclass(Sneaky), keep_class=True)
    assert isinstance(back, wire.WireTensor)
    assert back.cls.endswith("Sneaky") and torch.equal(back.tensor, torch.ones(2))


def test_it_marks_unsupported_values_instead_of_failing() -> None:
    back = roundtrip([object(), {1: 2}])
    assert isinstance(back, list)
    assert all(isinstance(v, wire.Unsupported) for v in back)


@pytest.mark.parametrize(
    "tree",
    [
        {
            "t": "tensor",
            "cls": "torch.Tensor",
            "dtype": "float32",
            "shape": [4],
            "offset": 0,
            "nbytes": 16,
        },
        {
            "t": "tensor",
            "cls": "torch.Tensor",
            "dtype": "float32",
            "shape": [1],
            "offset": -4,
            "nbytes": 4,
        },
        {
            "t": "tensor",
            "cls": "torch.Tensor",
            "dtype": "object",
            "shape": [1],
            "offset": 0,
            "nbytes": 4,
        },
        {
            "t": "tensor",
            "cls": "torch.Tensor",
            "dtype": "float32",
            "shape": [-1],
            "offset": 0,
            "nbytes": 4,
        },
        {"t": "pickle", "v": "gASV"},
        {"t": "float", "v": 1.5},
        "not a node",
    ],
)
def test_it_rejects_malformed_values(tree: object) -> None:
    with pytest.raises(wire.WireError):
        wire_decode.decode(tree, b"\0" * 8)


def test_it_rejects_absurd_nesting() -> None:
    tree: dict[str, object] = {"t": "none"}
    for _ in range(200):
        tree = {"t": "list", "v": [tree]}
    with pytest.raises(wire.WireError):
        wire_decode.decode(tree, b"")


def test_build_inputs_is_deterministic_in_the_seed() -> None:
    specs = [
        {"randint": [0, 10], "shape": [3, 4]},
        {"randn": [5], "dtype": "bfloat16", "scale": 2.0},
        {"lengths_mask": [6, 7], "side": "left"},
        7,
        "text",
    ]
    a, b, c = bench_inputs.build_inputs(specs, 1), bench_inputs.build_inputs(specs, 1), bench_inputs.build_inputs(specs, 2)
    assert all(torch.equal(x, y) for x, y in zip(a[:3], b[:3], strict=True))
    assert not torch.equal(a[0], c[0])
    assert a[0].dtype == torch.int64 and int(a[0].max()) < 10
    assert a[1].dtype == torch.bfloat16
    assert a[3:] == [7, "text"]


@pytest.mark.parametrize("side", ["right", "left"])
def test_lengths_mask_has_one_true_per_row_on_the_right_side(side: str) -> None:
    (mask,) = bench_inputs.build_inputs([{"lengths_mask": [64, 5], "side": side}], 3)
    assert mask.dtype == torch.bool and mask.shape == (64, 5)
    assert bool(mask.any(dim=1).all())
    kept = mask[:, 0] if side == "right" else mask[:, -1]
    assert bool(kept.all())


def test_new_input_kinds_plug_into_the_registry() -> None:
    @bench_inputs.input_kind("ones_for_test")
    def _ones(spec: dict[str, object], gen: torch.Generator) -> torch.Tensor:
        return torch.ones(spec["ones_for_test"])  # type: ignore[arg-type]

    try:
        assert torch.equal(bench_inputs.build_inputs([{"ones_for_test": [2]}], 0)[0], torch.ones(2))
    finally:
        del bench_inputs.INPUT_KINDS["ones_for_test"]


def test_execute_call_observes_a_return_without_touching_the_callers_inputs() -> None:
    x = torch.ones(3)
    obs = calls.execute_call(lambda t: t.mul_(2), [x], {})
    assert obs["kind"] == "return"
    assert obs["inputs_modified"] == ["args[0]"]
    assert torch.equal(x, torch.ones(3)), "the caller's tensor must be untouched"


def test_execute_call_observes_an_exception_with_the_submissions_frames_only() -> None:
    def inner() -> None:
        raise KeyError("missing")

    obs = calls.execute_call(lambda: inner(), [], {}, filename=__file__)
    assert obs["kind"] == "raise" and obs["type"] == "KeyError"
    assert "LookupError" in obs["mro"]
    assert 'File "submission.py"' in obs["traceback"] and "wire.py" not in obs["traceback"]


def test_execute_call_backpropagates_a_seeded_grad_output() -> None:
    x = torch.randn(4, generator=torch.Generator().manual_seed(0))
    first = calls.execute_call(lambda t: t * 3, [x], {}, grad_wrt=[0], grad_seed=5)
    again = calls.execute_call(lambda t: t * 3, [x], {}, grad_wrt=[0], grad_seed=5)
    other = calls.execute_call(lambda t: t * 3, [x], {}, grad_wrt=[0], grad_seed=6)
    assert torch.equal(first["grads"][0], again["grads"][0])
    assert not torch.equal(first["grads"][0], other["grads"][0])
    assert first["inputs_modified"] == [] and not first["value"].requires_grad


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16, torch.complex64])
def test_the_gradients_are_exactly_those_of_backward_with_the_seeded_grad_output(
    dtype: torch.dtype,
) -> None:
    """execute_call backpropagates sum(result * grad_output) for real results (no sympy import
    on a sandbox's first backward): the same gradients, bit for bit, as result.backward."""
    gen = torch.Generator().manual_seed(1)
    a = torch.randn(5, 7, generator=gen).to(dtype)
    b = torch.randn(7, 3, generator=gen).to(dtype)

    def fn(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return torch.tanh(x @ y) * 3 if not dtype.is_complex else (x @ y) * 3

    obs = calls.execute_call(fn, [a, b], {}, grad_wrt=[0, 1], grad_seed=11)
    x, y = a.clone().requires_grad_(True), b.clone().requires_grad_(True)
    result = fn(x, y)
    grad_out = torch.randn(tuple(result.shape), generator=torch.Generator().manual_seed(11))
    result.backward(grad_out.to(dtype=result.dtype))
    assert torch.equal(obs["grads"][0], x.grad) and torch.equal(obs["grads"][1], y.grad)


def test_a_backward_through_execute_call_imports_no_sympy() -> None:
    """The runner's warm-up makes a backward before every sandbox's hello: sympy (what an
    explicit gradient's shape check imports) would add 0.3-0.4 CPU-s to each start."""
    import subprocess
    import sys

    code = (
        "import sys, torch\n"
        "from sandbox.runner import calls\n"
        "x = torch.randn(8)\n"
        "obs = calls.execute_call(lambda a, b: 1.5 * a + b, [x, x], {}, grad_wrt=[0, 1])\n"
        "assert obs['grads'][0] is not None\n"
        "print('sympy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False", out.stderr


def test_cu_seqlens_are_offsets_of_non_empty_packed_sequences() -> None:
    (offsets,) = bench_inputs.build_inputs([{"cu_seqlens": [32, 2048]}], 4)
    assert offsets.dtype == torch.int64 and offsets.shape == (33,)
    assert int(offsets[0]) == 0 and int(offsets[-1]) == 2048
    assert bool((offsets[1:] > offsets[:-1]).all())
    with pytest.raises(ValueError):
        bench_inputs.build_inputs([{"cu_seqlens": [5, 3]}], 0)


def test_a_digest_matches_the_fetched_frame_and_nothing_else() -> None:
    key = "0f" * 16
    values: list[object] = [
        torch.randn(4, 8, 16),
        torch.randn(3, 4).T,  # not contiguous
        torch.ones(3).expand(4, 3),  # zero stride
        (torch.arange(10)[::2], {"a": torch.tensor(1.5, dtype=torch.bfloat16), "b": [1, 2.0]}),
        torch.zeros(0, 3),
    ]
    for value in values:
        message, blob = framing.decode_frame(wire.frame({"ok": True}, value=value))
        assert digests.digest_encoded(message["value"], blob, key) == digests.digest(value, key)
    out = torch.zeros(2, 3)
    before = digests.digest(out, key)
    out[1, 2] = 1.0  # finished after the digest was taken
    assert digests.digest(out, key) != before
    assert digests.digest(out, "1f" * 16) != digests.digest(out, key)
    with pytest.raises(wire.WireError):
        digests.digest(out, "not hex")


def test_the_late_argument_is_the_smallest_tensor_and_is_drawn_from_its_own_seed() -> None:
    specs: list[object] = [
        {"randint": [0, 100], "shape": [4, 8]},
        {"randn": [100, 16]},
        0,
    ]
    inputs = bench_inputs.build_inputs(specs, 7)
    assert bench_inputs.late_index(specs, inputs) == 0
    late = bench_inputs.late_input(specs, inputs, 99)
    assert late[1] is inputs[1] and late[2] == 0
    assert late[0].shape == inputs[0].shape and not torch.equal(late[0], inputs[0])
    assert torch.equal(bench_inputs.late_input(specs, bench_inputs.build_inputs(specs, 7), 99)[0], late[0])
    assert int(late[0].min()) >= 0 and int(late[0].max()) < 100
    assert bench_inputs.late_index([1, 2.0], [1, 2.0]) is None


def test_a_spec_marked_late_is_drawn_late_even_when_it_is_not_the_smallest() -> None:
    specs: list[object] = [
        {"randint": [0, 100], "shape": [4, 8]},
        {"randn": [100, 16], "late": True},
    ]
    inputs = bench_inputs.build_inputs(specs, 7)
    assert bench_inputs.late_index(specs, inputs) == 1
    late = bench_inputs.late_input(specs, inputs, 99)
    assert late[0] is inputs[0] and not torch.equal(late[1], inputs[1])


@pytest.mark.parametrize(
    "tree",
    [
        {"t": "dtype", "v": ["float32"]},
        {"t": "dtype", "v": {"a": 1}},
        {"t": "tensor", "dtype": ["float32"], "shape": [1], "offset": 0, "nbytes": 4, "cls": "x"},
        {"t": "list", "v": [{"t": "int", "v": "1" * 5000}]},
        {"t": "tensor", "dtype": "float32", "shape": [2**70, 0], "offset": 0, "nbytes": 0,
         "cls": "torch.Tensor"},
    ],
)
def test_a_hostile_tree_only_ever_raises_wire_error(tree: object) -> None:
    try:
        wire_decode.decode(tree, b"\0" * 8, keep_class=True)
    except wire.WireError:
        pass


def test_tensors_may_not_share_blob_bytes() -> None:
    """One region claimed by many nodes would decode to many times the frame's size."""
    node = {"t": "tensor", "cls": "torch.Tensor", "dtype": "uint8", "shape": [8], "offset": 0,
            "nbytes": 8}
    with pytest.raises(wire.WireError):
        wire_decode.decode({"t": "list", "v": [node, node]}, bytes(8))
    second = {**node, "offset": 8}
    assert len(wire_decode.decode({"t": "list", "v": [node, second]}, bytes(16))) == 2
    tree, blob = wire.encode([torch.ones(3), {"a": torch.zeros(2, 2)}, (torch.arange(4),)])
    assert len(wire_decode.decode(tree, blob)) == 3


# ---------------------------------------------------------------- strided views


def _strided_views() -> dict[str, torch.Tensor]:
    base = torch.arange(60, dtype=torch.float32).reshape(5, 12)
    return {
        "transposed": base.t(),
        "sliced": base[:, 1::2],
        "offset_rows": base[2:],
        "offset_corner": base[1:, 3:],
        "expanded": torch.arange(4)[None].expand(6, 4),
        "expanded_middle": torch.ones(3, 1, 2).expand(3, 5, 2),
        "element_of_vector": base[2, 7],
        "column_major_3d": torch.randn(2, 3, 4).permute(2, 0, 1),
    }


@pytest.mark.parametrize("name", list(_strided_views()))
def test_it_carries_a_views_strides_and_storage_offset(name: str) -> None:
    view = _strided_views()[name]
    back = roundtrip(view)
    assert isinstance(back, torch.Tensor)
    assert torch.equal(back, view)
    assert back.stride() == view.stride() and back.storage_offset() == view.storage_offset()


def test_a_row_out_of_a_large_matrix_travels_as_the_row() -> None:
    big = torch.zeros(1000, 1000)
    tree, blob = wire.encode(big[:, 3])
    assert len(blob) == 1000 * 4 and "strides" not in tree
    back = roundtrip(big[:, 3])
    assert isinstance(back, torch.Tensor) and back.is_contiguous()


def test_contiguous_tensors_keep_their_old_descriptor() -> None:
    tree, _ = wire.encode(torch.ones(2, 3))
    assert "strides" not in tree and "storage_offset" not in tree


def test_a_strided_digest_matches_its_encoding() -> None:
    value = [_strided_views()["sliced"], _strided_views()["expanded"]]
    key = "ab" * 16
    tree, blob = wire.encode(value)
    assert digests.digest(value, key) == digests.digest_encoded(tree, blob, key)


def test_an_expanded_view_too_large_to_expand_travels_contiguous() -> None:
    wide = torch.zeros(1, dtype=torch.uint8).expand(wire.MAX_EXPANSION_BYTES + 2)
    tree, blob = wire.encode([torch.zeros(1, dtype=torch.uint8).expand(10), wide])
    assert "strides" in tree["v"][0] and "strides" not in tree["v"][1]
    assert len(blob) == 1 + wire.MAX_EXPANSION_BYTES + 2


def _node(**changes: object) -> dict[str, object]:
    node: dict[str, object] = {
        "t": "tensor", "cls": "torch.Tensor", "dtype": "float32", "shape": [3, 4],
        "offset": 0, "nbytes": 48, "strides": [1, 3], "storage_offset": 0,
    }
    node.update(changes)
    return node


def test_a_well_formed_strided_node_decodes_as_that_view() -> None:
    blob = torch.arange(12, dtype=torch.float32).numpy().tobytes()
    back = wire_decode.decode(_node(), blob)
    assert isinstance(back, torch.Tensor) and back.stride() == (1, 3)
    assert torch.equal(back, torch.arange(12.0).reshape(4, 3).t())


@pytest.mark.parametrize(
    "changes",
    [
        {"strides": [1, 4]},  # reaches element 15 of a 12-element region
        {"strides": [5, 1]},  # the same, row-major
        {"strides": [1, 3], "storage_offset": 1},  # shifted past the end
        {"strides": [1, 2]},  # spans 10 elements, the node has 12: not its own bytes
        {"strides": [-1, 3]},
        {"strides": [1, 2**62]},
        {"strides": [1.0, 3]},
        {"strides": [True, 3]},
        {"strides": [1]},
        {"strides": [1, 3, 1]},
        {"strides": "1,3"},
        {"strides": [1, 3], "storage_offset": -1},
        {"strides": [1, 3], "storage_offset": 2**60},
        {"strides": [1, 3], "storage_offset": None},
        {"storage_offset": 0, "strides": None},
        {"shape": [0, 4], "nbytes": 0},
        {"shape": [2**40, 2**40], "strides": [0, 0], "nbytes": 4},
        {"nbytes": 2**60},
        {"offset": -4},
    ],
)
def test_a_hostile_stride_never_reads_outside_its_bytes(changes: dict[str, object]) -> None:
    blob = bytes(48 + 4)  # one spare element after the node's 48 bytes
    with pytest.raises(wire.WireError):
        wire_decode.decode(_node(**changes), blob)


def test_stride_zero_views_may_not_expand_a_blob_without_bound() -> None:
    limit = wire.MAX_EXPANSION_BYTES
    one = {"t": "tensor", "cls": "torch.Tensor", "dtype": "uint8", "shape": [limit // 2 + 2],
           "offset": 0, "nbytes": 1, "strides": [0], "storage_offset": 0}
    back = wire_decode.decode(one, b"\x07")
    assert isinstance(back, torch.Tensor) and back.shape == (limit // 2 + 2,)
    two = {"t": "list", "v": [one, {**one, "offset": 1}]}
    with pytest.raises(wire.WireError):
        wire_decode.decode(two, b"\x07\x07")


def test_execute_call_hands_the_function_the_views_layout() -> None:
    seen: list[tuple[tuple[int, ...], int]] = []

    def fn(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        seen.append((x.stride(), x.storage_offset()))
        seen.append((y.stride(), y.storage_offset()))
        return x.sum() + y.sum()

    views = _strided_views()
    obs = calls.execute_call(fn, [views["sliced"], views["expanded"]], {})
    assert obs["kind"] == "return" and obs["inputs_modified"] == []
    assert seen == [((12, 2), 1), ((0, 1), 0)]


def test_execute_call_takes_gradients_through_a_transposed_input() -> None:
    x = torch.randn(3, 4, generator=torch.Generator().manual_seed(0)).t()
    obs = calls.execute_call(lambda t: t * 2.0, [x], {}, grad_wrt=[0], grad_seed=3)
    assert obs["kind"] == "return" and obs["grads"][0].shape == (4, 3)


def test_execute_call_still_sees_in_place_writes_into_a_view() -> None:
    def fn(x: torch.Tensor) -> torch.Tensor:
        x[0, 0] = 99.0
        return x

    obs = calls.execute_call(fn, [_strided_views()["sliced"]], {})
    assert obs["inputs_modified"] == ["args[0]"]


@pytest.mark.parametrize("layout", ["transposed", "strided"])
def test_a_layout_keeps_the_values_of_the_plain_input(layout: str) -> None:
    spec = {"randn": [6, 5], "dtype": "float32"}
    plain = bench_inputs.build_inputs([spec], 7)[0]
    view = bench_inputs.build_inputs([{**spec, "layout": layout}], 7)[0]
    assert torch.equal(plain, view) and not view.is_contiguous()


def test_an_expanded_layout_repeats_the_first_slice() -> None:
    view = bench_inputs.build_inputs([{"randint": [0, 9], "shape": [4, 3], "layout": "expanded"}], 1)[0]
    assert view.stride() == (0, 1) and torch.equal(view, view[:1].expand(4, 3))
    tree, blob = wire.encode(view)
    assert len(blob) == 3 * 8 and tree["strides"] == [0, 1]


@pytest.mark.parametrize(
    "spec",
    [
        {"randn": [4, 4], "layout": "diagonal"},
        {"randn": [4], "layout": "transposed"},
        {"randn": [0, 4], "layout": "expanded"},
    ],
)
def test_a_bad_layout_is_refused(spec: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        bench_inputs.build_inputs([spec], 0)
