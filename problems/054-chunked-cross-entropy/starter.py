import torch
import torch.nn.functional as F


def chunked_cross_entropy(hidden: torch.Tensor, weight: torch.Tensor, targets: torch.Tensor,
                          ignore_index: int = -100) -> torch.Tensor:
    """Mean cross-entropy of softmax(hidden @ weight.T) against targets, ignoring ignore_index."""
    # TODO: this builds the whole [N, V] logits matrix (and autograd keeps more of its size):
    # too much memory for a large vocabulary. And what if every target is ignored?
    logits = hidden @ weight.T
    return F.cross_entropy(logits, targets, ignore_index=ignore_index)
