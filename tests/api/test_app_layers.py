"""Apps import one way (issue 37): read judge_site/'s import graph from the source (ast: module
and function-level imports, relative ones, and the tasks sent by name through ``enqueue``) and
fail on an import from a lower app into a higher one, between two apps of the same floor, or of
another app's private name (``_name``).

A lower app that must ask a higher one registers a hook instead (judge_site/core/gates.py,
core/page_parts.py, ``core.api.register_token_reader``); a piece that both need moves down (core/choices.py,
core/roles.py, core/fragments.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

SITE = Path(__file__).resolve().parents[2] / "judge_site"

# The floors, lowest first: an app may import its own floor's modules only within itself, and
# any app on a floor below. The site's top modules (settings and its parts in config/, urls,
# cli, wsgi, the maintainers' ``python -m`` tools/) sit above all; ``env`` and ``celery`` (the
# process's configuration and Celery app) below all.
LAYERS: list[tuple[str, ...]] = [
    ("env", "celery"),
    ("core",),
    ("worker",),  # the judging engine and what it needs: below every app that judges
    ("accounts",),
    ("catalog",),
    ("submissions",),
    ("hints",),
    ("staff",),
    ("courses",),
    ("lti", "similarity"),
]
TOP = {"settings", "settings_test", "config", "urls", "cli", "wsgi", "tools", "__init__"}

# Upward imports still standing, each with what removes it; the test fails when one goes away
# (delete its line) or a new one comes. (source file below judge_site/, target app). None since
# the judging engine moved to judge_site/worker/ (issue 37 step 4).
KNOWN_UPWARD: dict[tuple[str, str], str] = {}

FLOOR = {app: level for level, apps in enumerate(LAYERS) for app in apps}


def _site_target(dotted: str) -> str | None:
    parts = dotted.split(".")
    return parts[1] if parts[0] == "judge_site" and len(parts) > 1 else None


def _task_names(tree: ast.Module) -> list[str]:
    """The task names a module sends with ``enqueue(name, ...)``: a string, an f-string's
    fixed start, or a module-level constant holding one."""
    constants = {
        target.id: node.value.value
        for node in tree.body if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets if isinstance(target, ast.Name)
    }
    names = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args):
            continue
        func = node.func
        called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if called not in ("enqueue", "_enqueue"):
            continue
        first = node.args[0]
        if isinstance(first, ast.JoinedStr) and first.values:
            first = first.values[0]
        if isinstance(first, ast.Constant) and isinstance(first.value, str):
            names.append(first.value)
        elif isinstance(first, ast.Name) and first.id in constants:
            names.append(constants[first.id])
    return names


def _references(rel: Path, text: str) -> list[tuple[str, str, str, str]]:
    """(file, its app, the app it reaches, what) for each reference of the module at ``rel``
    (below judge_site/) to another part of judge_site/."""
    source = rel.parts[0] if len(rel.parts) > 1 else rel.stem
    tree = ast.parse(text, str(rel))
    package = ["judge_site", *rel.parts[:-1]]
    found = []
    for node in ast.walk(tree):
        targets: list[tuple[str, str]] = []
        if isinstance(node, ast.Import):
            targets = [(alias.name, alias.name.rsplit(".", 1)[-1]) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module or "").split(".")]).strip(".")
            # ``from judge_site import env``: the name is the part reached
            targets = [(f"{module}.{alias.name}" if module == "judge_site" else module, alias.name)
                       for alias in node.names]
        for dotted, name in targets:
            target = _site_target(dotted)
            if target and target != source:
                found.append((str(rel), source, target, f"{dotted} {name}"))
    for task in _task_names(tree):
        app = task.split(".", 1)[0]
        if app != source:
            found.append((str(rel), source, app, f"task {task}"))
    return found


def imports_between_apps() -> list[tuple[str, str, str, str]]:
    """Every reference from one part of judge_site/ to another, migrations left out (frozen
    history)."""
    found = []
    for path in sorted(SITE.rglob("*.py")):
        rel = path.relative_to(SITE)
        if "migrations" not in rel.parts:
            found += _references(rel, path.read_text())
    return found


def test_the_graph_sees_function_level_relative_and_task_imports():
    text = (
        "from . import models\n"
        "from ..courses import selectors\n"
        "from judge_site import env\n"
        "TASK = 'staff.rejudge_item'\n"
        "def send(x):\n"
        "    from judge_site.lti.models import CourseLink\n"
        "    enqueue(TASK, ())\n"
        "    services._enqueue(f'accounts.{x}', ())\n"
        "    enqueue('hints.same_app', ())\n"
    )
    reached = {(target, what) for _, _, target, what in _references(Path("hints/x.py"), text)}
    assert reached == {
        ("courses", "judge_site.courses selectors"),
        ("env", "judge_site.env env"),
        ("lti", "judge_site.lti.models CourseLink"),
        ("staff", "task staff.rejudge_item"),
        ("accounts", "task accounts."),
    }
    edges = {edge[:3] for edge in imports_between_apps()}
    assert ("core/queueing.py", "core", "celery") in edges  # inside a function


def test_apps_import_one_way():
    problems = []
    seen_known = set()
    for rel, source, target, what in imports_between_apps():
        if source in TOP:
            continue
        if target in TOP:
            problems.append(f"{rel}: imports the site's top module {target} ({what})")
            continue
        if source not in FLOOR or target not in FLOOR:
            missing = source if source not in FLOOR else target
            problems.append(f"{rel}: judge_site/{missing} is on no floor: add it to LAYERS")
            continue
        if FLOOR[target] < FLOOR[source]:
            continue
        if (rel, target) in KNOWN_UPWARD:
            seen_known.add((rel, target))
            continue
        side = "beside it on its floor" if FLOOR[target] == FLOOR[source] else "above it"
        problems.append(f"{rel}: {source} imports {target}, {side} ({what}); move the piece "
                        f"down (judge_site/core) or register a hook (core/gates.py)")
    gone = sorted(set(KNOWN_UPWARD) - seen_known)
    problems += [f"{rel} no longer imports {target}: delete its KNOWN_UPWARD line"
                 for rel, target in gone]
    assert not problems, "\n".join(problems)


def test_no_app_imports_another_apps_private_names():
    private = re.compile(r"(^|\.)_[a-z]")
    problems = [
        f"{rel}: {what}" for rel, source, target, what in imports_between_apps()
        if source not in TOP and any(private.search(word) for word in what.split(" ", 1))
        and not what.startswith("task ")
    ]
    assert not problems, "private names of another app:\n" + "\n".join(problems)
