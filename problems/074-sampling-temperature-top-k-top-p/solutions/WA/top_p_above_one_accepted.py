# Wrong: refuses top_p <= 0 but not top_p > 1, so top_p = 1.5 silently keeps every token
# instead of raising ValueError (top_p must lie in (0, 1]).
import torch


def _check(logits, temperature, top_k, top_p):
    if logits.dim() != 2 or not logits.is_floating_point():
        raise ValueError("logits must be a float [B, V] tensor")
    if temperature < 0 or top_k < 0 or top_p <= 0:
        raise ValueError("bad sampling parameters")


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    _check(logits, temperature, top_k, top_p)
    z = logits.float()
    v = z.shape[1]
    if temperature == 0:
        return torch.nn.functional.one_hot(z.argmax(dim=-1), v).float()
    probs = torch.softmax(z / temperature, dim=-1)
    ranked = torch.sort(probs, dim=-1, descending=True, stable=True)
    sp, order = ranked.values, ranked.indices
    keep = torch.ones_like(sp, dtype=torch.bool)
    if 0 < top_k < v:
        keep[:, top_k:] = False
    if top_p < 1:
        q = sp * keep
        q = q / q.sum(dim=-1, keepdim=True)
        keep &= (q.cumsum(dim=-1) - q) < top_p
    kept = sp * keep
    kept = kept / kept.sum(dim=-1, keepdim=True)
    return torch.zeros_like(probs).scatter(1, order, kept)


def sample(logits, num_samples, seed, temperature=1.0, top_k=0, top_p=1.0):
    if num_samples < 0:
        raise ValueError("num_samples must be >= 0")
    probs = sampling_probs(logits, temperature, top_k, top_p)
    gen = torch.Generator().manual_seed(seed)
    if num_samples == 0:
        return torch.zeros(probs.shape[0], 0, dtype=torch.int64)
    logp = probs.log()[:, None, :]
    u = torch.rand(probs.shape[0], num_samples, probs.shape[1], generator=gen).clamp(1e-20, 1.0)
    return (logp - torch.log(-torch.log(u))).argmax(dim=-1)
