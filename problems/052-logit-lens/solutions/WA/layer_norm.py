# Classic mistake: a LayerNorm (subtracts the mean) where the model has an RMSNorm.
import torch


def logit_lens(hidden_states, norm_weight, weight, eps):
    x = hidden_states.float()
    x = torch.nn.functional.layer_norm(x, x.shape[-1:], eps=eps) * norm_weight.float()
    logits = x @ weight.float().T
    logp = torch.log_softmax(logits, dim=-1)
    top, ids = logp.max(dim=-1)
    return ids, top.exp()
