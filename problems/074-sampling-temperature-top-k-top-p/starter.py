import torch


def sampling_probs(logits, temperature=1.0, top_k=0, top_p=1.0):
    """The [B, V] distribution after temperature, top-k and top-p."""
    probs = torch.softmax(logits.float() / temperature, dim=-1)
    if top_k > 0:
        kth = probs.topk(top_k, dim=-1).values[:, -1:]
        probs = torch.where(probs >= kth, probs, torch.zeros(()))
    # TODO: top-p is missing; ties at the top-k boundary are all kept; temperature 0 divides
    # by zero; the arguments are not checked.
    return probs / probs.sum(dim=-1, keepdim=True)


def sample(logits, num_samples, seed, temperature=1.0, top_k=0, top_p=1.0):
    """num_samples draws per row from sampling_probs, with a generator seeded by seed."""
    gen = torch.Generator().manual_seed(seed)
    probs = sampling_probs(logits, temperature, top_k, top_p)
    return torch.multinomial(probs, num_samples, replacement=True, generator=gen)
