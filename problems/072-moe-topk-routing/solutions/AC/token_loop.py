# Correct but slow: one token at a time, the tie rule written out.
import torch


def _check(logits, k):
    if logits.dim() != 2 or not logits.is_floating_point():
        raise ValueError("logits must be a float [T, E] tensor")
    if not 1 <= k <= logits.shape[1]:
        raise ValueError("k must lie in [1, E]")


def route_topk(logits, k, renormalize=True):
    _check(logits, k)
    probs = torch.softmax(logits.float(), dim=-1)
    rows_w, rows_e = [], []
    for row in probs:
        ranked = sorted(range(row.numel()), key=lambda i: (-float(row[i]), i))[:k]
        w = row[ranked]
        rows_w.append(w / w.sum() if renormalize else w)
        rows_e.append(torch.tensor(ranked, dtype=torch.int64))
    weights = torch.stack(rows_w) if rows_w else probs[:, :k]
    experts = torch.stack(rows_e) if rows_e else torch.zeros(0, k, dtype=torch.int64)
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
    return torch.logsumexp(logits.float(), dim=-1).square().mean()
