def count_parameters(config: dict) -> dict:
    """Parameter counts by part: embedding, lm_head, attention, mlp, norms, total (ints)."""
    v, d = config["vocab_size"], config["hidden_size"]
    layers, f = config["num_layers"], config["intermediate_size"]
    # TODO: tying, grouped-query attention, head_dim, biases, q/k norms...
    attention = 4 * d * d
    mlp = 2 * d * f
    counts = {
        "embedding": v * d,
        "lm_head": v * d,
        "attention": layers * attention,
        "mlp": layers * mlp,
        "norms": layers * 2 * d,
    }
    counts["total"] = sum(counts.values())
    return counts


def embedding_share(config: dict) -> float:
    """Fraction of all parameters in the embedding and the output head."""
    counts = count_parameters(config)
    return (counts["embedding"] + counts["lm_head"]) / counts["total"]
