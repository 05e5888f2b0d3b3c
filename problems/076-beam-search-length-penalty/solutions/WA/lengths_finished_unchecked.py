# Wrong: checks beam_logprobs against token_logprobs but not lengths or finished, so a lengths
# of [B, 1] or a finished of [K] broadcast silently instead of raising ValueError.
import torch


def beam_search_step(beam_logprobs, token_logprobs, lengths, finished, eos_id, pad_id, alpha,
                     first_step=False):
    if token_logprobs.dim() != 3:
        raise ValueError("token_logprobs must be [B, K, V]")
    b, k, v = token_logprobs.shape
    for x in (beam_logprobs,):
        if tuple(x.shape) != (b, k):
            raise ValueError("beam_logprobs, lengths and finished must be [B, K]")
    if first_step and v < k:
        raise ValueError("first step: V < K")
    done = finished.bool()
    live = ~done
    base = beam_logprobs.float()[:, :, None]
    cand = base + token_logprobs.float()
    cand = torch.where(done[:, :, None], base.expand(b, k, v), cand)
    new_len = lengths.long() + live.long()
    score = cand / new_len.float().pow(alpha)[:, :, None]
    allowed = live[:, :, None].expand(b, k, v).clone()
    allowed[:, :, pad_id] |= done
    if first_step:
        allowed[:, 1:] = False
    score = torch.where(allowed, score, torch.tensor(float("-inf")))
    flat = torch.sort(score.reshape(b, k * v), dim=1, descending=True, stable=True).indices[:, :k]
    parents, tokens = flat // v, flat % v
    parent_done = done.gather(1, parents)
    return (parents, tokens, cand.reshape(b, -1).gather(1, flat), new_len.gather(1, parents),
            parent_done | (tokens == eos_id), score.reshape(b, -1).gather(1, flat))
