# Classic mistake: reports the top logit instead of its probability.
import torch


def logit_lens(hidden_states, norm_weight, weight, eps):
    x = hidden_states.float()
    x = x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * norm_weight.float()
    logits = x @ weight.float().T
    top, ids = logits.max(dim=-1)
    return ids, top
