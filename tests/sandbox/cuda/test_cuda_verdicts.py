"""Submissions judged through the emulation: compile with g++ and the sanitizers, call the launch
function on tensors in the ASan child, and get the right outcome for each (AC, a race or a wrong
result for a missing barrier, an out-of-bounds RE naming kernel and index, a deadlock, a CE with
the student's line, a TLE)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import torch

from sandbox.cuda.build import CompileError, compile
from sandbox.cuda.call import CallTimeout, KernelError, call
from sandbox.cuda.program import Case, run_program
from tests.sandbox.cuda.conftest import SUBMISSIONS

Built = Callable[[str], Path]
ADD = "void solve(const float* x, const float* y, float* out, int n)"
SUM = "void solve(const float* x, float* out, int n)"


def test_it_accepts_a_grid_stride_add(built: Built) -> None:
    x, y = torch.randn(1000), torch.randn(1000)
    out = call(built("add_AC"), ADD, [x, y, torch.empty(1000), 1000])["out"]
    assert torch.equal(out, x + y)


def test_it_accepts_a_block_reduction_with_shared_memory_and_shuffles(built: Built) -> None:
    x = torch.randn(1500)
    out = call(built("reduce_AC"), SUM, {"x": x, "out": torch.zeros(1), "n": 1500})["out"]
    torch.testing.assert_close(out[0], x.sum(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("order", ["reverse", "forward", "shuffle:7"])
def test_it_reports_the_race_of_a_missing_barrier_in_any_order(
    built: Built, order: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TJ_CUDA_ORDER", order)
    with pytest.raises(KernelError) as caught:
        call(built("reduce_no_sync_WA"), SUM, [torch.randn(512), torch.zeros(1), 512])
    assert caught.value.kind == "race"
    message = str(caught.value)
    # the load (line 8) and the first sum (line 10) race: which one is reported depends on the order
    assert re.match(r"race at solution\.cu line (8|10): kernel block_sum<256>, block \(0,0,0\)",
                    message)
    assert re.search(r"partial\[\d+\]", message) and "__syncthreads()" in message


def test_it_turns_an_off_by_one_write_into_an_error_naming_kernel_buffer_and_index(
    built: Built,
) -> None:
    with pytest.raises(KernelError) as caught:
        call(built("add_off_by_one_RE"), ADD,
             [torch.randn(1024), torch.randn(1024), torch.empty(1024), 1024])
    assert caught.value.kind == "out of bounds"
    assert str(caught.value).startswith(
        "out-of-bounds write of out[1024] in kernel add (out has 1024 elements), "
        "at solution.cu line 4, block (8,0,0), thread (0,0,0)"
    )


@pytest.mark.parametrize(
    ("function", "kind", "says"),
    [
        ("solve", "deadlock",
         "threads 0-31 wait at __syncthreads() on line 8; threads 32-63 have exited"),
        ("shuffle_after_return", "deadlock",
         "threads 0-15 wait at __shfl_down_sync() on line 17; threads 16-31 have exited"),
        ("shared_past_end", "out of bounds",
         "out-of-bounds read of s[32] in kernel shift (__shared__ s has 32 elements), "
         "at solution.cu line 26, block (0,0,0), thread (31,0,0)"),
        ("too_many_threads", "bad launch", "a block holds at most 1024 threads"),
        ("prints_forever", "output limit", "printed too much and was stopped"),
        ("exits_early", "crash", "exits_early ended the process without returning"),
    ],
)
def test_it_reports_what_would_hang_or_fault_on_a_gpu(
    built: Built, function: str, kind: str, says: str
) -> None:
    with pytest.raises(KernelError) as caught:
        call(built("errors_RE"), f"void {function}(float* out)", [torch.empty(2048)])
    assert caught.value.kind == kind
    assert says in str(caught.value)


def test_it_runs_warp_collectives_dynamic_shared_memory_and_atomics(built: Built) -> None:
    x = torch.randn(64) * 2
    top = torch.zeros(1, dtype=torch.int32)
    got = call(built("warp_ops_AC"), "void solve(const float* x, float* out, int* top)",
               [x, torch.empty(64, 8), top], inout=["top"])
    out, warps = got["out"], x.view(2, 32)

    def per_warp(values: torch.Tensor) -> torch.Tensor:
        return values.reshape(2, 1).expand(2, 32).reshape(64)

    assert torch.equal(out[:, 0], per_warp(warps[:, 3]))
    torch.testing.assert_close(out[:, 1], per_warp(warps.sum(1)))
    torch.testing.assert_close(out[:, 2], warps.cumsum(1).reshape(64))
    assert torch.equal(out[:, 3], per_warp((warps > 0).sum(1).float()))
    assert torch.equal(out[:, 4], per_warp((warps > 2.5).any(1).float()))
    assert torch.equal(out[:, 5], torch.ones(64))
    assert torch.equal(out[:, 6], torch.full((64,), float((x > 0).sum())))
    assert torch.equal(out[:, 7], x.flip(0))
    assert top.item() == int((x * 1000).int().max())


def test_it_accepts_a_transpose_through_a_shared_tile(built: Built) -> None:
    x = torch.randn(70, 45)
    out = call(built("transpose_AC"), "void solve(const float* x, float* out, int rows, int cols)",
               [x, torch.empty(45, 70), 70, 45])["out"]
    assert torch.equal(out, x.T)


def test_it_shows_a_compile_error_on_the_students_own_line(tmp_path: Path) -> None:
    source = (SUBMISSIONS / "missing_semicolon_CE.cu").read_text()
    with pytest.raises(CompileError) as caught:
        compile(source, tmp_path)
    assert caught.value.lines == (4,)
    assert "solution.cu:4:35: error: expected ';' before '}' token" in str(caught.value)
    assert "if (i < n) out[i] = a * out[i]" in str(caught.value)  # the student's own line
    assert "tj_cuda" not in str(caught.value) and str(tmp_path) not in str(caught.value)


def test_it_makes_a_function_declared_but_never_defined_a_compile_error(tmp_path: Path) -> None:
    source = ("__device__ float helper(float x);\n"
              "__global__ void k(float* out) { out[0] = helper(1.0f); }\n"
              'extern "C" void solve(float* out) { k<<<1, 1>>>(out); }\n')
    with pytest.raises(CompileError) as caught:
        compile(source, tmp_path)
    assert "solution.cu:2: undefined reference to `helper(float)'" in str(caught.value)
    assert caught.value.lines == (2,)


def test_it_stops_a_kernel_that_never_ends_at_the_callers_time_limit(built: Built) -> None:
    with pytest.raises(CallTimeout) as caught:
        call(built("endless_TLE"), "void solve(const float* flag, float* out)",
             [torch.zeros(1), torch.empty(1)], timeout_s=1.5)
    assert "longer than 1.5 s" in str(caught.value)


def test_it_stops_a_compile_past_its_time_limit(tmp_path: Path) -> None:
    with pytest.raises(CompileError) as caught:
        compile((SUBMISSIONS / "add_AC.cu").read_text(), tmp_path, timeout_s=0.05)
    assert caught.value.timed_out and "longer than 0.05 s" in str(caught.value)



def test_it_orders_a_warp_at_syncwarp_and_shuffles_shared_elements_by_value(built: Built) -> None:
    out = call(built("warp_ops_AC"), "void shuffle_shared(float* out)", [torch.empty(32)])["out"]
    lanes = torch.arange(32.0)
    assert torch.equal(out, (lanes.long() ^ 1).float() + torch.where(lanes < 16, 0.0, 16.0))

def test_it_says_when_the_library_lacks_the_launch_function(built: Built) -> None:
    with pytest.raises(KernelError) as caught:
        call(built("add_AC"), "void launch(float* out)", [torch.empty(4)])
    assert caught.value.kind == "missing function"
    assert 'no function launch; define it with extern "C"' in str(caught.value)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc is not installed here")
def test_it_compiles_the_same_sources_with_nvcc_for_a_gpu(tmp_path: Path) -> None:
    lib = compile((SUBMISSIONS / "warp_ops_AC.cu").read_text(), tmp_path / "ok", mode="nvcc",
                  timeout_s=300)
    assert lib.name == "libsolution.so" and lib.stat().st_size > 0
    with pytest.raises(CompileError) as caught:
        compile((SUBMISSIONS / "missing_semicolon_CE.cu").read_text(), tmp_path / "ce",
                mode="nvcc", timeout_s=300)
    assert caught.value.lines == (5,)  # nvcc points at the brace after the missing ';'
    assert 'solution.cu(5): error: expected a ";"' in str(caught.value)


def test_it_compiles_the_emulator_itself_when_its_cache_cannot_be_written(tmp_path: Path) -> None:
    not_a_dir = tmp_path / "cache"
    not_a_dir.write_text("a file where the cache directory would go")
    lib = compile((SUBMISSIONS / "add_AC.cu").read_text(), tmp_path / "w", cache_dir=not_a_dir)
    x, y = torch.randn(300), torch.randn(300)
    assert torch.equal(call(lib, ADD, [x, y, torch.empty(300), 300])["out"], x + y)


def test_it_stops_a_compile_that_writes_a_gigantic_file(tmp_path: Path) -> None:
    source = 'static char big[50000000] = {1};\nextern "C" void solve(float* o) { o[0] = big[3]; }\n'
    with pytest.raises(CompileError) as caught:
        compile(source, tmp_path, max_file_bytes=1 << 20)
    assert str(caught.value) == ("the compiler wrote a file larger than 1048576 bytes or than the "
                                 "sandbox's disk holds (a gigantic object or binary) and was stopped")


HARNESS = r"""#include <cstdio>
#include <vector>
#include "solution.cu"

int main() {
    int n = 300;
    std::vector<float> x(n), y(n), want(n);
    for (int i = 0; i < n; ++i) x[i] = i, y[i] = 2 * i, want[i] = 3 * i;
    float *dx, *dy, *dout;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMalloc(&dout, n * sizeof(float));
    cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    solve(dx, dy, dout, n);
    std::vector<float> got(n);
    cudaMemcpy(got.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost);
    std::printf(got == want ? "CASE add PASS\n" : "CASE add FAIL wrong sums\n");
    solve(dx, dy, dout, n + 1);  // one past the buffers: ASan stops the program here
    std::printf("CASE past_the_end PASS\n");
}
"""


def test_it_runs_a_harness_program_and_reads_its_cases_until_a_report_stops_it(
    tmp_path: Path,
) -> None:
    exe = compile(HARNESS, tmp_path, filename="test.cu", program=True,
                  extra_sources={"solution.cu": (SUBMISSIONS / "add_AC.cu").read_text()})
    run = run_program(exe, timeout_s=30)
    assert run.cases == (Case("add", "PASS", ""),)
    assert run.error is not None and run.error.kind == "out of bounds"
    assert "in kernel add" in str(run.error) and "at solution.cu line 7" in str(run.error)
    assert not run.passed
