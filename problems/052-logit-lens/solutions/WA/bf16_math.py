# Classic mistake: computes the norm and the logits in the input dtype (bfloat16).
import torch


def logit_lens(hidden_states, norm_weight, weight, eps):
    x = hidden_states
    x = x / torch.sqrt((x * x).mean(-1, keepdim=True) + eps) * norm_weight
    logits = x @ weight.T
    logp = torch.log_softmax(logits, dim=-1)
    top, ids = logp.max(dim=-1)
    return ids, top.exp().float()
