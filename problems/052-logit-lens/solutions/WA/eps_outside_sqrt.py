# Classic mistake: divides by sqrt(mean(x^2)) + eps instead of sqrt(mean(x^2) + eps).
import torch


def logit_lens(hidden_states, norm_weight, weight, eps):
    x = hidden_states.float()
    x = x / (torch.sqrt((x * x).mean(-1, keepdim=True)) + eps) * norm_weight.float()
    logits = x @ weight.float().T
    logp = torch.log_softmax(logits, dim=-1)
    top, ids = logp.max(dim=-1)
    return ids, top.exp()
