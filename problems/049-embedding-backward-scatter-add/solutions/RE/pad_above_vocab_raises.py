# Classic mistake: checks every id against [0, V) before setting the padding positions aside, so
# a pad_id at or above V (the statement allows any int) raises IndexError instead of being dropped.
import torch


def embedding_backward(ids, grad_output, num_embeddings, pad_id):
    d = grad_output.shape[-1]
    ids = ids.reshape(-1)
    g = grad_output.reshape(-1, d)
    if (ids >= num_embeddings).any() or ((ids < 0) & (ids != pad_id)).any():
        raise IndexError("id out of range")
    keep = ids != pad_id
    out = torch.zeros(num_embeddings, d, dtype=torch.float32)
    out.index_add_(0, ids[keep], g[keep].float())
    return out.to(grad_output.dtype)
