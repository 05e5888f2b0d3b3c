# Correct but slow: one layer and one position at a time.
import torch


def logit_lens(hidden_states, norm_weight, weight, eps):
    layers, n, _ = hidden_states.shape
    ids = torch.zeros(layers, n, dtype=torch.int64)
    probs = torch.zeros(layers, n, dtype=torch.float32)
    w = weight.float()
    for layer in range(layers):
        for pos in range(n):
            h = hidden_states[layer, pos].float()
            y = h * torch.rsqrt(h.pow(2).mean() + eps) * norm_weight.float()
            p = torch.softmax(w @ y, dim=0)
            probs[layer, pos], ids[layer, pos] = p.max(dim=0)
    return ids, probs
