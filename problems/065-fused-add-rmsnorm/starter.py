import torch


def add_rms_norm(x, residual, weight, eps=1e-6):
    """(out, h): h = x + residual, out = RMSNorm(h) * weight, computed in float32."""
    h = x + residual
    # TODO: this is the root mean square of h with eps outside the root, in the input dtype.
    # Put eps inside, compute in float32 (h * h overflows in float16), and check the shapes.
    rms = h.pow(2).mean(dim=-1, keepdim=True).sqrt() + eps
    return h / rms * weight, h


def add_rms_norm_backward(h, weight, grad_out, grad_h, eps=1e-6):
    """(dh, dweight) from the upstream gradients of out (grad_out) and of h (grad_h)."""
    h32 = h.float()
    rstd = torch.rsqrt(h32.pow(2).mean(dim=-1, keepdim=True) + eps)
    n = h32 * rstd
    # TODO: rstd depends on every h of the row: its Jacobian term is missing here.
    dh = grad_h.float() + rstd * grad_out.float() * weight.float()
    dweight = (grad_out.float() * n).reshape(-1, h.shape[-1]).sum(dim=0)
    return dh.to(h.dtype), dweight.to(weight.dtype)
