"""A seeded class for the similarity tests and scripts/bench_similarity (no Django here).

Every student writes each problem's functions on their own: the starter's signatures (from the
real package's starter.py) with bodies drawn at random from a small grammar of tensor code, now
and then one function as a real accepted solution of the package writes it
(problems/*/solutions/AC), plus a helper or two of their own. Most of the class also pastes the
same validation helper (the problem's boilerplate: in more than half of the documents).

Then ``PLANTED`` copies: a student hands in another's code for a problem with every name
renamed, the functions reordered and the whole file reformatted (spacing, line breaks,
comments, quotes).
"""

from __future__ import annotations

import ast
import builtins
import io
import keyword
import random
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

from sandbox.grader import syntax

ROOT = Path(__file__).resolve().parents[2]
PROBLEM_DIRS = [
    "048-embedding-tied-head-padding", "049-embedding-backward-scatter-add",
    "050-packed-lm-head-prefill-decode", "051-vocab-parallel-embedding-head",
    "065-fused-add-rmsnorm", "066-layernorm-backward", "067-swiglu-ffn",
    "068-prenorm-residual-stream", "071-float32-to-bfloat16-rounding",
    "072-moe-topk-routing",
]
PLANTED = 5

TORCH = ["sum", "mean", "amax", "cumsum", "softmax", "log_softmax", "matmul", "where", "clamp",
         "flip", "argmax", "gather", "index_select", "zeros_like", "ones_like", "full", "arange",
         "exp", "log", "sqrt", "rsqrt", "tanh", "sigmoid", "relu", "stack", "cat", "einsum",
         "bmm", "norm", "var", "abs", "maximum", "minimum", "isfinite", "nonzero", "topk", "sort",
         "bincount", "outer", "tril"]
METHODS = ["sum", "mean", "view", "reshape", "float", "to", "size", "unsqueeze", "squeeze",
           "transpose", "contiguous", "clone", "detach", "masked_fill", "expand", "flatten",
           "tolist", "any", "all", "int", "long", "bool", "new_zeros", "new_full", "pow", "amax",
           "argmax", "cumsum", "scatter_add", "index_add"]
KWARGS = ["dim", "keepdim", "dtype", "out", "descending", "k", "value", "min", "max", "eps"]
BINOPS = ["+", "-", "*", "/", "@", "//", "%", "**"]
COMPARES = ["<", "<=", ">", ">=", "==", "!="]
EXCEPTIONS = ["ValueError", "IndexError", "TypeError", "RuntimeError"]
BOILERPLATE = '''
def _as_tensor(value, name, ndim=None):
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    if ndim is not None and value.dim() != ndim:
        raise ValueError(f"{name} must have {ndim} dimensions, got {value.dim()}")
    return value
'''


@dataclass(frozen=True)
class Problem:
    number: int
    starter: str
    imports: str
    signatures: list[str]  # "def name(params):" lines of the starter
    real: dict[str, list[str]]  # function name -> its accepted solutions' sources


@dataclass(frozen=True)
class Planted:
    problem: int
    original: str  # the student copied from
    copier: str


@dataclass(frozen=True)
class SeededClass:
    problems: list[Problem]
    students: list[str]
    code: dict[tuple[str, int], str]  # (student, problem number) -> the accepted code
    planted: list[Planted]


def load_problem(folder: str) -> Problem:
    path = ROOT / "problems" / folder
    number = int(folder.split("-", 1)[0])
    starter = (path / "starter.py").read_text()
    tree = syntax.parse(starter)
    imports = "\n".join(ast.get_source_segment(starter, n) or "" for n in tree.body
                        if isinstance(n, ast.Import | ast.ImportFrom))
    signatures = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            segment = ast.get_source_segment(starter, node) or ""
            signatures.append(segment.split(":\n", 1)[0] + ":")
    real: dict[str, list[str]] = {}
    for solution in sorted((path / "solutions" / "AC").glob("*.py")):
        source = solution.read_text()
        for node in syntax.parse(source).body:
            if isinstance(node, ast.FunctionDef):
                real.setdefault(node.name, []).append(ast.get_source_segment(source, node) or "")
    return Problem(number, starter, imports, signatures, real)


class Writer:
    """One student's habits: their own names and their own way with the grammar."""

    def __init__(self, rng: random.Random, params: list[str]):
        self.rng = rng
        self.names = params + [f"{rng.choice('abcdefghkmnpqrstuvwxyz')}{i}" for i in range(4)]

    def atom(self) -> str:
        r = self.rng.random()
        if r < 0.55:
            return self.rng.choice(self.names)
        if r < 0.75:
            return str(self.rng.choice([0, 1, 2, -1, 3, 0.5, 1e-6, 4, 8]))
        if r < 0.9:
            return f"{self.rng.choice(self.names)}.shape[{self.rng.randint(-2, 2)}]"
        return f"{self.rng.choice(self.names)}.{self.rng.choice(['dtype', 'device', 'T', 'ndim'])}"

    def receiver(self, depth: int) -> str:
        """What a method is called on or indexed: a name or a call, never a bare number."""
        if depth <= 0 or self.rng.random() < 0.6:
            return self.rng.choice(self.names)
        return f"torch.{self.rng.choice(TORCH)}({self.expr(depth - 1)})"

    def expr(self, depth: int = 2) -> str:
        if depth <= 0:
            return self.atom()
        pick = self.rng.random()
        if pick < 0.3:
            args = [self.expr(depth - 1) for _ in range(self.rng.randint(1, 2))]
            if self.rng.random() < 0.5:
                args.append(f"{self.rng.choice(KWARGS)}={self.atom()}")
            return f"torch.{self.rng.choice(TORCH)}({', '.join(args)})"
        if pick < 0.5:
            args = [self.expr(depth - 1) for _ in range(self.rng.randint(0, 2))]
            return f"{self.receiver(depth - 1)}.{self.rng.choice(METHODS)}({', '.join(args)})"
        if pick < 0.75:
            return f"{self.expr(depth - 1)} {self.rng.choice(BINOPS)} {self.expr(depth - 1)}"
        if pick < 0.9:
            index = self.rng.choice([self.expr(depth - 1), ":, " + self.atom(), "..., :" + self.atom()])
            return f"{self.receiver(depth - 1)}[{index}]"
        return f"({self.expr(depth - 1)})"

    def statements(self, indent: str, count: int, depth: int = 0) -> list[str]:
        out: list[str] = []
        for _ in range(count):
            pick = self.rng.random()
            target = self.rng.choice(self.names)
            if pick < 0.4 or depth >= 2:
                out.append(f"{indent}{target} = {self.expr()}")
            elif pick < 0.5:
                out.append(f"{indent}{target} {self.rng.choice(BINOPS[:4])}= {self.expr(1)}")
            elif pick < 0.65:
                out.append(f"{indent}if {self.expr(1)} {self.rng.choice(COMPARES)} {self.expr(1)}:")
                if self.rng.random() < 0.5:
                    out.append(f'{indent}    raise {self.rng.choice(EXCEPTIONS)}("{target} is wrong")')
                else:
                    out += self.statements(indent + "    ", self.rng.randint(1, 2), depth + 1)
            elif pick < 0.8:
                out.append(f"{indent}for {target} in range({self.expr(1)}):")
                out += self.statements(indent + "    ", self.rng.randint(1, 2), depth + 1)
            elif pick < 0.9:
                loop = self.rng.choice(self.names)
                out.append(f"{indent}{target} = [{self.expr(1)} for {loop} in {self.expr(1)}]")
            else:
                other = self.rng.choice(self.names)
                out.append(f"{indent}{target}, {other} = {self.expr(1)}, {self.expr(1)}")
        return out

    def function(self, signature: str, count: int) -> str:
        lines = [signature] + self.statements("    ", count)
        lines.append(f"    return {self.expr(1)}")
        return "\n".join(lines)


def _params(signature: str) -> list[str]:
    inside = signature[signature.index("(") + 1 : signature.rindex(")")]
    names = [p.split(":")[0].split("=")[0].strip().lstrip("*") for p in inside.split(",")]
    return [n for n in names if n and n != "/"]


_COMPOUND = (ast.If, ast.For, ast.While, ast.With, ast.Try, ast.FunctionDef)


def vary(rng: random.Random, function: str) -> str:
    """A real accepted function as another student writes it: the same approach (its ifs and
    loops), about half of its simple statements written their own way and a few of their own
    added (the function stays valid Python; correctness is not the point here)."""
    node = syntax.parse(function).body[0]
    assert isinstance(node, ast.FunctionDef)
    lines = function.split("\n")
    writer = Writer(rng, [a.arg for a in node.args.args])
    last = node.body[-1]
    leaves = [
        stmt for stmt in ast.walk(node)
        if isinstance(stmt, ast.stmt) and not isinstance(stmt, _COMPOUND) and stmt is not last
        and not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        and lines[stmt.lineno - 1][: stmt.col_offset].strip() == ""
    ]
    for stmt in sorted(leaves, key=lambda s: s.lineno, reverse=True):  # lines above stay put
        first, end = stmt.lineno - 1, (stmt.end_lineno or stmt.lineno)
        indent = " " * stmt.col_offset
        if rng.random() < 0.5:
            lines[first:end] = writer.statements(indent, rng.randint(1, 2), depth=2)
        elif rng.random() < 0.3:
            lines[first:first] = writer.statements(indent, 1, depth=2)
    return "\n".join(lines)


def write_solution(rng: random.Random, problem: Problem) -> str:
    """One student's own code for ``problem``."""
    functions = []
    real_for = rng.choice(problem.signatures) if rng.random() < 0.5 else None
    for signature in problem.signatures:
        name = signature.split("(", 1)[0].split()[-1]
        if signature == real_for and problem.real.get(name):
            functions.append(vary(rng, rng.choice(problem.real[name])))
        else:
            functions.append(Writer(rng, _params(signature)).function(signature, rng.randint(3, 6)))
    for i in range(rng.randint(1, 2)):
        own = f"def _{rng.choice(['step', 'part', 'piece', 'inner'])}{i}(x, y):"
        functions.append(Writer(rng, ["x", "y"]).function(own, rng.randint(3, 5)))
    if rng.random() < 0.85:
        functions.append(BOILERPLATE.strip())
    rng.shuffle(functions)
    return problem.imports + "\n\n\n" + "\n\n\n".join(functions) + "\n"


def disguise(rng: random.Random, source: str) -> str:
    """``source`` as a copier hands it in: every name they may rename renamed, the top-level
    functions in another order, the file reformatted with comments added."""
    imported = set(re.findall(r"\b(?:import|as)\s+(\w+)", source)) | {"torch", "F", "math"}
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    renamed: dict[str, str] = {}
    out = []
    previous = ""
    depth = 0
    for i, tok in enumerate(tokens):
        kind, text = tok.type, tok.string
        depth += text in "([{" and kind == tokenize.OP
        depth -= text in ")]}" and kind == tokenize.OP
        keyword_argument = depth > 0 and i + 1 < len(tokens) and tokens[i + 1].string == "="
        if (kind == tokenize.NAME and not keyword.iskeyword(text) and previous != "."
                and not keyword_argument
                and text not in imported and text not in dir(builtins) and text != "self"):
            text = renamed.setdefault(text, f"q{len(renamed)}_{rng.randint(10, 99)}")
        elif kind == tokenize.STRING and text.startswith('"') and '"' not in text[1:-1] \
                and "'" not in text:
            text = "'" + text[1:-1] + "'"
        elif kind == tokenize.COMMENT:
            continue
        out.append((kind, text))
        previous = tok.string
    reformatted = tokenize.untokenize(out)
    blocks = re.split(r"\n(?=(?:def |@))", reformatted)
    head, functions = blocks[0], blocks[1:]
    functions.reverse()
    commented = []
    for block in functions:
        lines = block.rstrip().split("\n")
        lines.insert(1, "    # my own approach, see the lecture notes")
        commented.append("\n".join(lines))
    return head.rstrip() + "\n\n# solution\n\n" + "\n\n\n\n".join(commented) + "\n"


def seeded_class(students: int = 200, seed: int = 40) -> SeededClass:
    rng = random.Random(seed)
    problems = [load_problem(folder) for folder in PROBLEM_DIRS]
    names = [f"student{i:03d}" for i in range(students)]
    code = {(name, p.number): write_solution(rng, p) for p in problems for name in names}
    planted = []
    pool = list(names)
    rng.shuffle(pool)
    for i in range(PLANTED):
        problem = problems[(i * 3) % len(problems)]
        original, copier = pool[2 * i], pool[2 * i + 1]
        code[(copier, problem.number)] = disguise(rng, code[(original, problem.number)])
        planted.append(Planted(problem.number, original, copier))
    return SeededClass(problems, names, code, planted)
