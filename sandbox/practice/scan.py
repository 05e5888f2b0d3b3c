"""The static scan of a practice test.py: its ``test_*`` functions in source order (public
``test_example*`` ones apart), the names it imports from ``solution``, and what a proxy cannot
carry (a function of the test passed to the student's code, an assignment to
``solution.<name>``), reported per test before anything runs. Standard library only.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from sandbox.grader import syntax
from sandbox.practice import PracticeError


@dataclass(frozen=True)
class Unsupported:
    """A test that needs what a proxy cannot do. ``action`` is ``refused`` (never judged; the
    import report and the manifest say why) or ``fallback`` (judged by a documented fallback)."""

    test: str
    reason: str
    action: str  # "refused" | "fallback"

    def as_dict(self) -> dict[str, str]:
        return {"test": self.test, "reason": self.reason, "action": self.action}


@dataclass(frozen=True)
class TestInfo:
    name: str
    public: bool
    doc: str  # the docstring's first line
    line: int


# ---------------------------------------------------------------- test.py


def _solution_names(tree: ast.Module) -> tuple[list[str], bool]:
    """Names imported ``from solution import ...`` anywhere (in order, once), and whether
    ``import solution`` appears."""
    names: list[str] = []
    module_import = False
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "solution" and node.level == 0:
            for alias in node.names:
                if alias.name == "*":
                    raise PracticeError("test.py: `from solution import *` cannot be proxied")
                if alias.name not in names:
                    names.append(alias.name)
        elif isinstance(node, ast.Import):
            module_import |= any(alias.name == "solution" for alias in node.names)
    return names, module_import


def _bound_functions(tree: ast.Module) -> set[str]:
    """Names of the test module that hold functions (defs, lambdas)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names


def _is_solution_call(func: ast.expr, imported: set[str]) -> str | None:
    if isinstance(func, ast.Name) and func.id in imported:
        return func.id
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "solution"
    ):
        return f"solution.{func.attr}"
    return None


def _scan_function(
    fn: ast.AST, imported: set[str], functions: set[str], helpers: dict[str, ast.AST]
) -> list[tuple[str, str]]:
    """(reason, action) for what a proxy cannot do in ``fn`` and the module helpers it calls."""
    found: list[tuple[str, str]] = []
    seen: set[str] = set()
    todo = [fn]
    while todo:
        node = todo.pop()
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                target = _is_solution_call(sub.func, imported)
                if target is not None:
                    for arg in [*sub.args, *(k.value for k in sub.keywords)]:
                        value = arg.value if isinstance(arg, ast.Starred) else arg
                        if isinstance(value, ast.Lambda) or (
                            isinstance(value, ast.Name) and value.id in functions
                        ):
                            found.append((
                                f"passes a function of the test to {target}(): run as a "
                                "callback (it stays in the grader; each call the student's "
                                "code makes of it crosses the channel back)",
                                "fallback",
                            ))
                elif isinstance(sub.func, ast.Name) and sub.func.id in helpers:
                    if sub.func.id not in seen:
                        seen.add(sub.func.id)
                        todo.append(helpers[sub.func.id])
            elif isinstance(sub, ast.Assign | ast.AugAssign | ast.Delete):
                targets = (
                    sub.targets if isinstance(sub, ast.Assign | ast.Delete) else [sub.target]
                )
                for target_node in targets:
                    if (
                        isinstance(target_node, ast.Attribute)
                        and isinstance(target_node.value, ast.Name)
                        and target_node.value.id == "solution"
                    ):
                        found.append((
                            f"replaces solution.{target_node.attr}: the replacement runs "
                            "in the grader as a callback (the student's module calls a stand-in; "
                            "an exception it raises reaches the test even if caught)",
                            "fallback",
                        ))
    unique: list[tuple[str, str]] = []
    for item in found:
        if item not in unique:
            unique.append(item)
    return unique


def scan_tests(source: str) -> tuple[list[TestInfo], list[str], list[Unsupported]]:
    """The cases of a test.py (top-level ``test_*`` functions, in source order), the names it
    imports from solution, and what a proxy cannot do, per test."""
    try:
        tree = syntax.parse(source, filename="test.py")
    except SyntaxError as exc:
        raise PracticeError(f"test.py: syntax error at line {exc.lineno}: {exc.msg}") from None
    imported, _ = _solution_names(tree)
    functions = _bound_functions(tree)
    helpers: dict[str, ast.AST] = {}
    tests: list[TestInfo] = []
    cases: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if node.name.startswith("test_"):
                doc = (ast.get_docstring(node) or "").strip().split("\n", 1)[0]
                tests.append(
                    TestInfo(node.name, node.name.startswith("test_example"), doc, node.lineno)
                )
                cases.append(node)
            else:
                helpers[node.name] = node
    names = [t.name for t in tests]
    if len(set(names)) != len(names):
        raise PracticeError("test.py: two test functions have the same name")
    unsupported = [
        Unsupported(case.name, reason, action)
        for case in cases
        for reason, action in _scan_function(case, set(imported), functions, helpers)
    ]
    return tests, imported, unsupported
