# Wrong: refuses drafted tokens at or above V but not negative ones, so -1 reaches gather (a
# RuntimeError) instead of raising IndexError for a token outside [0, V).
import torch


def acceptance_probs(draft_probs, draft_tokens, target_probs):
    b, k, v = draft_probs.shape
    if tuple(draft_tokens.shape) != (b, k) or tuple(target_probs.shape) != (b, k + 1, v):
        raise ValueError("shapes do not fit [B, k, V], [B, k], [B, k + 1, V]")
    if bool((draft_tokens >= v).any()):
        raise IndexError("a drafted token lies outside the vocabulary")
    x = draft_tokens.long()[..., None]
    q = draft_probs.float().gather(-1, x)[..., 0]
    p = target_probs[:, :k].float().gather(-1, x)[..., 0]
    safe_q = torch.where(q > 0, q, torch.ones_like(q))
    return torch.where(q > 0, torch.clamp(p / safe_q, max=1.0), (p > 0).float())


def residual_probs(draft_probs, target_probs):
    if draft_probs.shape != target_probs.shape:
        raise ValueError("shapes differ")
    p = target_probs.float()
    excess = torch.clamp(p - draft_probs.float(), min=0.0)
    total = excess.sum(dim=-1, keepdim=True)
    return torch.where(total > 0, excess / torch.where(total > 0, total, torch.ones_like(total)), p)


def speculative_step(draft_probs, draft_tokens, target_probs, seed, pad_id=-1):
    accept = acceptance_probs(draft_probs, draft_tokens, target_probs)
    b, k, v = draft_probs.shape
    gen = torch.Generator().manual_seed(seed)
    u = torch.rand(b, k, generator=gen)
    num = (u < accept).long().cumprod(dim=1).sum(dim=1)  # the accepted prefix
    rows = torch.arange(b)
    dist = target_probs[rows, num].double()  # the bonus distribution where all were accepted
    if k:
        last = num.clamp(max=k - 1)
        res = residual_probs(draft_probs[rows, last], target_probs[rows, last]).double()
        dist = torch.where((num < k)[:, None], res, dist)
    cdf = dist.cumsum(dim=-1)
    r = torch.rand(b, 1, generator=gen, dtype=torch.float64) * cdf[:, -1:]
    drawn = (cdf <= r).sum(dim=-1).clamp(max=v - 1)  # the first token whose cdf exceeds r
    tokens = torch.full((b, k + 1), pad_id, dtype=torch.int64)
    before = torch.arange(k)[None, :] < num[:, None]
    tokens[:, :k] = torch.where(before, draft_tokens.long(), tokens[:, :k])
    tokens[rows, num] = drawn
    return num, tokens
