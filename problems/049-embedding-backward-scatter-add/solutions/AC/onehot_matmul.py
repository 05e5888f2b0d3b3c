# Correct but slow: the gradient as onehot(ids)^T @ grad_output, a [N, V] one-hot matrix.
import torch


def embedding_backward(ids, grad_output, num_embeddings, pad_id):
    d = grad_output.shape[-1]
    flat = ids.reshape(-1)
    pad = flat == pad_id
    if (((flat < 0) | (flat >= num_embeddings)) & ~pad).any():
        raise IndexError("id out of range")
    onehot = torch.nn.functional.one_hot(torch.where(pad, 0, flat), num_embeddings).float()
    onehot[pad] = 0
    return (onehot.T @ grad_output.reshape(-1, d).float()).to(grad_output.dtype)
