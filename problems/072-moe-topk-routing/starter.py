import torch


def route_topk(logits, k, renormalize=True):
    """(weights [T, k] float32, experts [T, k] int64), by decreasing probability."""
    probs = torch.softmax(logits.float(), dim=-1)
    weights, experts = torch.topk(probs, k, dim=-1)
    # TODO: renormalize is ignored, ties are not broken by index, and bad k is not checked.
    return weights, experts


def load_balancing_loss(logits, k):
    """E * sum_e f_e * P_e."""
    probs = torch.softmax(logits.float(), dim=-1)
    _, experts = torch.topk(probs, k, dim=-1)
    counts = torch.bincount(experts.reshape(-1), minlength=logits.shape[1]).float()
    # TODO: f_e is a fraction of the T * k assignments; this divides by T only.
    return logits.shape[1] * (counts / logits.shape[0] * probs.mean(dim=0)).sum()


def router_z_loss(logits):
    """Mean over tokens of logsumexp(logits)^2."""
    # TODO: exp overflows for logits above 88.
    return torch.log(torch.exp(logits.float()).sum(dim=-1)).square().mean()
