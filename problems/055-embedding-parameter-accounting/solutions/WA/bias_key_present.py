# Classic mistake: adds the q, k, v biases whenever the config has an `attention_bias` key,
# so an explicit `attention_bias = False` still counts them.


def count_parameters(config):
    v, d, n = config["vocab_size"], config["hidden_size"], config["num_layers"]
    f, h, kv = config["intermediate_size"], config["num_heads"], config["num_kv_heads"]
    hd = config.get("head_dim") or d // h
    attn = 2 * d * h * hd + 2 * d * kv * hd
    if "attention_bias" in config:
        attn += h * hd + 2 * kv * hd
    norms = 2 * d + (2 * hd if config.get("qk_norm") else 0)
    counts = {
        "embedding": v * d,
        "lm_head": 0 if config["tie_embeddings"] else v * d,
        "attention": n * attn,
        "mlp": n * 3 * d * f,
        "norms": n * norms + d,
    }
    counts["total"] = sum(counts.values())
    return counts


def embedding_share(config):
    c = count_parameters(config)
    return (c["embedding"] + c["lm_head"]) / c["total"]
