# Mistake: the top-1 probability as exp(z_top) / sum(exp(z)) without subtracting the maximum:
# for logits above about 88, exp() is inf in float32 and the probability becomes NaN.
import torch


def logit_lens(hidden_states, norm_weight, weight, eps):
    x = hidden_states.float()
    x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * norm_weight.float()
    logits = x @ weight.float().T
    e = logits.exp()
    top, ids = e.max(dim=-1)
    return ids, top / e.sum(dim=-1)
