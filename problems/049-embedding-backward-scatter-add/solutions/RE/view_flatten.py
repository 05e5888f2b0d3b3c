# Assumes contiguous inputs: flattens with .view(-1) and .view(-1, d), which raise on a
# transposed ids tensor or a strided or expanded grad_output (.reshape would copy instead).
import torch


def embedding_backward(ids, grad_output, num_embeddings, pad_id):
    d = grad_output.shape[-1]
    flat_ids = ids.view(-1)
    flat_grad = grad_output.view(-1, d)
    keep = flat_ids != pad_id
    if ((flat_ids[keep] < 0) | (flat_ids[keep] >= num_embeddings)).any():
        raise IndexError("id out of range")
    out = torch.zeros(num_embeddings, d, dtype=torch.float32)
    out.index_add_(0, flat_ids[keep], flat_grad[keep].float())
    return out.to(grad_output.dtype)
