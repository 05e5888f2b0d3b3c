"""Trusted files (a package's reference, the baselines) reach a sandbox as source with the
kernels package inlined: no sandbox image holds it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sandbox.grader.kernels_source import baseline_file, inline_kernels
from sandbox.grader.package import PackageError, load_package

ROOT = Path(__file__).resolve().parents[2]
SOLUTIONS = sorted((ROOT / "problems").glob("*/solution.py"))


def _run(source: str) -> dict[str, object]:
    namespace: dict[str, object] = {"__name__": "trusted"}
    exec(compile(source, "trusted.py", "exec"), namespace)
    return namespace


@pytest.mark.parametrize("file", SOLUTIONS, ids=lambda p: p.parent.name)
def test_every_reference_expands_to_a_file_that_imports_no_kernels(file: Path) -> None:
    package = load_package(file.parent)
    source = inline_kernels(file.read_text(), filename=str(file))
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            assert (node.module or "").split(".")[0] != "kernels", ast.unparse(node)
    if "triton" in package.manifest.get("requires", []) and "import triton" in source:
        pytest.skip("runs only where triton is installed (its sandbox image)")
    namespace = _run(source)
    reference = package.load_reference()
    for fn in package.functions:
        assert callable(namespace[fn]), fn
        assert namespace[fn].__name__ == getattr(reference, fn).__name__


def test_future_imports_go_first_and_renamed_imports_become_assignments() -> None:
    source = (
        '"""A reference."""\n\nfrom __future__ import annotations\n\n'
        "from kernels.embedding import gather_rows as embedding_gather, embed\n"
    )
    out = inline_kernels(source)
    assert out.startswith("from __future__ import annotations\n")
    assert out.count("from __future__") == 1
    namespace = _run(out)
    assert namespace["embedding_gather"] is namespace["gather_rows"]
    assert callable(namespace["embed"])


def test_only_kernels_modules_that_exist_and_define_the_names_are_inlined() -> None:
    with pytest.raises(PackageError, match="defines no"):
        inline_kernels("from kernels.embedding import no_such_function\n")
    with pytest.raises(PackageError, match="no module"):
        inline_kernels("from kernels.no_such_module import f\n")
    with pytest.raises(PackageError, match="not a module of the kernels package"):
        baseline_file(["os.path:join"])
    assert inline_kernels("import torch\n") == "import torch\n"


def test_the_baseline_file_defines_each_baseline_under_its_own_name() -> None:
    source, names = baseline_file(
        ["kernels.embedding:last_token_logits", "kernels.embedding:embed", "kernels.lm_head:sample_logits"]
    )
    assert names == {
        "kernels.embedding:embed": "baseline_0",
        "kernels.embedding:last_token_logits": "baseline_1",
        "kernels.lm_head:sample_logits": "baseline_2",
    }
    assert source.count("inlined from kernels.embedding") == 1
    namespace = _run(source)
    assert namespace["baseline_0"].__name__ == "embed"
    assert namespace["baseline_2"].__name__ == "sample_logits"
