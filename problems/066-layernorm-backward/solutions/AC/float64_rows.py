# Correct but slow: one Python step per row, in float64.
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
    rows = dy.reshape(-1, d)
    dweight = None if weight is None else (rows * xhat.reshape(-1, d)).sum(dim=0).to(weight.dtype)
    dbias = None if bias is None else rows.sum(dim=0).to(bias.dtype)
    flat_x, flat_g = x32.double().reshape(-1, d), g.double().reshape(-1, d)
    out = torch.empty_like(flat_x)
    for i in range(flat_x.shape[0]):
        row = flat_x[i] - flat_x[i].mean()
        r = 1.0 / float((row * row).mean() + eps) ** 0.5
        xh = row * r
        gi = flat_g[i]
        out[i] = r * (gi - gi.mean() - xh * (gi * xh).mean())
    dx = out.reshape(x.shape)
    return dx.to(x.dtype), dweight, dbias
