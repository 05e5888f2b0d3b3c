import torch


def layer_norm_backward(x, weight, bias, grad_out, eps=1e-5):
    """(dx, dweight, dbias) of y = (x - mean) / sqrt(var + eps) * weight + bias."""
    mean = x.mean(dim=-1, keepdim=True)
    rstd = 1.0 / torch.sqrt(x.var(dim=-1, keepdim=True) + eps)
    xhat = (x - mean) * rstd
    g = grad_out * weight
    # TODO: x.var divides by d - 1; the mean and the variance both depend on x, and this
    # gradient ignores both. None parameters and shape checks are missing too.
    dx = rstd * g
    d = x.shape[-1]
    dweight = (grad_out * xhat).reshape(-1, d).sum(dim=0)
    dbias = grad_out.reshape(-1, d).sum(dim=0)
    return dx, dweight, dbias
