import torch


def acceptance_probs(draft_probs, draft_tokens, target_probs):
    """[B, k]: min(1, p_i(x_i) / q_i(x_i)) at each drafted token x_i."""
    k = draft_probs.shape[1]
    x = draft_tokens.long()[..., None]
    q = draft_probs.float().gather(-1, x)[..., 0]
    p = target_probs[:, :k].float().gather(-1, x)[..., 0]
    # TODO: q = 0 (and p = q = 0); the shapes and token ids are not checked.
    return torch.clamp(p / q, max=1.0)


def residual_probs(draft_probs, target_probs):
    """max(0, p - q), normalised over the last axis."""
    excess = torch.clamp(target_probs.float() - draft_probs.float(), min=0.0)
    # TODO: a residual that is 0 everywhere (p == q).
    return excess / excess.sum(dim=-1, keepdim=True)


def speculative_step(draft_probs, draft_tokens, target_probs, seed, pad_id=-1):
    """(num_accepted [B], tokens [B, k + 1]) for one verification step."""
    b, k, v = draft_probs.shape
    accept = acceptance_probs(draft_probs, draft_tokens, target_probs)
    gen = torch.Generator().manual_seed(seed)
    num = torch.zeros(b, dtype=torch.int64)
    tokens = torch.full((b, k + 1), pad_id, dtype=torch.int64)
    for row in range(b):
        for i in range(k):
            if float(torch.rand((), generator=gen)) < float(accept[row, i]):
                tokens[row, i] = draft_tokens[row, i]
                num[row] += 1
            else:
                res = residual_probs(draft_probs[row, i], target_probs[row, i])
                tokens[row, i] = torch.multinomial(res, 1, generator=gen)[0]
                break
        # TODO: the bonus token when every draft is accepted.
    return num, tokens
