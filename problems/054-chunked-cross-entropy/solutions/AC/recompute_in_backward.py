# Correct, slower: the forward keeps only one log-sum-exp per row; the backward recomputes
# the logits chunk by chunk (activation recomputation), in small chunks.
import torch

CHUNK = 64


class _CE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, hidden, weight, targets, ignore_index):
        valid = targets != ignore_index
        if ((targets < 0) | (targets >= weight.shape[0]))[valid].any():
            raise IndexError("target out of range")
        lse = hidden.new_empty(hidden.shape[0])
        for s in range(0, hidden.shape[0], CHUNK):
            lse[s:s + CHUNK] = torch.logsumexp(hidden[s:s + CHUNK] @ weight.T, dim=1)
        safe = torch.where(valid, targets, 0)
        picked = (hidden * weight[safe]).sum(dim=1)
        count = int(valid.sum())
        ctx.save_for_backward(hidden, weight, safe, valid, lse)
        ctx.count = count
        if count == 0:
            return hidden.new_zeros(())
        return torch.where(valid, lse - picked, 0.0).sum() / count

    @staticmethod
    def backward(ctx, g):
        hidden, weight, safe, valid, lse = ctx.saved_tensors
        gh, gw = torch.zeros_like(hidden), torch.zeros_like(weight)
        if ctx.count == 0:
            return gh, gw, None, None
        for s in range(0, hidden.shape[0], CHUNK):
            h = hidden[s:s + CHUNK]
            p = torch.exp(h @ weight.T - lse[s:s + CHUNK, None])
            p[torch.arange(h.shape[0]), safe[s:s + CHUNK]] -= 1
            p = p * valid[s:s + CHUNK, None] * (g / ctx.count)
            gh[s:s + CHUNK] = p @ weight
            gw += p.T @ h
        return gh, gw, None, None


def chunked_cross_entropy(hidden, weight, targets, ignore_index=-100):
    return _CE.apply(hidden, weight, targets, ignore_index)
