# Correct and fast: inside one beam the score is increasing in the token's log-prob (one length,
# one divisor), so only each beam's K best tokens (a stable sort: ties by token id) can be
# among the row's K best; those K * K candidates and the finished beams' pads are merged in
# Python by (-score, parent, token).
import torch


def beam_search_step(beam_logprobs, token_logprobs, lengths, finished, eos_id, pad_id, alpha,
                     first_step=False):
    if token_logprobs.dim() != 3:
        raise ValueError("token_logprobs must be [B, K, V]")
    b, k, v = token_logprobs.shape
    for x in (beam_logprobs, lengths, finished):
        if tuple(x.shape) != (b, k):
            raise ValueError("beam_logprobs, lengths and finished must be [B, K]")
    if first_step and v < k:
        raise ValueError("first step: V < K")
    top = torch.sort(token_logprobs.float(), dim=-1, descending=True, stable=True)
    top_lp, top_tok = top.values[:, :, :k], top.indices[:, :, :k]
    base = beam_logprobs.float()
    cand = base[:, :, None] + top_lp  # [B, K, K]
    grown = (lengths.long() + 1).float().pow(alpha)
    score = cand / grown[:, :, None]
    pad_score = base / lengths.float().pow(alpha)
    rows = [[] for _ in range(6)]
    for r in range(b):
        pool = []
        for i in range(1 if first_step else k):
            if bool(finished[r, i]):
                pool.append((float(pad_score[r, i]), i, pad_id, float(base[r, i]),
                             int(lengths[r, i]), True))
                continue
            for j in range(k):
                tok = int(top_tok[r, i, j])
                pool.append((float(score[r, i, j]), i, tok, float(cand[r, i, j]),
                             int(lengths[r, i]) + 1, tok == eos_id))
        pool.sort(key=lambda c: (-c[0], c[1], c[2]))
        for field, values in enumerate(zip(*pool[:k], strict=True)):
            rows[field].append(list(values))
    scores, parents, tokens, logprobs, new_len, done = rows
    return (torch.tensor(parents, dtype=torch.int64).reshape(b, k),
            torch.tensor(tokens, dtype=torch.int64).reshape(b, k),
            torch.tensor(logprobs, dtype=torch.float32).reshape(b, k),
            torch.tensor(new_len, dtype=torch.int64).reshape(b, k),
            torch.tensor(done, dtype=torch.bool).reshape(b, k),
            torch.tensor(scores, dtype=torch.float32).reshape(b, k))
