# Correct but slow: one Python step per token, float32 accumulator.
import torch


def embedding_backward(ids, grad_output, num_embeddings, pad_id):
    d = grad_output.shape[-1]
    acc = torch.zeros(num_embeddings, d, dtype=torch.float32)
    rows = grad_output.reshape(-1, d).float()
    for p, i in enumerate(ids.reshape(-1).tolist()):
        if i == pad_id:
            continue
        if not 0 <= i < num_embeddings:
            raise IndexError(i)
        acc[i] += rows[p]
    return acc.to(grad_output.dtype)
