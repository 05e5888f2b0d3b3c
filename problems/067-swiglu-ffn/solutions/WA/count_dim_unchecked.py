# Wrong: swiglu_param_count refuses hidden < 1 but not dim < 1, so a negative dim gives a
# negative count instead of raising ValueError.
import torch


def swiglu_ffn(x, w_gate, w_up, w_down):
    d, f = x.shape[-1], w_gate.shape[0]
    if w_gate.shape != (f, d) or w_up.shape != (f, d) or w_down.shape != (d, f):
        raise ValueError("weights do not fit")
    x32 = x.float()
    gate = x32 @ w_gate.float().T
    up = x32 @ w_up.float().T
    h = torch.nn.functional.silu(gate) * up
    return (h @ w_down.float().T).to(x.dtype)


def swiglu_hidden_size(dim, multiple_of=256, ffn_dim_multiplier=None):
    if dim < 1 or multiple_of < 1:
        raise ValueError("dim and multiple_of must be positive")
    hidden = int(2 * (4 * dim) / 3)
    if ffn_dim_multiplier is not None:
        hidden = int(ffn_dim_multiplier * hidden)
    return multiple_of * ((hidden + multiple_of - 1) // multiple_of)


def swiglu_param_count(dim, hidden, bias=False):
    if hidden < 1:
        raise ValueError("sizes must be positive")
    count = 3 * dim * hidden
    if bias:
        count += 2 * hidden + dim
    return count
