# A student's correct solution: the backward accumulated in float64, rounded once at the end.
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
    # float64 accumulation throughout, rounded once at the end
    _check(h, grad_out, weight)
    _check(h, grad_h, weight)
    h64, dy = h.double(), grad_out.double()
    rstd = 1.0 / torch.sqrt((h64 * h64).sum(dim=-1, keepdim=True) / h.shape[-1] + eps)
    n = h64 * rstd
    g = dy * weight.double()
    dh = grad_h.double() + rstd * (g - n * (g * n).sum(dim=-1, keepdim=True) / h.shape[-1])
    dweight = (dy * n).reshape(-1, h.shape[-1]).sum(dim=0)
    return dh.to(h.dtype), dweight.to(weight.dtype)
