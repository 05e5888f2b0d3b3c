"""Fixtures of the engine tests: the toy problem (tests/fixtures/problems/900-toy) judged
through the real grader and the local backend; its baseline's source is read from its own
stand-in kernels root."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from sandbox.grader.contracts import JudgeResult, Mode
from sandbox.grader.package import ProblemPackage, load_package
from sandbox.host.backends.base import Backend, get_backend

TOY_DIR = Path(__file__).resolve().parent.parent / "fixtures" / "problems" / "900-toy"
SOLUTIONS = TOY_DIR / "solutions"
KERNELS_ROOT = TOY_DIR / "kernels_root"  # the toy's stand-in kernels package (its baseline)


@pytest.fixture(scope="session")
def toy() -> ProblemPackage:
    return load_package(TOY_DIR)


@pytest.fixture(scope="session")
def local_backend() -> Backend:
    return get_backend("local")


JudgeFn = Callable[..., JudgeResult]


@pytest.fixture(scope="session")
def judge_toy(toy: ProblemPackage, local_backend: Backend) -> JudgeFn:
    """judge_toy(source_or_solution_path, mode) -> JudgeResult, cached per (source, mode)
    so several tests may read one judging."""
    from sandbox.grader.entry import judge

    cache: dict[tuple[str, str], JudgeResult] = {}

    def run(source: str, mode: Mode = Mode.SUBMIT, **kwargs: object) -> JudgeResult:
        if source.endswith(".py") and (SOLUTIONS / source).is_file():
            source = (SOLUTIONS / source).read_text()
        key = (source, str(mode))
        if kwargs:
            kwargs.setdefault("kernels_root", KERNELS_ROOT)
            return judge(toy, source, mode=mode, backend=local_backend, **kwargs)  # type: ignore[arg-type]
        if key not in cache:
            cache[key] = judge(
                toy, source, mode=mode, backend=local_backend, kernels_root=KERNELS_ROOT
            )
        return cache[key]

    return run


@pytest.fixture(scope="session")
def tagged_wrong_results(toy: ProblemPackage, local_backend: Backend) -> dict[str, JudgeResult]:
    """Every tagged non-AC solution judged (Submit), a few at a time: each judging mostly waits
    on its own sandbox, so overlapping them keeps the suite fast on two cores."""
    from sandbox.grader.entry import judge

    files = sorted(p for p in SOLUTIONS.glob("*/*.py") if p.parent.name != "AC")

    def run(path: Path) -> tuple[str, JudgeResult]:
        return str(path.relative_to(SOLUTIONS)), judge(
            toy, path.read_text(), mode=Mode.SUBMIT, backend=local_backend, kernels_root=KERNELS_ROOT
        )

    with ThreadPoolExecutor(max_workers=3) as pool:
        return dict(pool.map(run, files))
