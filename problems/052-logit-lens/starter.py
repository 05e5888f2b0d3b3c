import torch


def logit_lens(hidden_states: torch.Tensor, norm_weight: torch.Tensor, weight: torch.Tensor,
               eps: float) -> tuple[torch.Tensor, torch.Tensor]:
    """Per layer and position: (top-1 token id int64 [L, N], its probability float32 [L, N])."""
    # TODO: the model applies its final RMSNorm (with norm_weight) before the head.
    logits = hidden_states.float() @ weight.float().T
    probs = torch.softmax(logits, dim=-1)
    prob, ids = probs.max(dim=-1)
    return ids, prob
