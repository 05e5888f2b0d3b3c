# Correct, slower: the algorithm as the papers write it, one row at a time in Python floats,
# with Python's random.Random(seed).
import random

import torch


def acceptance_probs(draft_probs, draft_tokens, target_probs):
    b, k, v = draft_probs.shape
    if tuple(draft_tokens.shape) != (b, k) or tuple(target_probs.shape) != (b, k + 1, v):
        raise ValueError("shapes do not fit [B, k, V], [B, k], [B, k + 1, V]")
    if bool(((draft_tokens < 0) | (draft_tokens >= v)).any()):
        raise IndexError("a drafted token lies outside the vocabulary")
    out = torch.zeros(b, k)
    for row in range(b):
        for i in range(k):
            x = int(draft_tokens[row, i])
            q, p = float(draft_probs[row, i, x]), float(target_probs[row, i, x])
            out[row, i] = min(1.0, p / q) if q > 0 else float(p > 0)
    return out


def _residual(q, p):
    excess = [max(0.0, pi - qi) for pi, qi in zip(p, q)]
    total = sum(excess)
    return [e / total for e in excess] if total > 0 else list(p)


def residual_probs(draft_probs, target_probs):
    if draft_probs.shape != target_probs.shape:
        raise ValueError("shapes differ")
    q = draft_probs.float().reshape(-1, draft_probs.shape[-1]).tolist()
    p = target_probs.float().reshape(-1, target_probs.shape[-1]).tolist()
    rows = [_residual(qi, pi) for qi, pi in zip(q, p)]
    return torch.tensor(rows, dtype=torch.float32).reshape(draft_probs.shape)


def _draw(rng, probs):
    r = rng.random() * sum(probs)
    for token, weight in enumerate(probs):
        if weight > 0 and r < weight:
            return token
        r -= weight
    return max(t for t, w in enumerate(probs) if w > 0)


def speculative_step(draft_probs, draft_tokens, target_probs, seed, pad_id=-1):
    b, k, v = draft_probs.shape
    accept = acceptance_probs(draft_probs, draft_tokens, target_probs).tolist()
    q, p = draft_probs.float().tolist(), target_probs.float().tolist()
    drafts = draft_tokens.tolist()
    rng = random.Random(seed)
    nums, tokens = [], []
    for row in range(b):
        out = []
        for i in range(k):
            if rng.random() < accept[row][i]:
                out.append(drafts[row][i])
            else:
                out.append(_draw(rng, _residual(q[row][i], p[row][i])))
                break
        else:
            out.append(_draw(rng, p[row][k]))
        nums.append(len(out) - 1)
        tokens.append(out + [pad_id] * (k + 1 - len(out)))
    return torch.tensor(nums, dtype=torch.int64), torch.tensor(tokens, dtype=torch.int64).reshape(b, k + 1)
