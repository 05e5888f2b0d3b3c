# Correct: reruns torch.nn.functional.layer_norm under autograd (accepted, as the
# statement says).
import torch


def layer_norm_backward(x, weight, bias, grad_out, eps=1e-5):
    if x.dim() < 1 or grad_out.shape != x.shape:
        raise ValueError("grad_out must be shaped like x")
    d = x.shape[-1]
    for p in (weight, bias):
        if p is not None and p.shape != (d,):
            raise ValueError("parameters must be [d]")
    x32 = x.detach().float().requires_grad_(True)
    w32 = None if weight is None else weight.detach().float().requires_grad_(True)
    b32 = None if bias is None else bias.detach().float().requires_grad_(True)
    y = torch.nn.functional.layer_norm(x32, (d,), w32, b32, eps)
    wanted = [t for t in (x32, w32, b32) if t is not None]
    grads = list(torch.autograd.grad(y, wanted, grad_out.float()))
    dx = grads.pop(0)
    dweight = None if weight is None else grads.pop(0).to(weight.dtype)
    dbias = None if bias is None else grads.pop(0).to(bias.dtype)
    return dx.to(x.dtype), dweight, dbias
