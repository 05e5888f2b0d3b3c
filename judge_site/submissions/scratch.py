"""The scratchpad's site side: what a script may be, its keys in the API's JSON, and its
starter snippets.

A scratch run (Mode.SCRATCH) is the student's code plus a few lines of their own, judged by the
kind "scratch" of the one judging loop (sandbox/grader/kinds/scratch.py). The snippets are starting
points the problem page offers: make an input and print it, time a call, compare with torch's
own functions. They call the problem's first function with made-up arguments named as in its
starter's signature (read with ``ast``, never run here), and the chapter picks the inputs and
the torch function to compare with.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from judge_site.catalog.models import Problem
from judge_site.catalog.services import code_text_problem
from judge_site.submissions.models import Mode, Submission
from sandbox.grader import syntax
from sandbox.grader.contracts import SCRATCH_OUTPUT_CHARS, scratch_refusal
from sandbox.grader.manifest import harness_of


def script_refused(mode: str, script: object) -> str:
    """'' when ``script`` may go with a submission of ``mode`` (a scratch run's: text, not
    blank, under the code's cap; no other mode takes one), else why not."""
    if mode != Mode.SCRATCH:
        return "" if script is None else "a script is run with mode 'scratch' only"
    if not isinstance(script, str) or not script.strip():
        return "the script is empty: write a few lines that call your code and print"
    return code_text_problem(script, "the script")


def problem_refuses_scratch(problem: Problem) -> str:
    """Why ``problem`` has no scratchpad (a practice problem whose tests are a C++ program:
    its file is not Python), or ""."""
    return scratch_refusal(harness_of(problem.manifest or {}))


def scratch_json(submission: Submission) -> dict[str, Any]:
    """A scratch run's own keys in the API: its script, and what it printed (``output``: ''
    until done; cut at SCRATCH_OUTPUT_CHARS with a note, ``output_truncated`` then true)."""
    tests = submission.tests or []
    details = tests[0].get("details") if tests and isinstance(tests[0], dict) else None
    return {
        "script": submission.script,
        "output": submission.output,
        "output_truncated": bool(isinstance(details, dict) and details.get("truncated")),
        "output_limit_chars": SCRATCH_OUTPUT_CHARS,
    }


@dataclass(frozen=True)
class Snippet:
    key: str
    label: str
    text: str


# A made-up argument per parameter name found in the starters (small: the output shows them
# whole); anything else gets a small float tensor and a comment saying to fix it.
_ARGUMENTS = {
    "x": "torch.randn(2, 8)",
    "hidden": "torch.randn(3, 8)",
    "hidden_states": "torch.randn(2, 3, 8)  # (layers, tokens, dim)",
    "residual": "torch.randn(2, 8)",
    "weight": "torch.randn(16, 8)  # (vocab or out features, dim)",
    "norm_weight": "torch.ones(8)",
    "bias": "torch.zeros(8)",
    "w_gate": "torch.randn(16, 8)  # (hidden, dim)",
    "w_up": "torch.randn(16, 8)  # (hidden, dim)",
    "w_down": "torch.randn(8, 16)  # (dim, hidden)",
    "ids": "torch.tensor([1, 5, 0, 7])",
    "token_ids": "torch.tensor([1, 5, 0, 7])",
    "targets": "torch.tensor([1, 5, 0])",
    "grad_output": "torch.randn(4, 8)  # one row per id",
    "grad_out": "torch.randn(2, 8)",
    "cu_seqlens": "torch.tensor([0, 2, 3])  # 2 sequences: tokens 0-1 and 2",
    "shards": "list(torch.randn(16, 8).chunk(2))  # the table split in 2",
    "logits": "torch.randn(2, 16)",
    "mask": "torch.tensor([[1, 1, 0], [1, 1, 1]])",
    "experts": "torch.tensor([[0, 1], [2, 3], [1, 0]])  # (tokens, k) expert ids",
    "lengths": "torch.tensor([3, 4])",
    "k": "2",
    "window": "2",
    "num_embeddings": "16",
    "pad_id": "0",
    "eps": "1e-6",
    "temperature": "1.0",
    "seed": "0",
    "num_samples": "4",
    "group_size": "4",
    "num_experts": "4",
    "capacity": "2",
}
# Per chapter: arguments whose meaning differs there, and torch's own take on the idea.
_HEADS = "torch.randn(1, 2, 4, 8)  # (batch, heads, tokens, head_dim)"
_CHAPTERS: dict[str, tuple[dict[str, str], str]] = {
    "Attention": (
        {"q": _HEADS, "k": _HEADS, "v": _HEADS, "x": _HEADS, "grad_out": _HEADS},
        "torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)",
    ),
    "Norms and the MLP": (
        {"weight": "torch.ones(8)"},
        "torch.nn.functional.rms_norm(x, (x.shape[-1],), weight, eps=1e-6)",
    ),
    "Decoding and sampling": ({}, "torch.softmax(logits, dim=-1)"),
    "Embedding and output layers": ({}, "torch.nn.functional.embedding(ids, weight)"),
    "Mixture of experts": (
        {"logits": "torch.randn(3, 4)  # (tokens, experts)", "x": "torch.randn(3, 8)"},
        "torch.topk(torch.softmax(logits, dim=-1), 2, dim=-1).values",
    ),
    "Quantization": ({}, "x.to(torch.bfloat16).float()"),
    "Triton kernels": ({}, "torch.softmax(x, dim=-1)"),
}
_FALLBACK_ARGUMENT = "torch.randn(2, 8)  # the shape and dtype the statement asks for"


def _first_function(starter: str) -> tuple[str, list[str], str] | None:
    """(name, required parameters, signature line) of the starter's first public function
    (not a Triton ``*_kernel``, not ``_private``); None when it has none or does not parse."""
    try:
        tree = syntax.parse(starter)
    except (SyntaxError, ValueError):
        return None
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        if node.name.startswith("_") or node.name.endswith("_kernel"):
            continue
        positional = node.args.posonlyargs + node.args.args
        required = [a.arg for a in positional[: len(positional) - len(node.args.defaults)]]
        names = [a.arg for a in positional]
        return node.name, required, f"def {node.name}({', '.join(names)})"
    return None


def snippets_for(problem: Problem) -> list[Snippet]:
    """The starter snippets of ``problem``'s scratchpad, first the one the page opens with."""
    found = _first_function(problem.starter_code or "")
    overrides, torch_version = _CHAPTERS.get(problem.chapter, ({}, ""))
    if found is None:
        hello = "import torch\n\ntorch.manual_seed(0)\nx = torch.randn(2, 3)\nprint(x)\n"
        return [Snippet("input", "Make an input and print it", hello)]
    name, required, signature = found
    lines = [
        f"{p} = {overrides.get(p) or _ARGUMENTS.get(p) or _FALLBACK_ARGUMENT}" for p in required
    ]
    head = "\n".join(["import torch", "", f"# your function: {signature}",
                      "# made-up arguments: give them the shapes and dtypes the statement asks for",
                      "torch.manual_seed(0)", *lines])
    call = f"{name}({', '.join(required)})"
    make = f"{head}\nout = {call}\nprint(out)\n"
    timing = (
        f"import time\n\n{head}\n{call}  # once before timing: the first call pays set-up costs\n"
        "runs = 20\nstart = time.perf_counter()\nfor _ in range(runs):\n"
        f"    {call}\nelapsed = time.perf_counter() - start\n"
        'print(f"{1e3 * elapsed / runs:.3f} ms per call (wall clock, on the judge\'s CPU)")\n'
    )
    # The chapter's torch call where it reads only this function's arguments, else a line to
    # fill in (comparing with itself until then: the snippet runs as it is).
    names = {n.id for n in ast.walk(syntax.parse(torch_version)) if isinstance(n, ast.Name)}
    usable = torch_version and names <= {"torch", *required}
    expected = torch_version if usable else "out  # write torch's own computation of it here"
    compare = (
        f"{head}\nout = {call}\n"
        "# torch's own take on this chapter's idea: edit it to say what the statement says\n"
        "# (a function that returns several results: compare them one by one, out[0], ...)\n"
        f"expected = {expected}\n"
        "torch.testing.assert_close(out, expected)  # raises, saying where, when they differ\n"
        'print("close to torch\'s own result")\n'
    )
    return [
        Snippet("input", "Make an input and print it", make),
        Snippet("time", "Time a call", timing),
        Snippet("compare", "Compare with torch", compare),
    ]
