"""problem.toml's fields are read once, at load, into typed fields of ProblemPackage
(sandbox/grader/manifest.py): a malformed one is a PackageError naming the file and the field."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sandbox.grader.contracts import FeedbackPolicy
from sandbox.grader.manifest import (
    PROBLEM_KINDS,
    feedback_of,
    language_of,
    parse_hints,
    requires_of,
)
from sandbox.grader.package import PackageError, load_package
from sandbox.practice.package import PracticeSettings, practice_of
from tests.sandbox.conftest import TOY_DIR


def _toy(tmp_path: Path, head: str = "", tail: str = "") -> Path:
    """The toy package with ``head`` put before its first table and ``tail`` after the rest."""
    folder = tmp_path / TOY_DIR.name
    shutil.copytree(TOY_DIR, folder)
    toml = (folder / "problem.toml").read_text()
    first = toml.index("\n[")
    (folder / "problem.toml").write_text(f"{toml[:first]}\n{head}\n{toml[first:]}\n{tail}\n")
    return folder


def test_the_toy_loads_with_typed_defaults(tmp_path: Path) -> None:
    package = load_package(_toy(tmp_path))
    assert (package.kind, package.requires, package.practice) == ("tensor", (), None)
    assert package.feedback_hidden == FeedbackPolicy.CATEGORY
    assert package.hints.ladders == () and package.hints.enabled


def test_declared_fields_load_typed(tmp_path: Path) -> None:
    hints = '[hints]\nafter = 3\n[[hints.ladders]]\ncheck = "fn:axpy"\nladder = ["mind the scale"]\n'
    package = load_package(_toy(tmp_path, 'kind = "tensor"\nrequires = ["triton"]', hints))
    assert package.requires == ("triton",)
    assert package.hints.after == 3 and package.hints.ladders[0].hints == ("mind the scale",)


@pytest.mark.parametrize("head,tail,field", [
    ('requires = "triton"', "", "`requires` must be a list of module names"),
    ("requires = [3]", "", "`requires` must be a list of module names"),
    ('kind = "scratch"', "", "`kind` must be one of tensor, practice, not 'scratch'"),
    ('kind = "tensors"', "", "`kind` must be one of"),
    ("", "[hints]\nafter = 0", "hints.after must be a positive integer"),
    ('kind = "practice"', '[practice]\ntests = "test_a"', "practice.tests must be a list"),
    ('kind = "practice"', "[practice]\nharness = 1", "practice.harness must be a string"),
    ('kind = "practice"\npractice = 1', "", "[practice] must be a table"),
    ('language = "rust"', "", "`language` must be one of python, cuda, cpp, not 'rust'"),
    ('language = "cpp"', "", "`language = \"cpp\"` is for a practice package's C++ exercise"),
])
def test_a_malformed_field_is_a_package_error_naming_it(
    tmp_path: Path, head: str, tail: str, field: str
) -> None:
    with pytest.raises(PackageError) as refused:
        load_package(_toy(tmp_path, head, tail))
    assert field in str(refused.value) and "problem.toml" in str(refused.value)


@pytest.mark.parametrize("old,new,field", [
    ('device = "cpu"', 'device = "tpu"', "`device` must be one of cpu, gpu, any, not 'tpu'"),
    ('chapter = "Engine tests"', "chapter = 7", "`chapter` must be a string (not 7)"),
    ('tags = ["test-only"]', 'tags = "one"', "`tags` must be a list of names (not 'one')"),
    ("number = 900\n", "", "`number` must be an integer (missing)"),
    ('fn = "axpy"\n', "", "benchmark.fn must be a name, not None"),
    ("max_time_s = 2", 'max_time_s = "2"', "benchmark.max_time_s must be a number"),
    ('name = "n=65536"', "", "every [[benchmark.shapes]] needs a name"),
    ("args = [", "argz = [", "shape 'n=65536': `args` must be a list"),
    ('hidden = "category"', 'hidden = "category"\n[tolerances.float32]\natol = 1e-5',
     "tolerances.float32 needs atol and rtol"),
])
def test_a_malformed_header_benchmark_or_tolerance_names_its_field(
    tmp_path: Path, old: str, new: str, field: str
) -> None:
    folder = _toy(tmp_path)
    toml = folder / "problem.toml"
    assert old in toml.read_text()
    toml.write_text(toml.read_text().replace(old, new, 1))
    with pytest.raises(PackageError) as refused:
        load_package(folder)
    assert field in str(refused.value) and "problem.toml" in str(refused.value)


def test_an_unknown_feedback_policy_is_refused_at_load(tmp_path: Path) -> None:
    folder = _toy(tmp_path)
    toml = folder / "problem.toml"
    toml.write_text(toml.read_text().replace('hidden = "category"', 'hidden = "everything"'))
    with pytest.raises(PackageError, match="feedback.hidden must be one of verdict, category, full"):
        load_package(folder)


def test_the_site_reads_a_stored_manifest_with_the_same_functions() -> None:
    stored = {"kind": "practice", "requires": ["triton"], "feedback": {"hidden": "full"},
              "practice": {"tests": ["test_a", "test_b"], "public": ["test_a"],
                           "unsupported": [{"test": "test_b", "reason": "r", "action": "refused"}]}}
    assert requires_of(stored) == ("triton",) and feedback_of(stored) == FeedbackPolicy.FULL
    assert practice_of(stored) == PracticeSettings(("test_a", "test_b"), ("test_a",), {"test_b": "r"})
    assert practice_of(stored).judged() == ["test_a"]
    harness = practice_of({"practice": {"harness": "cpp", "main": "test.cpp", "files": ["a.h"]}})
    assert (harness.harness, harness.main, harness.files, harness.tests) == ("cpp", "test.cpp", ("a.h",), ())
    assert parse_hints(stored).ladders == () and requires_of({}) == ()


def test_the_language_of_a_stored_manifest_falls_back_to_the_harness_then_python() -> None:
    assert language_of({"language": "cuda", "practice": {"harness": "cuda"}}) == "cuda"
    assert language_of({"kind": "practice", "practice": {"harness": "cpp"}}) == "cpp"  # imported before
    assert language_of({"kind": "practice", "practice": {"harness": ""}}) == "python"
    assert language_of({"practice": "not a table"}) == "python" and language_of({}) == "python"


def test_every_problem_kind_has_a_strategy() -> None:
    from sandbox.grader.entry import judge  # noqa: F401 - registers the built-in kinds
    from sandbox.grader.judging import KINDS

    assert set(PROBLEM_KINDS) == set(KINDS) - {"scratch"}
