# Correct: the backward pass reruns the forward pass under autograd (accepted, as the
# statement says; it teaches nothing about the Jacobian).
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
    _check(h, grad_h, weight)
    h32 = h.detach().float().requires_grad_(True)
    w32 = weight.detach().float().requires_grad_(True)
    out = h32 * torch.rsqrt(h32.pow(2).mean(dim=-1, keepdim=True) + eps) * w32
    dh, dweight = torch.autograd.grad(out, (h32, w32), grad_out.float())
    dh = dh + grad_h.float()
    return dh.to(h.dtype), dweight.to(weight.dtype)
