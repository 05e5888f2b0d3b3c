"""The CUDA C++ chapter (problems/081..088, language = "cuda"): what the catalog's package check
(tests/catalog/test_catalog_check.py, which judges every .cu file of each package through the
judge) does not already prove: the chapter holds at least eight packages, each in the chapter,
timed against kernels.cuda_chapter on GPU shapes only (a CPU checks correctness only), with a
missing-barrier or wrong-bound WA, an out-of-bounds RE and a slow AC among its tagged files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.grader.package import ProblemPackage, load_package

ROOT = Path(__file__).resolve().parents[3]
CHAPTER = [load_package(toml.parent) for toml in sorted((ROOT / "problems").glob("*/problem.toml"))
           if 'language = "cuda"' in toml.read_text()]


def test_the_chapter_has_eight_problems() -> None:
    assert len(CHAPTER) >= 8, [p.folder_name for p in CHAPTER]


@pytest.mark.parametrize("package", CHAPTER, ids=[p.folder_name for p in CHAPTER])
def test_each_package_is_a_cuda_problem_of_the_chapter(package: ProblemPackage) -> None:
    assert (package.language, package.chapter) == ("cuda", "CUDA C++ kernels")
    assert package.benchmark is not None
    assert package.benchmark.baseline.startswith("kernels.cuda_chapter:")
    assert package.benchmark.shapes and all(s.device == "gpu" for s in package.benchmark.shapes)
    tagged = [(verdict, file.name) for verdict, file in package.solutions()]
    assert {"AC", "WA", "RE"} <= {v for v, _ in tagged}, tagged
    assert any(v == "AC" and name.startswith("slow") for v, name in tagged), tagged
