# Memory mistake: the whole [N, V] logits matrix (correct values, 1 GiB on the big test).
import torch
import torch.nn.functional as F


def chunked_cross_entropy(hidden, weight, targets, ignore_index=-100):
    valid = targets != ignore_index
    if not valid.any():
        return (hidden.sum() + weight.sum()) * 0.0
    if ((targets < 0) | (targets >= weight.shape[0]))[valid].any():
        raise IndexError("target out of range")
    return F.cross_entropy(hidden @ weight.T, targets, ignore_index=ignore_index)
