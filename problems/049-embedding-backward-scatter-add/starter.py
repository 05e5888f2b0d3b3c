import torch


def embedding_backward(ids: torch.Tensor, grad_output: torch.Tensor, num_embeddings: int,
                       pad_id: int) -> torch.Tensor:
    """[V, d] gradient of weight for out = weight[ids], given grad_output = dL/d out."""
    grad = torch.zeros(num_embeddings, grad_output.shape[-1], dtype=grad_output.dtype)
    # TODO: a repeated id must accumulate (does `+=` with an index tensor do that?),
    # padding positions must not contribute, bad ids must raise IndexError.
    grad[ids] += grad_output
    return grad
