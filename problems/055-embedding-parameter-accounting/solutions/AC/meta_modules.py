# Obviously correct but roundabout: builds one layer of real torch modules on the meta device
# (no memory) and counts their parameters.
import torch
from torch import nn


def _layer(config):
    d, f = config["hidden_size"], config["intermediate_size"]
    h, kv = config["num_heads"], config["num_kv_heads"]
    hd = config.get("head_dim") or d // h
    bias = bool(config.get("attention_bias", False))
    with torch.device("meta"):
        mods = [
            nn.Linear(d, h * hd, bias=bias), nn.Linear(d, kv * hd, bias=bias),
            nn.Linear(d, kv * hd, bias=bias), nn.Linear(h * hd, d, bias=False),
            nn.Linear(d, f, bias=False), nn.Linear(d, f, bias=False), nn.Linear(f, d, bias=False),
            nn.RMSNorm(d), nn.RMSNorm(d),
        ]
        if config.get("qk_norm"):
            mods += [nn.RMSNorm(hd), nn.RMSNorm(hd)]
    return mods


def count_parameters(config):
    mods = _layer(config)
    numel = [sum(p.numel() for p in m.parameters()) for m in mods]
    n, v, d = config["num_layers"], config["vocab_size"], config["hidden_size"]
    counts = {
        "embedding": v * d,
        "lm_head": 0 if config["tie_embeddings"] else v * d,
        "attention": n * sum(numel[:4]),
        "mlp": n * sum(numel[4:7]),
        "norms": n * sum(numel[7:]) + d,
    }
    counts["total"] = sum(counts.values())
    return counts


def embedding_share(config):
    c = count_parameters(config)
    return (c["embedding"] + c["lm_head"]) / c["total"]
