import torch


def nearest_neighbours(weight: torch.Tensor, token_ids: torch.Tensor,
                       k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(ids [Q, k], cosine similarities [Q, k]) of each query's k nearest other tokens."""
    # TODO: cosine similarity, not a dot product; leave the query token itself out;
    # and mind the memory limit: V x V does not fit for a large vocabulary.
    scores = weight @ weight.T
    top = scores[token_ids].topk(k, dim=1)
    return top.indices, top.values
