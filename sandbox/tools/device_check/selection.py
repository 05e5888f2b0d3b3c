"""What the device check judges: the GPU problems' known files (problem.toml, solutions/)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sandbox.grader.manifest import DEVICES, choice_of, field_of, requires_of


# ---------------------------------------------------------------- what to judge
@dataclass
class Item:
    problem: Path  # the package folder
    path: Path  # the judged file
    expected: str  # AC, WA, TLE...
    repeat: bool  # judged --repeat times (AC and references) or once (the others)
    runs: list[dict[str, Any]] = field(default_factory=list)
    skipped: str = ""  # why it was not judged at all

    @property
    def label(self) -> str:
        number = self.problem.name.split("-", 1)[0]
        if self.path.name == "solution.py" and self.path.parent == self.problem:
            return f"{number}/solution.py"
        return f"{number}/{self.path.parent.name}/{self.path.name}"


def manifest(folder: Path) -> dict[str, Any]:
    with open(folder / "problem.toml", "rb") as f:
        return tomllib.load(f)


def needs_triton(folder: Path) -> bool:
    return "triton" in requires_of(manifest(folder), folder / "problem.toml")


def is_gpu_problem(data: dict[str, Any], where: Path | str = "problem.toml") -> bool:
    device = choice_of(data, "device", DEVICES, where)
    return device in ("gpu", "any") or "triton" in requires_of(data, where)


def gpu_problems(root: Path, numbers: set[int] | None = None) -> list[Path]:
    found = []
    for toml in sorted((root / "problems").glob("*/problem.toml")):
        data = manifest(toml.parent)
        if numbers is not None:
            if field_of(data, "number", int, toml) in numbers:
                found.append(toml.parent)
        elif is_gpu_problem(data, toml):
            found.append(toml.parent)
    return found


def select(problems: list[Path], others: int) -> list[Item]:
    """The reference and every AC file of each problem (repeated), then up to ``others`` files
    of each other verdict folder among WA and TLE (once)."""
    items: list[Item] = []
    for folder in problems:
        if (folder / "solution.py").is_file():
            items.append(Item(folder, folder / "solution.py", "AC", True))
        items += [Item(folder, f, "AC", True) for f in sorted(folder.glob("solutions/AC/*.py"))]
        for verdict in ("WA", "TLE"):
            files = sorted(folder.glob(f"solutions/{verdict}/*.py"))[:others]
            items += [Item(folder, f, verdict, False) for f in files]
    return items


def item_for_file(path: Path) -> Item:
    """An explicit file: .../problems/NNN-x/solution.py or .../solutions/<VERDICT>/x.py."""
    path = path.resolve()
    if path.name == "solution.py" and (path.parent / "problem.toml").is_file():
        return Item(path.parent, path, "AC", True)
    folder = path.parent.parent.parent
    if path.parent.parent.name != "solutions" or not (folder / "problem.toml").is_file():
        raise SystemExit(f"{path}: not a problem's solution.py nor solutions/<VERDICT>/*.py")
    verdict = path.parent.name
    return Item(folder, path, verdict, verdict == "AC")
