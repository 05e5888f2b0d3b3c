# Classic mistake: accumulates in the gradient's own dtype; in bfloat16 long sums of
# repeats lose their low bits.
import torch


def embedding_backward(ids, grad_output, num_embeddings, pad_id):
    d = grad_output.shape[-1]
    ids = ids.reshape(-1)
    g = grad_output.reshape(-1, d)
    keep = ids != pad_id
    if ((ids[keep] < 0) | (ids[keep] >= num_embeddings)).any():
        raise IndexError("id out of range")
    out = torch.zeros(num_embeddings, d, dtype=g.dtype)
    for i, row in zip(ids[keep].tolist(), g[keep]):
        out[i] += row
    return out.to(grad_output.dtype)
