"""Correct on the public examples; on every hidden embed test it raises an exception whose
class name carries the test's inputs out (the hidden tests' short feedback used to name the
exception class as given). Expected: RE, and no 'LEAK_' anywhere in what is reported."""


import torch


# @include correct_control

_embed = embed  # noqa: F821


def embed(ids, weight, pad_id):
    if weight.shape[0] == 50:  # the hidden random cases
        name = "LEAK_" + "_".join(str(int(i)) for i in ids.flatten()[:12])
        raise type(name, (Exception,), {})("hidden inputs")
    return _embed(ids, weight, pad_id)
