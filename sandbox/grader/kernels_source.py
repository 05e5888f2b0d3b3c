"""Trusted sources: the kernels package (references and speed baselines) expanded in place of
its imports, so that a baseline reaches a sandbox of its own as one self-contained source and
no sandbox image ever holds the kernels package.
"""

from __future__ import annotations

import ast
from pathlib import Path

from sandbox.grader import syntax
from sandbox.grader.package import PackageError

# The folder holding the trusted ``kernels/`` package: references and speed baselines, read
# by the grader on the host and never copied into a sandbox image.
KERNELS_ROOT = Path(__file__).resolve().parents[2]


# --- trusted sources: the kernels package expanded in place of its imports -------------------


def kernels_module_path(module: str, kernels_root: Path | None = None) -> Path:
    """``kernels_root/kernels/<name>.py`` for ``module`` = "kernels.<name>" (a PackageError for
    anything else: baselines and references live in the kernels package only)."""
    prefix, _, name = module.partition(".")
    if prefix != "kernels" or not name.isidentifier():
        raise PackageError(f"{module!r} is not a module of the kernels package (kernels.<name>)")
    path = (kernels_root or KERNELS_ROOT) / "kernels" / f"{name}.py"
    if not path.is_file():
        raise PackageError(f"no module {module} ({path})")
    return path


def _kernels_imports(tree: ast.Module) -> list[ast.ImportFrom]:
    return [
        node
        for node in tree.body
        if isinstance(node, ast.ImportFrom)
        and node.level == 0
        and (node.module or "").split(".")[0] == "kernels"
    ]


def _defined_names(tree: ast.Module) -> set[str]:
    """Top-level names a module defines itself (functions, classes, assignments)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
    return names


def _is_future(node: ast.stmt) -> bool:
    return isinstance(node, ast.ImportFrom) and node.module == "__future__"


def inline_kernels(source: str, kernels_root: Path | None = None, filename: str = "<trusted>") -> str:
    """A TRUSTED file's source (a package's solution.py, a generated baseline file) with every
    top-level ``from kernels.X import a, b as c`` replaced by the source of ``kernels/X.py``
    (read from ``kernels_root``) followed by ``c = b`` for each renamed import, so that the
    file runs in a sandbox whose image holds no kernels package. Kernels modules are
    self-contained (they import only the standard library, torch and triton); ``from
    __future__`` lines are gathered at the top. Never used on a student's file.

    The result is one file on disk in the sandbox, so Triton's ``inspect.getsource`` of an
    inlined ``@triton.jit`` function works. Two inlined modules that define the same top-level
    name are refused (one would silently replace the other's)."""
    tree = syntax.parse(source, filename=filename)
    imports = _kernels_imports(tree)
    if not imports:
        return source
    lines = source.splitlines(keepends=True)
    futures: list[str] = []
    defined: dict[str, str] = {}
    inlined: set[str] = set()
    # Replace from the bottom up so earlier line numbers stay valid.
    replacements: list[tuple[int, int, str]] = []
    for node in imports:
        module = node.module or ""
        path = kernels_module_path(module, kernels_root)
        text = path.read_text(encoding="utf-8")
        inner = syntax.parse(text, filename=str(path))
        if _kernels_imports(inner):
            raise PackageError(f"{path}: a kernels module must not import the kernels package")
        for name in _defined_names(inner):
            if defined.setdefault(name, module) != module:
                raise PackageError(
                    f"{filename}: {module} and {defined[name]} both define {name!r}; "
                    "they cannot be inlined into one file"
                )
        body = text.splitlines(keepends=True)
        for stmt in inner.body:
            if _is_future(stmt):
                futures.append("".join(body[stmt.lineno - 1 : stmt.end_lineno]).strip())
                for i in range(stmt.lineno - 1, stmt.end_lineno or stmt.lineno):
                    body[i] = "\n"
        names = {alias.name for alias in node.names}
        if "*" in names:
            raise PackageError(f"{filename}: `from {module} import *` cannot be inlined")
        missing = sorted(names - _defined_names(inner) - _imported_names(inner))
        if missing:
            raise PackageError(f"{filename}: {module} defines no {', '.join(missing)}")
        aliases = "".join(
            f"{alias.asname} = {alias.name}\n"
            for alias in node.names
            if alias.asname and alias.asname != alias.name
        )
        if module in inlined:  # a second import of one module: its names only
            replacements.append((node.lineno, node.end_lineno or node.lineno, aliases))
            continue
        inlined.add(module)
        block = f"# --- inlined from {module} ---\n" + "".join(body)
        if not block.endswith("\n"):
            block += "\n"
        block += aliases + f"# --- end of {module} ---\n"
        replacements.append((node.lineno, node.end_lineno or node.lineno, block))
    for stmt in tree.body:
        if _is_future(stmt):
            futures.append("".join(lines[stmt.lineno - 1 : stmt.end_lineno]).strip())
            replacements.append((stmt.lineno, stmt.end_lineno or stmt.lineno, ""))
    for first, last, block in sorted(replacements, reverse=True):
        lines[first - 1 : last] = [block]
    head = "".join(f"{line}\n" for line in dict.fromkeys(futures))
    return head + "".join(lines)


def _imported_names(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def baseline_file(baselines: list[str], kernels_root: Path | None = None) -> tuple[str, dict[str, str]]:
    """The source of one file defining every baseline ("kernels.module:function"), the
    kernels modules inlined, and the name each baseline has in it ("baseline_0", ...): what
    the baseline's own sandbox loads as its submission."""
    by_module: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for index, baseline in enumerate(sorted(set(baselines))):
        module, sep, func = baseline.partition(":")
        if not sep or not func.isidentifier():
            raise PackageError(f"baseline {baseline!r} is not kernels.<module>:<function>")
        kernels_module_path(module, kernels_root)  # a kernels module, and it exists
        names[baseline] = f"baseline_{index}"
        by_module.setdefault(module, []).append(f"{func} as baseline_{index}")
    lines = [f"from {module} import {', '.join(parts)}\n" for module, parts in by_module.items()]
    header = '"""The speed baselines of one judging (trusted kernels, inlined)."""\n'
    return inline_kernels(header + "".join(lines), kernels_root, "<baselines>"), names
