# Wrong: treats a missing weight as a layer without parameters (elementwise_affine=False), so
# with weight None and a bias the bias's gradient is None too instead of a tensor.
import torch


def layer_norm_backward(x, weight, bias, grad_out, eps=1e-5):
    if x.dim() < 1 or grad_out.shape != x.shape:
        raise ValueError("grad_out must be shaped like x")
    d = x.shape[-1]
    for p in (weight, bias):
        if p is not None and p.shape != (d,):
            raise ValueError("parameters must be [d]")
    x32, dy = x.float(), grad_out.float()
    mean = x32.mean(dim=-1, keepdim=True)
    var = (x32 - mean).pow(2).mean(dim=-1, keepdim=True)
    rstd = torch.rsqrt(var + eps)
    xhat = (x32 - mean) * rstd
    g = dy if weight is None else dy * weight.float()
    dx = rstd * (g - g.mean(dim=-1, keepdim=True) - xhat * (g * xhat).mean(dim=-1, keepdim=True))
    rows = dy.reshape(-1, d)
    dweight = None if weight is None else (rows * xhat.reshape(-1, d)).sum(dim=0).to(weight.dtype)
    dbias = None if bias is None or weight is None else rows.sum(dim=0).to(bias.dtype)
    return dx.to(x.dtype), dweight, dbias
