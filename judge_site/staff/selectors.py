"""Reads for the staff pages: a package as its author wrote it, problems with their counts."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from django.db.models import Count, Q, QuerySet

from judge_site.catalog.models import Problem
from judge_site.staff.models import ProblemVersion
from judge_site.submissions.models import Mode, Submission
from sandbox.grader import syntax
from sandbox.grader.manifest import LIMIT_BOUNDS
from sandbox.grader.package import PackageError, load_package


def case_names_static(tests_py: Path) -> list[dict[str, Any]]:
    """Every ``Case(...)`` of tests.py with its name and whether it is public, read from the
    source (the web process has no torch); a name that is not a literal shows as computed."""
    try:
        tree = syntax.parse(tests_py.read_text(), filename=str(tests_py))
    except (OSError, SyntaxError) as exc:
        return [{"name": f"(tests.py unreadable: {exc})", "public": False}]
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Case"):
            continue
        kwargs = {k.arg: k.value for k in node.keywords if k.arg}
        name_node = kwargs.get("name") or (node.args[0] if node.args else None)
        name = (name_node.value if isinstance(name_node, ast.Constant)
                and isinstance(name_node.value, str) else "(computed name)")
        public = kwargs.get("public")
        found.append(((node.lineno, node.col_offset), {
            "name": name,
            "public": isinstance(public, ast.Constant) and public.value is True,
        }))
    return [case for _, case in sorted(found, key=lambda item: item[0])]


def package_view(package_dir: str) -> dict[str, Any]:
    """What the staff package page shows, read-only: statement, starter, limits, tolerances,
    benchmark shapes, public and hidden case names, tagged solutions."""
    try:
        package = load_package(package_dir)
    except PackageError as exc:
        return {"error": str(exc)}
    cases = case_names_static(package.path / "tests.py")
    bench = package.benchmark
    return {
        "error": "",
        "folder": package.folder_name,
        "content_hash": package.version,
        "statement_md": package.statement_md,
        "starter_code": package.starter_code,
        "limits": {key: getattr(package.limits, key) for key in LIMIT_BOUNDS},
        "tolerances": {dtype: {"atol": t.atol, "rtol": t.rtol}
                       for dtype, t in package.tolerances.items()},
        "feedback": {"hidden": str(package.feedback_hidden)},
        "requires": list(package.requires),
        "benchmark_shapes": [
            {"name": s.name, "fn": s.fn, "args": repr(s.args)[:300],
             "baseline": s.baseline or bench.baseline}
            for s in bench.shapes
        ] if bench else [],
        "public_cases": [c["name"] for c in cases if c["public"]],
        "hidden_cases": [c["name"] for c in cases if not c["public"]],
        "solutions": [f"{verdict}/{file.name}" for verdict, file in package.solutions()],
    }


def problems_with_counts() -> QuerySet[Problem]:
    """Problems with ``tried`` (users with a Submit) and ``solved`` (users with an AC Submit)."""
    submits = Q(submissions__mode=Mode.SUBMIT)
    return Problem.objects.annotate(
        tried=Count("submissions__user", filter=submits, distinct=True),
        solved=Count("submissions__user", filter=submits & Q(submissions__verdict="AC"),
                     distinct=True),
    )


def versions_of(number: int) -> QuerySet[ProblemVersion]:
    return ProblemVersion.objects.filter(problem_number=number).order_by("-ordinal")


def version_label(submission: Submission) -> str:
    """"v2" when the hash that judged the submission is an uploaded version, else the hash."""
    version = ProblemVersion.objects.filter(
        problem_number=submission.problem.number, content_hash=submission.problem_version
    ).order_by("-ordinal").first()
    short = submission.problem_version[:12]
    return f"{version.label} ({short})" if version else short
