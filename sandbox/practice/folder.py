"""Practice folders: the exercise format of the handbook ``AnranS/ai-infra-handbooks``
(``practice/problems/<book>/<slug>/``), read and turned into a problem package of the kind
``practice`` (torch-free: the web process imports this module).

A folder holds ``problem.md`` (front matter between ``---`` lines; Markdown with ``$math$``;
an optional ``<!-- 题解 -->`` line after which come solution notes), ``starter.py``,
``solution.py`` and ``test.py``. ``test.py`` imports the student's names ``from solution import
...`` and helpers ``from checker import ...``; every top-level ``test_*`` function is a case, in
source order; ``test_example*`` cases are public, the rest hidden.

The package written from it (:func:`write_package`; read back by package.py) is a normal package folder whose
``problem.toml`` says ``kind = "practice"``: ``tests.py`` is the folder's ``test.py`` verbatim
(trusted, run by the grader only: sandbox/practice/proxies.py), ``notes.md`` holds the solution
notes (shown to a student after an AC), and ``[practice]`` lists the cases, the public ones,
the folder's ``requires`` and the cases the judge refuses, each with its reason.

What a plain proxy cannot carry is found statically (scan.py's :func:`scan_tests`), and reported per
test: a function of the test (a lambda) passed to the student's code, an assignment to
``solution.<name>``; both run as callbacks (see proxies.py). What turns out unsupported
when the check runs the solution is refused (``[[practice.unsupported]]`` with action refused).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.grader import syntax
from sandbox.practice import PracticeError
from sandbox.practice import harness as practice_harness
from sandbox.practice import runtime as practice_runtime
from sandbox.practice.scan import TestInfo, Unsupported, scan_tests

KIND = "practice"
FOLDER_FILES = ("problem.md", "starter.py", "solution.py", "test.py")
NOTES_MARK = "<!-- 题解 -->"
DIFFICULTIES = {"简单": "easy", "中等": "medium", "困难": "hard"}
SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9-]{0,90}$")
MAX_FILE_BYTES = practice_runtime.MAX_FILE_BYTES
DEFAULT_TEST_TIME_S = 30.0  # per test: every call the test makes to the student's code
# The handbook's `requires` values a Python folder may carry: numpy and torch are installed,
# triton is emulated by the handbook's runtime (runtime.py), local and cuda are where the
# handbook runs it (a GPU-only case skips itself on a CPU host: checker.need_cuda).
REQUIRES = ("numpy", "torch", "triton", "local", "cuda")


@dataclass(frozen=True)
class PracticeFolder:
    path: Path
    slug: str
    title: str
    chapter: str
    difficulty: str  # easy | medium | hard
    tags: list[str]
    requires: list[str]
    description_md: str
    notes_md: str
    starter: str
    solution: str
    tests_source: str
    tests: list[TestInfo]
    functions: list[str]  # names test.py imports from solution
    unsupported: list[Unsupported] = field(default_factory=list)
    # A C++ / CUDA C++ folder (harness.py): "cpp" or "cuda", its sanitizer, its test's headers
    harness: str = ""
    sanitize: str = ""
    harness_files: dict[str, str] = field(default_factory=dict)
    runtime: dict[str, str] = field(default_factory=dict)  # the clone's runtime files it needs

    @property
    def public_tests(self) -> list[str]:
        return [t.name for t in self.tests if t.public]

    @property
    def hidden_tests(self) -> list[str]:
        return [t.name for t in self.tests if not t.public]


# ---------------------------------------------------------------- problem.md


def parse_front_matter(text: str, where: str = "problem.md") -> tuple[dict[str, Any], str]:
    """(keys, body) of a problem.md: the front matter runs from a first ``---`` line to the
    next; lines are ``key: value`` (a ``#`` line or blank is skipped, `` #`` starts a comment),
    ``[a, b]`` is a list of strings."""
    text = text.replace("\r\n", "\n")
    if not text.startswith("---\n"):
        raise PracticeError(f"{where}: must start with a '---' line (front matter)")
    end = text.find("\n---\n", 3)
    if end < 0:
        if text.endswith("\n---"):
            end = len(text) - 4
        else:
            raise PracticeError(f"{where}: the front matter has no closing '---' line")
    head, body = text[4:end], text[end + 5 :]
    meta: dict[str, Any] = {}
    for number, raw in enumerate(head.split("\n"), start=2):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, sep, value = line.partition(":")
        if not sep:
            raise PracticeError(f"{where}:{number}: expected 'key: value', got {raw!r}")
        value = value.split(" #", 1)[0].strip()
        if value.startswith("[") and value.endswith("]"):
            meta[key.strip()] = [v.strip() for v in value[1:-1].split(",") if v.strip()]
        else:
            meta[key.strip()] = value
    return meta, body


def split_notes(body: str) -> tuple[str, str]:
    """(description, solution notes) split at the first ``<!-- 题解 -->``, both stripped."""
    description, _, notes = body.partition(NOTES_MARK)
    return description.strip(), notes.strip()


# ---------------------------------------------------------------- the folder


def _read(path: Path, names: tuple[str, ...] = FOLDER_FILES) -> str:
    if not path.is_file():
        raise PracticeError(
            f"missing {path.name} (a practice folder holds {', '.join(names)})"
        )
    return practice_runtime.read_capped(path, path.name)


def _header(path: Path, text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the front matter, the fields every folder's problem.md gives) or PracticeError."""
    meta, body = parse_front_matter(text)
    title = str(meta.get("title") or "").strip()
    if not title or isinstance(meta.get("title"), list):
        raise PracticeError("problem.md: the front matter has no `title`")
    difficulty_raw = str(meta.get("difficulty") or "中等")
    if difficulty_raw not in DIFFICULTIES:
        raise PracticeError(
            f"problem.md: difficulty {difficulty_raw!r} is not one of {', '.join(DIFFICULTIES)}"
        )
    tags = meta.get("tags", [])
    requires = meta.get("requires", [])
    if not isinstance(tags, list) or not isinstance(requires, list):
        raise PracticeError("problem.md: `tags` and `requires` must be [a, b] lists")
    description, notes = split_notes(body)
    if not description:
        raise PracticeError("problem.md: the statement is empty")
    return meta, {
        "title": title, "chapter": str(meta.get("chapter") or ""),
        "difficulty": DIFFICULTIES[difficulty_raw], "tags": [str(t) for t in tags],
        "requires": [str(r) for r in requires], "description_md": description, "notes_md": notes,
    }


def _slug(path: Path, slug: str | None) -> str:
    slug = slug or path.resolve().name
    if not SLUG_RE.match(slug):
        raise PracticeError(f"folder name {slug!r} is not a slug (a-z, 0-9, '-')")
    return slug


def _read_harness_folder(path: Path, slug: str | None, language: str) -> PracticeFolder:
    """A C++ / CUDA C++ folder: its cases are what its test program prints (harness.py)."""
    suffix = practice_harness.LANGUAGES[language][0]
    names = ("problem.md", f"starter{suffix}", f"solution{suffix}", f"test{suffix}")
    texts = {name: _read(path / name, names) for name in names}
    slug = _slug(path, slug)
    meta, fields = _header(path, texts["problem.md"])
    test = texts[f"test{suffix}"]
    return PracticeFolder(
        path=path, slug=slug, **fields, starter=texts[f"starter{suffix}"],
        solution=texts[f"solution{suffix}"], tests_source=test, tests=[], functions=[],
        harness=language, sanitize=practice_harness.sanitize_of(meta, language),
        harness_files=practice_harness.headers(path, language, test, MAX_FILE_BYTES),
    )


def read_folder(path: Path | str, slug: str | None = None) -> PracticeFolder:
    """Read and validate a practice folder (nothing is run). PracticeError on any fault."""
    path = Path(path)
    if not path.is_dir():
        raise PracticeError(f"{path}: not a folder")
    language = practice_harness.language_of(path)
    if language:
        return _read_harness_folder(path, slug, language)
    texts = {name: _read(path / name) for name in FOLDER_FILES}
    slug = _slug(path, slug)
    _, fields = _header(path, texts["problem.md"])
    unknown = sorted(set(fields["requires"]) - set(REQUIRES))
    if unknown:
        raise PracticeError(
            f"problem.md: requires {unknown}: a Python exercise may require {', '.join(REQUIRES)}"
        )
    runtime = practice_runtime.runtime_files(
        path, [texts["starter.py"], texts["solution.py"], texts["test.py"]])
    try:
        solution_tree = syntax.parse(texts["solution.py"], filename="solution.py")
    except SyntaxError as exc:
        raise PracticeError(f"solution.py: syntax error at line {exc.lineno}: {exc.msg}") from None
    tests, imported, unsupported = scan_tests(texts["test.py"])
    # The names the student's file must define as functions or classes (checked when it is
    # loaded); other imported names (constants) are looked up when the tests import them.
    defined = {
        node.name
        for node in solution_tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    }
    functions = [name for name in imported if name in defined]
    if not tests:
        raise PracticeError("test.py: no test_* function")
    if not any(t.public for t in tests):
        raise PracticeError("test.py: no test_example* function (the public tests)")
    return PracticeFolder(
        path=path,
        slug=slug,
        **fields,
        starter=texts["starter.py"],
        solution=texts["solution.py"],
        tests_source=texts["test.py"],
        tests=tests,
        functions=functions,
        unsupported=unsupported,
        runtime=runtime,
    )


def toml_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def toml_list(values: list[str]) -> str:
    return "[" + ", ".join(toml_str(v) for v in values) + "]"


def manifest_text(folder: PracticeFolder, number: int, refused: list[Unsupported]) -> str:
    """problem.toml of the package made from ``folder``."""
    lines = [
        "# Imported from a practice folder (manage.py import_practice); tests.py is its test.py.",
        f"kind = {toml_str(KIND)}",
        *([f"language = {toml_str(folder.harness)}"] if folder.harness else []),
        f"number = {number}",
        f"slug = {toml_str(folder.slug)}",
        f"title = {toml_str(folder.title)}",
        f"difficulty = {toml_str(folder.difficulty)}",
        f"chapter = {toml_str(folder.chapter)}",
        f"tags = {toml_list(folder.tags)}",
        'device = "cpu"',
        f"functions = {toml_list(folder.functions)}",
        "",
        "[limits]",
        (f"time_s = {practice_harness.TIME_S}  # the whole test program" if folder.harness
         else f"time_s = {DEFAULT_TEST_TIME_S}  # per test: all the calls it makes"),
        "memory_mib = 2048",
        "",
        "[feedback]",
        'hidden = "category"',
        "",
        "[practice]",
        f"requires = {toml_list(folder.requires)}",
        f"tests = {toml_list([t.name for t in folder.tests])}",
        f"public = {toml_list(folder.public_tests)}",
        f"notes = {'true' if folder.notes_md else 'false'}",
    ]
    if folder.harness:
        lines += practice_harness.manifest_lines(folder.harness, folder.sanitize,
                                                 sorted(folder.harness_files))
    if folder.runtime:
        lines.append(f"runtime = {toml_list(practice_runtime.module_names(folder.runtime))}")
    for item in folder.unsupported + refused:
        lines += [
            "",
            "[[practice.unsupported]]",
            f"test = {toml_str(item.test)}",
            f"reason = {toml_str(item.reason)}",
            f"action = {toml_str(item.action)}",
        ]
    return "\n".join(lines) + "\n"


def write_package(
    folder: PracticeFolder, dest: Path, number: int, refused: list[Unsupported] = ()  # type: ignore[assignment]
) -> Path:
    """Write the package of ``folder`` into ``dest/<number>-<slug>`` (created; an existing
    folder is an error: the caller stages into a fresh folder). Returns the folder."""
    target = dest / f"{number:03d}-{folder.slug}"
    target.mkdir(parents=True)
    (target / "problem.toml").write_text(manifest_text(folder, number, list(refused)))
    (target / "statement.md").write_text(folder.description_md + "\n")
    (target / "notes.md").write_text(folder.notes_md + ("\n" if folder.notes_md else ""))
    # the student's files under their language's names: starter.cpp / .cu for a harness folder
    suffix = practice_harness.LANGUAGES[folder.harness][0] if folder.harness else ".py"
    (target / f"starter{suffix}").write_text(folder.starter)
    (target / f"solution{suffix}").write_text(folder.solution)
    if folder.harness:  # the test program and its headers
        practice_harness.write_files(target, folder.harness, folder.tests_source,
                                     folder.harness_files)
    else:
        (target / "tests.py").write_text(folder.tests_source)
    for relative, text in folder.runtime.items():  # the clone's runtime, for the sandbox
        path = target / practice_runtime.PACKAGE_DIR / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return target
