import torch


def last_token_indices(cu_seqlens: torch.Tensor) -> torch.Tensor:
    """Packed index of each sequence's last token; ValueError for a malformed cu_seqlens."""
    # TODO: check cu_seqlens (starts at 0, strictly increasing). And is this the *last* token?
    return cu_seqlens[:-1]


def sample_logits(hidden: torch.Tensor, cu_seqlens: torch.Tensor, weight: torch.Tensor,
                  needs_logits: torch.Tensor) -> torch.Tensor:
    """[K, V] logits at the last token of each sequence that needs them."""
    # TODO: this computes logits for every packed token, far more than sampling needs.
    logits = hidden @ weight.T
    return logits[last_token_indices(cu_seqlens)][needs_logits]
