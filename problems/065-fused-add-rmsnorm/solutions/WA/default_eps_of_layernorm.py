# Wrong: the forward's default eps is LayerNorm's 1e-5 instead of the signature's 1e-6, which
# shows on rows whose mean square is near 1e-6 when no eps is passed.
import torch


def _check(x, other, weight):
    if x.shape != other.shape or x.dtype != other.dtype:
        raise ValueError("shapes or dtypes differ")
    if x.dim() < 1 or weight.shape != (x.shape[-1],):
        raise ValueError("weight must be [d]")


def add_rms_norm(x, residual, weight, eps=1e-5):
    _check(x, residual, weight)
    h = (x.float() + residual.float()).to(x.dtype)
    h32 = h.float()
    rstd = torch.rsqrt(h32.pow(2).mean(dim=-1, keepdim=True) + eps)
    out = h32 * rstd * weight.float()
    return out.to(x.dtype), h


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
