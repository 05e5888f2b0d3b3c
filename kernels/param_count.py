"""Parameter accounting of a decoder-only transformer (problem 55): exact integers.

The architecture counted is the Llama/Qwen family: token embedding ``V x d``; per layer an
RMSNorm before attention and one before the MLP (``d`` each), grouped-query attention with
``q: d -> H*h``, ``k, v: d -> H_kv*h``, ``o: H*h -> d`` (biases on q, k, v when
``attention_bias``), optional per-head RMSNorm of q and k (``h`` each, ``qk_norm``), a SwiGLU
MLP (gate, up: ``d -> f``; down: ``f -> d``; no biases); a final RMSNorm (``d``); an output
head ``V x d`` that is the embedding itself when ``tie_embeddings``.
"""

from __future__ import annotations

from typing import Any

KEYS = ("embedding", "lm_head", "attention", "mlp", "norms", "total")


def count_parameters(config: dict[str, Any]) -> dict[str, int]:
    """Counts by part (each an int); ``lm_head`` is 0 when tied. ``total`` is their sum."""
    v, d = int(config["vocab_size"]), int(config["hidden_size"])
    layers, f = int(config["num_layers"]), int(config["intermediate_size"])
    heads, kv_heads = int(config["num_heads"]), int(config["num_kv_heads"])
    h = int(config.get("head_dim") or d // heads)
    q, kv = heads * h, kv_heads * h
    attention = d * q + 2 * d * kv + q * d
    if config.get("attention_bias", False):
        attention += q + 2 * kv
    norms_per_layer = 2 * d + (2 * h if config.get("qk_norm", False) else 0)
    counts = {
        "embedding": v * d,
        "lm_head": 0 if config["tie_embeddings"] else v * d,
        "attention": layers * attention,
        "mlp": layers * 3 * d * f,
        "norms": layers * norms_per_layer + d,
    }
    counts["total"] = sum(counts.values())
    return counts


def embedding_share(config: dict[str, Any]) -> float:
    """Fraction of all parameters in the embedding and the (untied) output head."""
    counts = count_parameters(config)
    return (counts["embedding"] + counts["lm_head"]) / counts["total"]
