"""The one way a function is called and observed: on clones of its arguments, with gradients
where asked, exceptions turned into observations with the submission's frames only.

Used by the runner (student code, inside the sandbox) and by the grader (reference code), so
both sides observe a call with the same semantics (the same module on both sides)."""

from __future__ import annotations

import builtins
import io
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any

import torch

from sandbox.runner.tensors import map_tree, same_layout


def _clone(value: Any) -> Any:
    # a test's transposed or expanded input stays that way
    return map_tree(value, lambda v: same_layout(v) if isinstance(v, torch.Tensor) else v)


# Captured at import, before any student code runs in the sandbox (a patched torch.equal
# would otherwise hide in-place modification; the grader never relies on this alone).
_equal = torch.equal


def _same_bits(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.numel() == 0:
        return True
    if a.dtype == torch.bool:
        return bool(_equal(a, b))
    a8 = a.detach().contiguous().reshape(-1).view(torch.uint8)
    b8 = b.detach().contiguous().reshape(-1).view(torch.uint8)
    return bool(_equal(a8, b8))


def _modified(before: Any, after: Any, path: str, found: list[str]) -> None:
    if isinstance(before, torch.Tensor):
        if not isinstance(after, torch.Tensor) or not _same_bits(before, after):
            found.append(path)
    elif type(before) in (list, tuple):
        if type(after) is not type(before) or len(after) != len(before):
            found.append(path)
            return
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            _modified(b, a, f"{path}[{i}]", found)
    elif type(before) is dict:
        if type(after) is not dict or set(after) != set(before):
            found.append(path)
            return
        for k in before:
            _modified(before[k], after[k], f"{path}[{k!r}]", found)


def trim_traceback(exc: BaseException, filename: str | tuple[str, ...] | None) -> str:
    """The traceback limited to frames in ``filename`` (the submission), with its line numbers;
    several files (a scratch script and the submission) keep their frames named by base name."""
    frames = traceback.extract_tb(exc.__traceback__)
    files = (filename,) if isinstance(filename, str) else filename
    if files is not None:
        frames = traceback.StackSummary.from_list([f for f in frames if f.filename in files])
    lines = []
    for f in frames:
        name = (
            "submission.py" if isinstance(filename, str)
            else os.path.basename(f.filename) if files else f.filename
        )
        lines.append(f'  File "{name}", line {f.lineno}, in {f.name}')
        if f.line:
            lines.append(f"    {f.line.strip()}")
    text = "Traceback (most recent call last):\n" if lines else ""
    text += "\n".join(lines) + ("\n" if lines else "")
    return text + "".join(traceback.format_exception_only(type(exc), exc)).strip()


def _exception_name(cls: type) -> str:
    """A class's name, qualified by its module when it borrows the name of one of Python's own
    exceptions without being it (``class IndexError(Exception)`` is not an IndexError)."""
    name = cls.__name__
    own = getattr(builtins, name, None)
    if isinstance(own, type) and issubclass(own, BaseException) and own is not cls:
        return f"{cls.__module__}.{cls.__qualname__}"[:200]
    return name


def exception_observation(
    exc: BaseException, filename: str | tuple[str, ...] | None
) -> dict[str, Any]:
    return {
        "kind": "raise",
        "type": _exception_name(type(exc)),
        "mro": [_exception_name(c) for c in type(exc).__mro__],
        "message": str(exc)[:2000],
        "traceback": trim_traceback(exc, filename)[-4000:],
    }


def execute_call(
    fn: Callable[..., Any],
    call_args: list[Any] | tuple[Any, ...],
    call_kwargs: dict[str, Any],
    grad_wrt: list[int] | tuple[int, ...] = (),
    grad_seed: int = 0,
    filename: str | None = None,
) -> dict[str, Any]:
    """Call ``fn`` on clones of the arguments and observe what happened.

    Returns ``{"kind": "return", "value", "inputs_modified": [paths], "grads": [...] | None}``
    or ``{"kind": "raise", "type", "mro", "message", "traceback"}``. With ``grad_wrt``, those
    positional tensor arguments get ``requires_grad``; the (tensor) result is backpropagated
    with a ``grad_output`` drawn from ``grad_seed``; ``grads`` lists each argument's gradient
    (None where none flowed). ``filename`` limits tracebacks to that file's frames.
    """
    originals = (_clone(list(call_args)), _clone(call_kwargs))
    args = _clone(list(call_args))
    kwargs = _clone(call_kwargs)
    for i in grad_wrt:
        if not (0 <= i < len(args) and isinstance(args[i], torch.Tensor)):
            raise ValueError(f"grad_wrt index {i} is not a tensor argument")
        args[i] = args[i].requires_grad_(True)
    try:
        result = fn(*args, **kwargs)
        grads: list[Any] | None = None
        if grad_wrt:
            if not isinstance(result, torch.Tensor) or not result.requires_grad:
                grads = [None for _ in grad_wrt]
            else:
                gen = torch.Generator().manual_seed(int(grad_seed) & 0x7FFF_FFFF_FFFF_FFFF)
                grad_out = torch.randn(tuple(result.shape), generator=gen, dtype=torch.float32)
                grad_out = grad_out.to(dtype=result.dtype, device=result.device)
                if result.is_complex():
                    result.backward(grad_out)
                else:
                    # The same gradients as result.backward(grad_out) (d/d result of
                    # sum(result * grad_out) is grad_out, exactly), without backward's check
                    # of an explicit gradient's shape: its first use imports sympy, 0.3-0.4
                    # CPU-s of every sandbox's start (the warm-up below makes a backward).
                    (result * grad_out).sum().backward()
                grads = [args[i].grad for i in grad_wrt]
    except BaseException as exc:  # noqa: B036 - SystemExit and the like are observations too
        if isinstance(exc, KeyboardInterrupt):
            raise
        return exception_observation(exc, filename)
    for i in grad_wrt:
        args[i] = args[i].detach()
    found: list[str] = []
    _modified(originals[0], args, "args", found)
    _modified(originals[1], kwargs, "kwargs", found)
    if isinstance(result, torch.Tensor) and type(result) is torch.Tensor:
        result = result.detach()
    return {"kind": "return", "value": result, "inputs_modified": found, "grads": grads}


class _Kept(io.TextIOBase):
    """A text stream that keeps the first ``limit`` characters written to it and counts all."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, limit)
        self.parts: list[str] = []
        self.kept = 0
        self.total = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        text = str(text)
        room = self.limit - self.kept
        if room > 0:
            piece = text[:room]
            self.parts.append(piece)
            self.kept += len(piece)
        self.total += len(text)
        return len(text)


def run_script(
    source: str, namespace: dict[str, Any], filename: str, keep: int, files: tuple[str, ...]
) -> dict[str, Any]:
    """Run a scratch script (sandbox/grader/kinds/scratch.py) in ``namespace`` (the submission's names),
    written to ``filename`` first so that its tracebacks show its lines. What it prints through
    ``sys.stdout``/``sys.stderr`` goes into one bounded buffer, never to the sandbox's output
    file: ``output`` is the first ``keep`` characters, ``printed_chars`` how many there were.
    ``error``: the exception that ended it (frames of ``files`` only), None when it ran to its
    end (``SystemExit`` included)."""
    with open(filename, "w", encoding="utf-8") as f:
        f.write(source)
    kept = _Kept(keep)
    saved = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = kept
    error: dict[str, Any] | None = None
    try:
        exec(compile(source, filename, "exec"), namespace)  # noqa: S102 - the sandbox's purpose
    except SystemExit:
        pass
    except BaseException as exc:  # noqa: B036 - the script's fault is an observation
        if isinstance(exc, KeyboardInterrupt):
            raise
        error = exception_observation(exc, files)
    finally:
        sys.stdout, sys.stderr = saved
    return {"output": "".join(kept.parts), "printed_chars": kept.total, "error": error}
