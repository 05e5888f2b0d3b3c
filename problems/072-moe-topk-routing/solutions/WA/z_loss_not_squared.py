# Classic mistake: the mean log-sum-exp, not its square.
import torch


def _check(logits, k):
    if logits.dim() != 2 or not logits.is_floating_point():
        raise ValueError("logits must be a float [T, E] tensor")
    if not 1 <= k <= logits.shape[1]:
        raise ValueError("k must lie in [1, E]")


def route_topk(logits, k, renormalize=True):
    _check(logits, k)
    probs = torch.softmax(logits.float(), dim=-1)
    ordered = torch.sort(probs, dim=-1, descending=True, stable=True)
    weights, experts = ordered.values[:, :k], ordered.indices[:, :k]
    if renormalize:
        weights = weights / weights.sum(dim=-1, keepdim=True)
    return weights, experts


def load_balancing_loss(logits, k):
    _check(logits, k)
    t, e = logits.shape
    probs = torch.softmax(logits.float(), dim=-1)
    _, experts = route_topk(logits.detach(), k, renormalize=False)
    f = torch.bincount(experts.reshape(-1), minlength=e).float() / (t * k)
    return e * (f * probs.mean(dim=0)).sum()


def router_z_loss(logits):
    if logits.dim() != 2 or not logits.is_floating_point():
        raise ValueError("logits must be a float [T, E] tensor")
    return torch.logsumexp(logits.float(), dim=-1).mean()
