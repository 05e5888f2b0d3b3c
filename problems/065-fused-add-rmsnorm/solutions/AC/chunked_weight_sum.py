# A student's correct solution: float32 formulas, the weight's gradient summed 64 rows at a
# time (another summation order: at the benchmark's 2048 x 1024 it rounds past the element-wise
# float32 tolerance on some draws; sandbox/bench/verify.py).
import torch


def _check(x, other, weight):
    if x.shape != other.shape or x.dtype != other.dtype:
        raise ValueError("shapes or dtypes differ")
    if x.dim() < 1 or weight.shape != (x.shape[-1],):
        raise ValueError("weight must be [d]")


def add_rms_norm(x, residual, weight, eps=1e-6):
    _check(x, residual, weight)
    h = (x.float() + residual.float()).to(x.dtype)
    h32 = h.float()
    rstd = torch.rsqrt(h32.pow(2).mean(dim=-1, keepdim=True) + eps)
    out = h32 * rstd * weight.float()
    return out.to(x.dtype), h


def add_rms_norm_backward(h, weight, grad_out, grad_h, eps=1e-6):
    _check(h, grad_out, weight)


def add_rms_norm_backward(h, weight, grad_out, grad_h, eps=1e-6):
    # float32, the weight's gradient summed 64 rows at a time
    _check(h, grad_out, weight)
    _check(h, grad_h, weight)
    d = h.shape[-1]
    h32, dy = h.float().reshape(-1, d), grad_out.float().reshape(-1, d)
    rstd = torch.rsqrt(h32.pow(2).sum(dim=-1, keepdim=True) / d + eps)
    n = h32 * rstd
    g = dy * weight.float()
    dh = grad_h.float().reshape(-1, d) + rstd * g - rstd * n * ((g * n).sum(dim=-1, keepdim=True) / d)
    dweight = torch.zeros(d)
    for start in range(0, dy.shape[0], 64):
        dweight += (dy[start:start + 64] * n[start:start + 64]).sum(dim=0)
    return dh.reshape(h.shape).to(h.dtype), dweight.to(weight.dtype)
