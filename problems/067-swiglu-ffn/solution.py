"""Reference solution of problem 67: the kernels package's SwiGLU and the Llama sizing rule."""

from kernels.mlp import swiglu_ffn, swiglu_hidden_size, swiglu_param_count

__all__ = ["swiglu_ffn", "swiglu_hidden_size", "swiglu_param_count"]
