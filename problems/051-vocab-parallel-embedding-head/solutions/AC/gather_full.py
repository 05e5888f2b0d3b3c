# Correct but defeats the purpose: concatenates the shards (an all-gather of the table) and
# computes the full logits. Fine on one machine; on k devices it is the communication
# tensor parallelism exists to avoid.
import torch


def vp_embed(ids, shards):
    full = torch.cat(shards)
    if ((ids < 0) | (ids >= full.shape[0])).any():
        raise IndexError("id out of range")
    return full[ids]


def vp_argmax_logprob(hidden, shards, targets):
    if ((targets < 0) | (targets >= sum(s.shape[0] for s in shards))).any():
        raise IndexError("target out of range")
    logits = hidden @ torch.cat(shards).T
    logp = torch.log_softmax(logits, dim=1)
    return logits.argmax(dim=1), logp.gather(1, targets[:, None])[:, 0]
