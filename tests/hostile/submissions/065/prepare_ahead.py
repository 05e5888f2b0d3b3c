"""Problem 65, correct answers, but the forward's work is done while the timed inputs are
prepared: it wraps the runner's input builder (an untimed request) to compute the residual
sum and its normalised rows there, kept by the identity of ``x``; the timed call only scales
them by the weight (the argument drawn late, by the time request itself). Issue 36 measured
it credited x3.98 on that shape and 2.08 overall (honest: about 1.0), first on the board.
Expected: AC (its outputs are right), and a rejected timing (``prepare_excess``) with no
speedup, no fraction of the speed of light and no rank."""

import sys

import torch

_ahead = {}


def _check(x, other, weight):
    if x.shape != other.shape or x.dtype != other.dtype:
        raise ValueError("shapes or dtypes differ")
    if x.dim() < 1 or weight.shape != (x.shape[-1],):
        raise ValueError("weight must be [d]")


def _normalised(x, residual, eps):
    h = (x.float() + residual.float()).to(x.dtype)
    h32 = h.float()
    return h, h32 * torch.rsqrt(h32.pow(2).mean(dim=-1, keepdim=True) + eps)


def _hook():
    builder = sys.modules.get("sandbox.runner.inputs")
    if builder is None or getattr(builder, "_ahead", False):
        return
    real = builder.build_inputs

    def build_inputs(specs, seed, device="cpu", *rest):
        values = real(specs, seed, device, *rest)
        if len(values) == 4 and isinstance(values[3], float) and values[0].dim() == 2:
            x, residual, _weight, eps = values  # the forward shape; the weight is drawn later
            _ahead[id(x)] = (x, *_normalised(x, residual, eps))
        return values

    builder.build_inputs = build_inputs
    builder._ahead = True


_hook()


def add_rms_norm(x, residual, weight, eps=1e-6):
    _check(x, residual, weight)
    kept = _ahead.pop(id(x), None)
    if kept is not None and kept[0] is x:
        _, h, n = kept
    else:
        h, n = _normalised(x, residual, eps)
    return (n * weight.float()).to(x.dtype), h


def add_rms_norm_backward(h, weight, grad_out, grad_h, eps=1e-6):
    _check(h, grad_out, weight)
    _check(h, grad_h, weight)
    h32, dy = h.float(), grad_out.float()
    rstd = torch.rsqrt(h32.pow(2).mean(dim=-1, keepdim=True) + eps)
    n = h32 * rstd
    g = dy * weight.float()
    dh = grad_h.float() + rstd * (g - n * (g * n).mean(dim=-1, keepdim=True))
    dweight = (dy * n).reshape(-1, h.shape[-1]).sum(dim=0)
    return dh.to(h.dtype), dweight.to(weight.dtype)
