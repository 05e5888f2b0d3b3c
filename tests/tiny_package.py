"""A tiny problem package (number 901, ``double(x) = 2 * x``) written on the fly, in two
versions: v1's tests stop at 8 elements, v2 adds a hidden case of 1000 (and a tagged wrong
solution that v1 would let through), so a solution that only handles small inputs is AC under
v1 and WA under v2."""

from __future__ import annotations

from pathlib import Path

from judge_site.catalog.services import problem_export_zip

NUMBER = 901
FOLDER = "901-tiny-double"

PROBLEM_TOML = """number = 901
slug = "tiny-double"
title = "Tiny: double it"
difficulty = "easy"
chapter = "Staff tests"
tags = ["test-only"]
device = "cpu"
functions = ["double"]

[limits]
time_s = 5
memory_mib = 512
output_kib = 64
"""

STATEMENT = """# Double it

Write `double(x)` returning $2x$ with the dtype and shape of `x`.

Example `small`: four floats.
"""

TESTS_V1 = '''import torch

from sandbox.problem import Call, Case

CASES = [
    Case("small", "double", lambda g: Call((torch.randn(4, generator=g),)), public=True,
         note="four floats"),
    Case("medium", "double", lambda g: Call((torch.randn(8, generator=g),))),
]
'''

TESTS_V2 = TESTS_V1.replace(
    "]\n",
    '    Case("large", "double", lambda g: Call((torch.randn(1000, generator=g),))),\n]\n',
)

# Small inputs only: AC under v1's tests, WA under v2's.
SMALL_ONLY = '''import torch


def double(x: torch.Tensor) -> torch.Tensor:
    return x * 2 if x.numel() <= 8 else x + 1
'''


def write_package(dest: Path, version: int = 1, *, tests_raise: bool = False) -> Path:
    """The package folder under ``dest``; ``tests_raise``: a tests.py that raises on import."""
    path = dest / FOLDER
    (path / "solutions" / "WA").mkdir(parents=True, exist_ok=True)
    (path / "problem.toml").write_text(PROBLEM_TOML)
    (path / "statement.md").write_text(STATEMENT)
    (path / "starter.py").write_text("def double(x):\n    return x\n")
    (path / "solution.py").write_text("def double(x):\n    return x * 2\n")
    tests = TESTS_V2 if version >= 2 else TESTS_V1
    if tests_raise:
        tests = tests.replace("CASES = [", "HALF = undefined_name / 2\nCASES = [", 1)
    (path / "tests.py").write_text(tests)
    (path / "solutions" / "WA" / "plus_one.py").write_text("def double(x):\n    return x + 1\n")
    if version >= 2:
        (path / "solutions" / "WA" / "small_only.py").write_text(SMALL_ONLY)
    return path


def package_zip(tmp: Path, version: int = 1, **options: bool) -> bytes:
    return problem_export_zip(write_package(tmp / f"src-v{version}", version, **options))
