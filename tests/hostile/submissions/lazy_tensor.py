"""Returns a tensor subclass that claims to equal anything and holds zeros. Expected: WA."""
import torch


class Lazy(torch.Tensor):
    def __eq__(self, other):
        return torch.ones(self.shape, dtype=torch.bool)

    def allclose(self, *a, **k):
        return True

    def __repr__(self):
        return "tensor(<exactly what you expected>)"

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in (torch.allclose, torch.equal):
            return True
        return super().__torch_function__(func, types, args, kwargs or {})


def _lazy(shape, dtype):
    return torch.zeros(shape, dtype=dtype).as_subclass(Lazy)


def embed(ids, weight, pad_id):
    return _lazy(ids.shape + (weight.shape[1],), weight.dtype)


def last_token_logits(hidden, weight, mask):
    return _lazy((hidden.shape[0], weight.shape[0]), hidden.dtype)


def pad_batch(seqs, pad_id, side="right"):
    t = max((len(s) for s in seqs), default=0)
    return _lazy((len(seqs), t), torch.int64), _lazy((len(seqs), t), torch.bool)
