"""Nothing in the student's sandbox reveals a solution: no kernels package and no file that
defines a problem's function in any sandbox image, no starter or student-like file that
imports kernels, and a file that imports kernels.embedding is not accepted end to end."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import require_image

ROOT = Path(__file__).resolve().parents[2]
PROBLEMS = sorted(p for p in (ROOT / "problems").iterdir() if (p / "problem.toml").is_file())
FUNCTIONS = sorted(
    {fn for p in PROBLEMS for fn in tomllib.loads((p / "problem.toml").read_text())["functions"]}
)


def _reference_headers() -> dict[str, list[str]]:
    """Each problem function's reference signature (``def name(...) -> ...:`` as written in
    kernels/), the whitespace removed. A file that holds one holds the reference; a file that
    only defines a function of the same name does not (``random.sample`` is no solution to 74)."""
    headers: dict[str, list[str]] = {}
    for module in sorted((ROOT / "kernels").glob("*.py")):
        lines = module.read_text().splitlines()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if isinstance(node, ast.FunctionDef) and node.name in FUNCTIONS:
                header = "".join(lines[node.lineno - 1 : node.body[0].lineno - 1])
                headers.setdefault(node.name, []).append("".join(header.split()))
    return headers


REFERENCE_HEADERS = _reference_headers()
# Trees a scan of an image skips: the libraries themselves (torch's own code is no solution).
LIBRARY_TREES = ("/site-packages/torch/", "/site-packages/numpy/", "/opt/triton/")

SCAN = r"""
import json, os, re, sys
headers = json.loads(sys.argv[1])
wanted = set(headers)
defined = re.compile(rb"def ([A-Za-z_][A-Za-z_0-9]*)\(")
blank = bytes(range(33))
top = sys.argv[3] if len(sys.argv) > 3 else "/"
skip = tuple(json.loads(sys.argv[2]))
found, kernels = [], []
for root, dirs, files in os.walk(top, onerror=lambda e: None):
    if root in ("/proc", "/sys", "/dev"):
        dirs[:] = []
        continue
    if any(tree in root + "/" for tree in skip):
        continue  # torch's own "kernels" folders (CUDA, MPS sources) are no solution
    for name in dirs + files:
        if name == "kernels" or name.startswith("kernels."):
            kernels.append(os.path.join(root, name))
    for name in files:
        path = os.path.join(root, name)
        try:
            if os.path.islink(path) or os.path.getsize(path) > (64 << 20):
                continue
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        # One pass for every "def NAME(" (a scan per function read each file 60 times: 7 CPU-s
        # an image); the headers are compared only where a problem's function is defined.
        named = {m.decode() for m in defined.findall(data)} & wanted
        if named:
            squeezed = data.translate(None, blank)
            for fn in sorted(named):
                if any(h.encode() in squeezed for h in headers[fn]):
                    found.append((path, fn))
print(json.dumps({"found": found, "kernels": kernels}))
"""


def _starter_like_files() -> list[Path]:
    """Files a student writes in Python: every starter and every tagged solution of the catalog
    (a CUDA C++ problem's starter.cu and .cu files import no Python module)."""
    files = [p / "starter.py" for p in PROBLEMS if not (p / "starter.cu").is_file()]
    files += [f for p in PROBLEMS for f in sorted((p / "solutions").rglob("*.py"))]
    return files


def _imports_kernels(tree: ast.AST) -> bool:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "kernels" for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "kernels":
            return True
    return False


@pytest.mark.parametrize("file", _starter_like_files(), ids=lambda p: str(p.relative_to(ROOT / "problems")))
def test_no_starter_or_tagged_solution_imports_kernels(file: Path) -> None:
    """A starter (and a known-good or known-bad submission) is a student's file: it cannot
    import the kernels package, which no sandbox holds."""
    assert not _imports_kernels(ast.parse(file.read_text(), filename=str(file))), file


def test_the_image_scan_finds_a_reference_copy_and_not_a_namesake(tmp_path: Path) -> None:
    """The scan below is only worth its green if it would see a reformatted copy of a
    reference, and only usable if a library's own ``def sample(`` is not one."""
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "random_like.py").write_text("def sample(population, k):\n    return population[:k]\n")
    copy = (ROOT / "kernels" / "sampling.py").read_text().replace("    ", "\t")
    (tmp_path / "lib" / "hidden_copy.py").write_text(copy)
    out = subprocess.run(
        [sys.executable, "-c", SCAN, json.dumps(REFERENCE_HEADERS), json.dumps(LIBRARY_TREES), str(tmp_path)],
        capture_output=True, text=True, timeout=60, check=True,
    )
    found = {(Path(path).name, fn) for path, fn in json.loads(out.stdout.strip().splitlines()[-1])["found"]}
    assert ("hidden_copy.py", "sample") in found and ("hidden_copy.py", "sampling_probs") in found
    assert not any(name == "random_like.py" for name, _ in found), found
    assert set(REFERENCE_HEADERS) == set(FUNCTIONS), "every problem function has a reference in kernels/"


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize("image", ["tensor-judge-sandbox:cpu", "tensor-judge-sandbox:triton"])
def test_no_file_of_a_sandbox_image_defines_a_problems_function(
    docker_client: Any, image: str
) -> None:
    require_image(image)
    out = docker_client.containers.run(
        image,
        ["python3", "-c", SCAN, json.dumps(REFERENCE_HEADERS), json.dumps(LIBRARY_TREES)],
        remove=True,
        network_mode="none",
        user="0:0",
        labels={"tensor-judge.test": "image-scan"},
    )
    report = json.loads(out.decode().strip().splitlines()[-1])
    assert report["kernels"] == [], report["kernels"]
    assert report["found"] == [], report["found"]


@pytest.mark.docker
@pytest.mark.slow
def test_manage_py_judge_of_a_file_importing_kernels_is_not_accepted(
    docker_client: Any, sandbox_image: str, tmp_path: Path
) -> None:
    """The issue's one-line cheat, end to end through the command tooling uses."""
    cheat = tmp_path / "cheat.py"
    cheat.write_text("from kernels.embedding import embed, last_token_logits, pad_batch\n")
    env = {**os.environ, "DEBUG": "true", "JUDGE_BACKEND": "docker", "JUDGE_SANDBOX_IMAGE": sandbox_image}
    proc = subprocess.run(
        [sys.executable, "manage.py", "judge", "48", str(cheat), "--mode", "submit", "--json"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout)
    assert result["verdict"] == "CE", proc.stdout[:1000]
    assert "No module named 'kernels'" in result["message"], result["message"][:1000]
