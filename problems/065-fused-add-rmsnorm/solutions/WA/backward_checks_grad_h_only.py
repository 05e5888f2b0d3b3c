# Wrong: the backward compares only grad_h with h, so a grad_out of shape [d] or a weight of
# shape [1] broadcast silently instead of raising ValueError as the statement says.
import torch


def add_rms_norm(x, residual, weight, eps=1e-6):
    if x.shape != residual.shape or x.dtype != residual.dtype:
        raise ValueError("x and residual must have the same shape and dtype")
    if x.dim() < 1 or weight.shape != (x.shape[-1],):
        raise ValueError("weight must be [d]")
    h = (x.float() + residual.float()).to(x.dtype)
    h32 = h.float()
    rstd = torch.rsqrt(h32.pow(2).mean(dim=-1, keepdim=True) + eps)
    return (h32 * rstd * weight.float()).to(x.dtype), h


def add_rms_norm_backward(h, weight, grad_out, grad_h, eps=1e-6):
    if grad_h.shape != h.shape:
        raise ValueError("grad_h must be like h")
    h32, dy = h.float(), grad_out.float()
    rstd = torch.rsqrt(h32.pow(2).mean(dim=-1, keepdim=True) + eps)
    n = h32 * rstd
    g = dy * weight.float()
    dh = grad_h.float() + rstd * (g - n * (g * n).mean(dim=-1, keepdim=True))
    dweight = (dy * n).reshape(-1, h.shape[-1]).sum(dim=0)
    return dh.to(h.dtype), dweight.to(weight.dtype)
