import torch


def beam_search_step(beam_logprobs, token_logprobs, lengths, finished, eos_id, pad_id, alpha,
                     first_step=False):
    """(parents, tokens, logprobs, lengths, finished, scores), each [B, K]."""
    b, k, v = token_logprobs.shape
    cand = beam_logprobs[:, :, None] + token_logprobs
    # TODO: no length penalty, finished beams expand like live ones, first_step is ignored,
    # and ties are left to torch.topk.
    best, flat = torch.topk(cand.reshape(b, k * v), k, dim=1)
    parents, tokens = flat // v, flat % v
    new_lengths = lengths.gather(1, parents) + 1
    done = finished.gather(1, parents) | (tokens == eos_id)
    return parents, tokens, best, new_lengths, done, best
