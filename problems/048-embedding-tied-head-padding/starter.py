import torch


def embed(ids: torch.Tensor, weight: torch.Tensor, pad_id: int) -> torch.Tensor:
    """Rows of weight for each id; zeros where ids == pad_id; IndexError for bad ids."""
    # TODO: padding positions must give zero vectors, and bad ids must raise IndexError.
    return weight[ids]


def last_token_logits(hidden: torch.Tensor, weight: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """[B, V] logits of each row's last real token (mask is True at real tokens)."""
    # TODO: this computes logits for every position and then keeps the last column,
    # which is only right for rows without right padding.
    logits = hidden @ weight.T  # [B, T, V]
    return logits[:, -1, :]


def pad_batch(seqs: list[list[int]], pad_id: int, side: str = "right") -> tuple[torch.Tensor, torch.Tensor]:
    """(ids, mask) of shape [B, T_max], padded on `side`."""
    t_max = max((len(s) for s in seqs), default=0)
    ids = torch.full((len(seqs), t_max), pad_id, dtype=torch.int64)
    mask = torch.zeros((len(seqs), t_max), dtype=torch.bool)
    for row, seq in enumerate(seqs):
        # TODO: honour `side` (and reject anything but "right" and "left").
        ids[row, : len(seq)] = torch.tensor(seq, dtype=torch.int64)
        mask[row, : len(seq)] = True
    return ids, mask
