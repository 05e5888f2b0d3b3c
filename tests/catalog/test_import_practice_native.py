"""C++ and CUDA C++ practice folders (a test program that includes the student's file and prints
CASE lines): ``import_practice DIR --all --json`` imports a clone-shaped book of them (none
skipped), and a judging gives per-case verdicts: a harness FAIL is WA, a sanitizer's report RE
with its message and the student's line, a compile error CE with the student's line number, a
CUDA harness on a CPU the emulation's note. The folders and the harness headers are our own toys
(tests/fixtures/practice_native/, laid out as the handbook's clone: practice/problems/<book>/,
practice/runtime/<cpp|cuda>/); the judgings use the local backend."""

from __future__ import annotations

import json
import shutil
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from judge_site.catalog.models import Problem
from sandbox.grader.contracts import CPU_EMULATION_NOTE, JudgeResult, Mode, Verdict
from sandbox.grader.package import PackageError, ProblemPackage, load_package
from sandbox.practice import book as practice_book
from sandbox.practice import folder as practice_folder
from sandbox.practice import harness as practice_harness

CLONE = Path(__file__).resolve().parents[1] / "fixtures" / "practice_native"
BOOKS = CLONE / "practice" / "problems"


@pytest.fixture(autouse=True)
def _local_sandbox(settings: Any) -> None:
    settings.JUDGE_ALLOW_LOCAL_BACKEND = True


def _package(tmp_path: Path, book: str, slug: str, cases: list[str]) -> ProblemPackage:
    """The fixture folder written as a package, its cases recorded as the check records them."""
    folder = practice_folder.read_folder(BOOKS / book / slug)
    target = practice_folder.write_package(folder, tmp_path, 900)
    practice_harness.record_cases(target, cases)
    return load_package(target)


def _judge(package: ProblemPackage, source: str, mode: Mode = Mode.SUBMIT) -> JudgeResult:
    from sandbox.grader.entry import judge  # noqa: PLC0415 - imports torch
    from sandbox.host.backends.base import get_backend  # noqa: PLC0415

    return judge(package, source, mode=mode, backend=get_backend("local"), secret_seed=1)


def _verdicts(result: JudgeResult) -> dict[str, str]:
    return {t.name: str(t.verdict) for t in result.tests}


def test_the_book_lists_cpp_and_cuda_folders_without_skipping_them() -> None:
    entries = practice_book.read_book(CLONE)
    assert [(e.book, e.slug, e.skipped) for e in entries] == [
        ("cpp", "toy-cpp-prefix-sum", ""), ("cpp", "toy-cpp-counter", ""), ("cuda", "toy-cu-scale", "")]


def test_a_folder_reads_its_harness_headers_from_the_clone(tmp_path: Path) -> None:
    folder = practice_folder.read_folder(BOOKS / "cpp" / "toy-cpp-counter")
    assert folder.harness == "cpp" and folder.sanitize == "thread"
    assert sorted(folder.harness_files) == ["judge.hpp"]
    lonely = tmp_path / "toy-cpp-counter"  # outside a clone: the header is nowhere
    shutil.copytree(BOOKS / "cpp" / "toy-cpp-counter", lonely)
    with pytest.raises(practice_folder.PracticeError, match="judge.hpp"):
        practice_folder.read_folder(lonely)


@pytest.mark.django_db
def test_import_all_json_imports_every_cpp_and_cuda_folder(tmp_path: Path) -> None:
    out = StringIO()
    call_command("import_practice", str(CLONE), "--all", "--json", "--dest", str(tmp_path),
                 stdout=out)
    reports = {r["slug"]: r for r in json.loads(out.getvalue())}
    for report in reports.values():
        print(f"[timing] {report['slug']}: {report['seconds']} s")
    assert set(reports) == {"toy-cpp-prefix-sum", "toy-cpp-counter", "toy-cu-scale"}
    assert all(r["imported"] and "skipped" not in r for r in reports.values()), reports
    # the starters fail: wrong sums (WA), a data race under ThreadSanitizer (RE), NaN left (WA)
    assert {s: r["check"]["starter"] for s, r in reports.items()} == {
        "toy-cpp-prefix-sum": "WA", "toy-cpp-counter": "RE", "toy-cu-scale": "WA"}
    # the cases are what the solution's run printed; example* public
    prefix = reports["toy-cpp-prefix-sum"]
    assert (prefix["public_tests"], prefix["hidden_tests"]) == (["example_small"], ["empty", "long_run"])
    package = load_package(next(tmp_path.glob("*-toy-cpp-prefix-sum")))
    assert package.practice is not None and package.practice.harness == "cpp"
    # the student's files under C++ names, the language recorded: the site stores and shows it
    assert package.language == "cpp" and package.manifest["language"] == "cpp"
    assert sorted(p.name for p in package.path.glob("s*.*")) == [
        "solution.cpp", "starter.cpp", "statement.md"]
    assert package.starter_code == (BOOKS / "cpp" / "toy-cpp-prefix-sum" / "starter.cpp").read_text()
    problem = Problem.objects.get(slug="toy-cpp-prefix-sum")
    assert problem.language == "cpp" and problem.starter_code == package.starter_code
    page = Client().get(f"/problems/{problem.number}/").content.decode()
    assert 'data-language="cpp"' in page
    assert package.practice.tests == ("example_small", "empty", "long_run")
    assert package.practice.public == ("example_small",)
    assert (package.path / "harness" / "judge.hpp").is_file()
    cuda = load_package(next(tmp_path.glob("*-toy-cu-scale")))
    assert cuda.practice is not None and cuda.practice.public == ("example_ten",)
    assert cuda.language == "cuda" and cuda.bindings == ""  # no tensor bindings: a program
    assert sorted(p.name for p in cuda.path.glob("s*.*")) == [
        "solution.cu", "starter.cu", "statement.md"]
    assert Problem.objects.get(slug="toy-cu-scale").language == "cuda"


def test_a_package_imported_before_the_cpp_language_still_loads_and_judges(tmp_path: Path) -> None:
    """Its C++ source in starter.py / solution.py, no `language`: judged as before."""
    package = _package(tmp_path, "cpp", "toy-cpp-prefix-sum", ["example_small", "empty", "long_run"])
    for name in ("starter", "solution"):
        (package.path / f"{name}.cpp").rename(package.path / f"{name}.py")
    toml = package.path / "problem.toml"
    toml.write_text(toml.read_text().replace('language = "cpp"\n', ""))
    old = load_package(package.path)
    assert old.language == "python" and old.practice is not None and old.practice.harness == "cpp"
    assert old.starter_code == package.starter_code and old.answer_file.name == "solution.py"
    result = _judge(old, old.answer_file.read_text())
    assert result.verdict == Verdict.AC, [t.message for t in result.tests]


def test_a_language_other_than_the_harness_is_refused(tmp_path: Path) -> None:
    package = _package(tmp_path, "cpp", "toy-cpp-prefix-sum", ["example_small"])
    toml = package.path / "problem.toml"
    toml.write_text(toml.read_text().replace('language = "cpp"', 'language = "cuda"'))
    with pytest.raises(PackageError, match=r'harness = "cuda"'):
        load_package(package.path)


def test_cpp_cases_become_verdicts_and_a_sanitizer_report_is_re(tmp_path: Path) -> None:
    package = _package(tmp_path, "cpp", "toy-cpp-prefix-sum", ["example_small", "empty", "long_run"])
    wrong = package.starter_code
    result = _judge(package, wrong)
    assert result.verdict == Verdict.WA
    assert _verdicts(result) == {"example_small": "WA", "empty": "AC", "long_run": "WA"}
    assert "prefix sums of 1 2 3" in result.tests[0].message
    past_the_end = (
        "#include <vector>\n"
        "std::vector<long> prefix_sums(const std::vector<int>& xs) {\n"
        "  std::vector<long> out(xs.size());\n"
        "  long total = 0;\n"
        "  for (size_t i = 0; i <= xs.size(); ++i) { total += xs[i]; out[i] = total; }\n"
        "  return out;\n"
        "}\n"
    )
    result = _judge(package, past_the_end)
    assert result.verdict == Verdict.RE
    first = result.tests[0]
    assert first.verdict == Verdict.RE
    assert "AddressSanitizer: heap-buffer-overflow at user.cpp line 5" in first.message
    assert [t.verdict for t in result.tests[1:]] == [Verdict.SK, Verdict.SK]


def test_a_compile_error_is_ce_with_the_students_line(tmp_path: Path) -> None:
    package = _package(tmp_path, "cpp", "toy-cpp-prefix-sum", ["example_small", "empty", "long_run"])
    broken = "#include <vector>\n\nstd::vector<long> prefix_sums(const std::vector<int>& xs) {\n" \
             "  return undeclared_name;\n}\n"
    result = _judge(package, broken)
    assert result.verdict == Verdict.CE
    assert "user.cpp:4:" in result.message and "undeclared_name" in result.message
    assert {t.verdict for t in result.tests} == {Verdict.SK}


def test_a_cuda_harness_runs_on_the_emulation_and_says_so(tmp_path: Path) -> None:
    package = _package(tmp_path, "cuda", "toy-cu-scale", ["example_ten", "ragged_tail", "one_block"])
    result = _judge(package, (BOOKS / "cuda" / "toy-cu-scale" / "solution.cu").read_text())
    assert result.verdict == Verdict.AC, [t.message for t in result.tests]
    assert result.message == CPU_EMULATION_NOTE
    no_bound = (BOOKS / "cuda" / "toy-cu-scale" / "solution.cu").read_text().replace(
        "if (i < n) ", "")
    result = _judge(package, no_bound, Mode.RUN)
    assert result.verdict == Verdict.RE
    assert [t.name for t in result.tests] == ["example_ten"]  # a Run shows the public case only
    assert "out-of-bounds" in result.tests[0].message
    assert "in kernel scale_kernel" in result.tests[0].message


def test_a_scratch_run_is_refused_on_a_harness_problem_everywhere(tmp_path: Path) -> None:
    """The scratchpad runs Python lines beside a Python file: on a C++ harness problem the grader
    answers CE with the reason (no sandbox started), and both commands refuse before judging."""
    import subprocess
    import sys

    package = _package(tmp_path, "cpp", "toy-cpp-prefix-sum", ["example_small", "empty", "long_run"])
    solution = BOOKS / "cpp" / "toy-cpp-prefix-sum" / "solution.cpp"
    result = _judge(package, solution.read_text(), Mode.SCRATCH)
    assert result.verdict == Verdict.CE and result.tests == []
    assert result.message.startswith("the scratchpad runs Python lines") and "C++" in result.message
    script = tmp_path / "lines.py"
    script.write_text("print(1)\n")
    cli = subprocess.run(
        [sys.executable, "-m", "sandbox", "judge", "--mode", "scratch", "--script", str(script),
         "--backend", "local", str(package.path), str(solution)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert cli.returncode == 1 and "error: the scratchpad runs Python lines" in cli.stderr, cli
    from django.core.management.base import CommandError
    from django.test import override_settings

    with override_settings(JUDGE_PROBLEMS_DIR=str(package.path.parent), JUDGE_BACKEND="local"):
        with pytest.raises(CommandError, match="the scratchpad runs Python lines"):
            call_command("judge", "900", str(solution), "--mode", "scratch", "--script", str(script))
    # A CUDA C++ harness problem is refused the same way.
    cuda = _package(tmp_path / "cu", "cuda", "toy-cu-scale", ["example_ten"])
    assert cuda.practice is not None and cuda.practice.harness == "cuda"
    assert _judge(cuda, "x", Mode.SCRATCH).message.startswith("the scratchpad runs Python")
