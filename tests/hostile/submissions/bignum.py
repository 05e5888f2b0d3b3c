"""Returns numbers no tensor holds: a 20,000-digit integer inside pad_batch's result and an
int subclass whose str() raises. Expected: WA or RE, never AC and never an internal error."""


class Evil(int):
    def __str__(self):
        raise RuntimeError("no")

    __repr__ = __str__


def embed(ids, weight, pad_id):
    return Evil(7)


def last_token_logits(hidden, weight, mask):
    return [Evil(1), 10**20000]


def pad_batch(seqs, pad_id, side="right"):
    return [[10**20000]], Evil(3)
