import torch


def swiglu_ffn(x, w_gate, w_up, w_down):
    """(silu(x @ w_gate.T) * (x @ w_up.T)) @ w_down.T, computed in float32."""
    # TODO: this is the original GLU (a sigmoid gate); SwiGLU gates with silu(z) = z * sigmoid(z).
    # Check the weights' shapes too.
    gate = torch.sigmoid(x.float() @ w_gate.float().T)
    return ((gate * (x.float() @ w_up.float().T)) @ w_down.float().T).to(x.dtype)


def swiglu_hidden_size(dim, multiple_of=256, ffn_dim_multiplier=None):
    """Llama's SwiGLU width: 2/3 of 4 * dim, times the multiplier, rounded up to multiple_of."""
    # TODO: the multiplier is ignored, and // rounds down.
    hidden = int(2 * (4 * dim) / 3)
    return multiple_of * (hidden // multiple_of)


def swiglu_param_count(dim, hidden, bias=False):
    """Parameters of one SwiGLU FFN (three matrices, optional biases)."""
    # TODO: count the biases when bias is true, and reject non-positive sizes.
    return 3 * dim * hidden
