# Wrong: route_topk and load_balancing_loss check their logits but router_z_loss does not, so
# 1-D or integer logits get a number (or a RuntimeError) instead of ValueError.
import torch


def _check(logits, k):
    if logits.dim() != 2 or not logits.is_floating_point():
        raise ValueError("logits must be a float [T, E] tensor")
    if not 1 <= k <= logits.shape[1]:
        raise ValueError("k must lie in [1, E]")


def route_topk(logits, k, renormalize=True):
    _check(logits, k)
    z = logits.float()
    ordered = torch.sort(z, dim=-1, descending=True, stable=True)
    experts = ordered.indices[:, :k]
    if renormalize:
        weights = torch.softmax(ordered.values[:, :k], dim=-1)
    else:
        weights = torch.softmax(z, dim=-1).gather(1, experts)
    return weights, experts


def load_balancing_loss(logits, k):
    _check(logits, k)
    t, e = logits.shape
    probs = torch.softmax(logits.float(), dim=-1)
    _, experts = route_topk(logits.detach(), k, renormalize=False)
    f = torch.bincount(experts.reshape(-1), minlength=e).float() / (t * k)
    return e * (f * probs.mean(dim=0)).sum()


def router_z_loss(logits):
    return torch.logsumexp(logits.float(), dim=-1).square().mean()
