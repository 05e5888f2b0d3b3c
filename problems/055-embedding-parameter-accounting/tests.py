"""Tests of problem 55. Public cases are the statement's examples, value for value.

The configurations of real models below are facts from their published configs; the tests
check the arithmetic, no weights are involved.
"""

from __future__ import annotations

from typing import Any

from sandbox.problem import Call, Case

QWEN3_0_6B: dict[str, Any] = {
    "vocab_size": 151936, "hidden_size": 1024, "num_layers": 28, "intermediate_size": 3072,
    "num_heads": 16, "num_kv_heads": 8, "head_dim": 128, "tie_embeddings": True, "qk_norm": True,
}
TINY: dict[str, Any] = {
    "vocab_size": 10, "hidden_size": 4, "num_layers": 1, "intermediate_size": 8,
    "num_heads": 2, "num_kv_heads": 1, "tie_embeddings": False,
}
LLAMA_3_2_1B: dict[str, Any] = {
    "vocab_size": 128256, "hidden_size": 2048, "num_layers": 16, "intermediate_size": 8192,
    "num_heads": 32, "num_kv_heads": 8, "head_dim": 64, "tie_embeddings": True,
}
QWEN2_5_0_5B: dict[str, Any] = {
    "vocab_size": 151936, "hidden_size": 896, "num_layers": 24, "intermediate_size": 4864,
    "num_heads": 14, "num_kv_heads": 2, "head_dim": 64, "tie_embeddings": True,
    "attention_bias": True,
}
MHA_UNTIED: dict[str, Any] = {
    "vocab_size": 32000, "hidden_size": 4096, "num_layers": 32, "intermediate_size": 11008,
    "num_heads": 32, "num_kv_heads": 32, "tie_embeddings": False,
}
ABSURD: dict[str, Any] = {  # more than 2**53 parameters: floating point cannot count them
    "vocab_size": 1_000_003, "hidden_size": 1_048_583, "num_layers": 1001,
    "intermediate_size": 4_194_319, "num_heads": 7, "num_kv_heads": 1, "head_dim": 149_797,
    "tie_embeddings": False, "qk_norm": True, "attention_bias": True,
}


def _cfg(base: dict[str, Any], **changes: Any) -> Call:
    return Call((dict(base, **changes),))


CASES: list[Case] = [
    Case("example_qwen3_0_6b", "count_parameters", lambda g: Call((dict(QWEN3_0_6B),)),
         public=True, note="Qwen3-0.6B: tied 151936 x 1024 table, GQA 16/8 heads of 128, q/k norms"),
    Case("example_qwen3_0_6b_share", "embedding_share", lambda g: Call((dict(QWEN3_0_6B),)),
         public=True, note="the tied table is about 26% of Qwen3-0.6B"),
    Case("example_tiny_untied", "count_parameters", lambda g: Call((dict(TINY),)),
         public=True, note="a tiny untied model; head_dim defaults to hidden_size / num_heads"),
    Case("qwen3_untied", "count_parameters", lambda g: _cfg(QWEN3_0_6B, tie_embeddings=False),
         note="the same model untied: the head counts once more"),
    Case("qwen3_untied_share", "embedding_share", lambda g: _cfg(QWEN3_0_6B, tie_embeddings=False),
         note="share of embedding + head when untied"),
    Case("llama_3_2_1b", "count_parameters", lambda g: Call((dict(LLAMA_3_2_1B),)),
         note="Llama-3.2-1B: tied, GQA 32/8, no q/k norms"),
    Case("llama_3_2_1b_share", "embedding_share", lambda g: Call((dict(LLAMA_3_2_1B),)),
         note="a fifth of Llama-3.2-1B is its table"),
    Case("qwen2_5_0_5b_bias", "count_parameters", lambda g: Call((dict(QWEN2_5_0_5B),)),
         note="Qwen2.5-0.5B: q, k, v biases; 14 query heads, 2 key/value heads"),
    Case("mha_untied", "count_parameters", lambda g: Call((dict(MHA_UNTIED),)),
         note="a Llama-2-7B-like model: full multi-head attention, untied"),
    Case("head_dim_default", "count_parameters",
         lambda g: _cfg(MHA_UNTIED, num_heads=16, num_kv_heads=4, num_layers=2),
         note="no head_dim: hidden_size / num_heads"),
    Case("head_dim_none", "count_parameters",
         lambda g: _cfg(TINY, head_dim=None, num_heads=4, num_kv_heads=2),
         note="head_dim given as None: the default too"),
    Case("qk_norm_false_explicit", "count_parameters",
         lambda g: _cfg(QWEN3_0_6B, qk_norm=False), note="qk_norm = False given explicitly"),
    Case("attention_bias_false_explicit", "count_parameters",
         lambda g: _cfg(QWEN2_5_0_5B, attention_bias=False),
         note="attention_bias = False given explicitly: no biases (the key's presence means nothing)"),
    Case("absurd_model", "count_parameters", lambda g: Call((dict(ABSURD),)),
         note="over 2**53 parameters: exact only with integers"),
    Case("absurd_share", "embedding_share", lambda g: Call((dict(ABSURD),)),
         note="share of an absurd model"),
]
