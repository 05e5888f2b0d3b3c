"""The pieces of the CUDA emulation that need no compiler: the source rewrite, the launch
signature and the reading of sanitizer reports."""

from __future__ import annotations

from typing import Any

import pytest
import torch

from sandbox.cuda.call import SignatureError, call, parse_signature
from sandbox.cuda.reports import diagnose
from sandbox.cuda.translate import TranslateError, translate

SOURCE = """// a comment with <<<x>>> and __shared__ float no[1];
template <int B>
__global__ void k(const float* x, float* y, int n) {
    __shared__ float tile[B][B + 1], row[B];
    extern __shared__ __align__(16) unsigned char dyn[];
    __shared__ unsigned int total;
    printf("<<<not a launch>>>");
    int x = 0;
    // the scratch row of this block
    __shared__ float
        scratch[B];
}
void solve(const float* x, float* y, int n) {
    k<32><<<(n + 255) / 256,
             256, 0>>>(x, y,
                       n);
}
"""


def test_it_keeps_every_line_where_the_student_wrote_it() -> None:
    out = translate(SOURCE)
    assert out.count("\n") == SOURCE.count("\n")
    lines = out.splitlines()
    assert lines[0] == SOURCE.splitlines()[0]  # comments are never rewritten
    assert "::tj::View<float, 2> tile = ::tj::shared_view<float, 2>(tj_site_tile)" in lines[3]
    assert "{B, B + 1}" in lines[3] and "::tj::View<float, 1> row" in lines[3]
    assert 'Site tj_site_dyn("dyn", sizeof(unsigned char), {0}, true)' in lines[4]
    assert "auto&& total = ::tj::shared_scalar<unsigned int>(tj_site_total)" in lines[5]
    assert lines[6] == '    printf("<<<not a launch>>>");'
    assert lines[8] == "    // the scratch row of this block"
    assert lines[9].startswith('    static ::tj::Site tj_site_scratch("scratch", sizeof(float), {B});')
    assert lines[10] == ""  # the declaration's second line, kept as a line
    assert lines[13] == '    ::tj::launcher(k<32>, "k<32>",(n + 255) / 256,'
    assert lines[14].strip() == "256, 0)(x, y,"


@pytest.mark.parametrize(
    ("source", "line", "says"),
    [
        ("void f() {\n  k<<<1, 2(x);\n}\n", 2, "closing `>>>`"),
        ("void f() {\n\n  k<<<1, 2>>>;\n}\n", 3, "arguments in (...)"),
        ("__global__ void k() {\n  __shared__ float s[4] = {0};\n}\n", 2, "initializer"),
        ("__global__ void k() {\n  extern __shared__ float s[8];\n}\n", 2, "one empty dimension"),
        ('__global__ void k(int* o) {\n\n  asm("mov.u32 %0, %%laneid;" : "=r"(o[0]));\n}\n', 3,
         "inline assembly (asm) is PTX"),
    ],
)
def test_it_refuses_what_it_cannot_rewrite_naming_the_line(source: str, line: int,
                                                            says: str) -> None:
    with pytest.raises(TranslateError) as caught:
        translate(source)
    assert caught.value.line == line and says in str(caught.value)


def test_it_reads_a_launch_signature() -> None:
    sig = parse_signature('extern "C" void solve(const float* __restrict__ x, float *y, int n);')
    assert sig.function == "solve"
    assert [(p.name, p.ctype, p.pointer, p.const) for p in sig.params] == [
        ("x", "float", True, True), ("y", "float", True, False), ("n", "int", False, False)]
    assert sig.outputs == ("y",)


@pytest.mark.parametrize(
    ("signature", "says"),
    [
        ("int solve(float* x)", "a launch signature looks like"),
        ("void solve(float** x)", "cannot read the parameter"),
        ("void solve(std::string s)", "has type 'std::string'"),
        ("void solve(half h)", "can only be passed by pointer"),
        ("void solve(int n, float n)", "two parameters are named n"),
    ],
)
def test_it_refuses_a_signature_it_cannot_call(signature: str, says: str) -> None:
    with pytest.raises(SignatureError) as caught:
        parse_signature(signature)
    assert says in str(caught.value)


@pytest.mark.parametrize(
    ("args", "says"),
    [
        ([torch.zeros(4), 4], "takes 3 arguments, got 2"),
        ([torch.zeros(4, dtype=torch.float64), torch.zeros(4), 4], "must be torch.float32"),
        ([torch.zeros(4, 4).t(), torch.zeros(4), 4], "must be a contiguous tensor"),
        ([torch.zeros(4), torch.zeros(4), 4.0], "pass an int, not a float"),
        ([torch.zeros(4), torch.zeros(4), 2**31], "does not fit in int"),
        ([[1.0], torch.zeros(4), 4], "pass a tensor, not list"),
        ({"x": torch.zeros(4), "y": torch.zeros(4)}, "missing ['n']"),
    ],
)
def test_it_refuses_arguments_that_do_not_match_the_signature(args: Any, says: str) -> None:
    with pytest.raises(SignatureError) as caught:
        call("/nonexistent.so", "void solve(const float* x, float* y, int n)", args)
    assert says in str(caught.value)


ASAN_REPORT = """TJ-CUDA-BUFFER x 0x602000000010 16 4
TJ-CUDA-BUFFER y 0x602000000030 16 4
==1==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000028 at pc 0x1 bp 0x2 sp 0x3
READ of size 4 at 0x602000000028 thread T0
    #0 0x7f00 in scale(float const*, float*, int) /tmp/w/solution.cu:7
    #1 0x7f01 in tj::fiber_main() tj_cuda.h:182
0x602000000028 is located 8 bytes to the right of 16-byte region [0x602000000010,0x602000000020)
TJ-CUDA-CONTEXT kernel=scale block=(1,0,0) thread=(2,0,0)
"""


def test_it_turns_an_asan_report_into_buffer_index_kernel_and_line() -> None:
    error = diagnose(ASAN_REPORT, 1)
    assert error.kind == "out of bounds"
    assert str(error) == ("out-of-bounds read of x[6] in kernel scale (x has 4 elements), at "
                          "solution.cu line 7, block (1,0,0), thread (2,0,0)")


def test_it_reads_undefined_behaviour_and_its_own_reports() -> None:
    ub = diagnose("solution.cu:9:14: runtime error: signed integer overflow: 2147483647 + 1\n"
                  "TJ-CUDA-CONTEXT kernel=k block=(0,0,0) thread=(1,0,0)\n", 1)
    assert ub.kind == "undefined behaviour"
    assert str(ub).startswith("undefined behaviour in kernel k at solution.cu line 9: signed")
    own = diagnose("noise\nTJ-CUDA race: kernel k, block (0,0,0): thread 1 reads s[2]\n", 86)
    assert own.kind == "race" and str(own) == "race: kernel k, block (0,0,0): thread 1 reads s[2]"
