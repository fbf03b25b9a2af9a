"""Batches and the learning-rate schedule as toytrans's trainer makes them (src/train.c):
the same grouping and padding, so PyTorch trains on the batches toytrans would."""
import math

import torch

from .modelfile import BOS, EOS, PAD


def make_batches(src_ids, tgt_ids, batch, max_len):
    """toytrans's grouping: pairs longer than max_len (with </s>) left out, the rest
    sorted by (target length, source length, corpus order) and cut into batches of
    `batch` pairs (lists of pair indices)."""
    keep = [i for i in range(len(src_ids))
            if 0 < len(src_ids[i]) and len(src_ids[i]) + 1 <= max_len
            and len(tgt_ids[i]) + 1 <= max_len]
    keep.sort(key=lambda i: (len(tgt_ids[i]), len(src_ids[i]), i))
    return [keep[k:k + batch] for k in range(0, len(keep), batch)]


def batch_tensors(pairs, src_ids, tgt_ids):
    """Padded, batch_first tensors of one batch: source + </s>, decoder input <s> + target,
    expected output target + </s>; pad id 0; masks True at padding -> (src, tgt_in,
    tgt_out, src_pad, tgt_pad, target tokens)."""
    S = max(len(src_ids[i]) for i in pairs) + 1
    T = max(len(tgt_ids[i]) for i in pairs) + 1
    src = torch.full((len(pairs), S), PAD, dtype=torch.long)
    tin = torch.full((len(pairs), T), PAD, dtype=torch.long)
    tout = torch.full((len(pairs), T), PAD, dtype=torch.long)
    for r, i in enumerate(pairs):
        s, t = src_ids[i], tgt_ids[i]
        src[r, :len(s) + 1] = torch.tensor(s + [EOS])
        tin[r, :len(t) + 1] = torch.tensor([BOS] + t)
        tout[r, :len(t) + 1] = torch.tensor(t + [EOS])
    return src, tin, tout, src == PAD, tin == PAD, int((tout != PAD).sum())


def lr_factor(step, total, warmup):
    """schedule() in src/train.c as a multiple of the peak rate, step from 1: linear
    warm-up over `warmup` steps, then a cosine down to a tenth at the last step."""
    if warmup > 0 and step <= warmup:
        return step / warmup
    span = total - warmup if total > warmup else 1
    progress = min((step - warmup) / span, 1.0)
    return 0.1 + 0.9 * 0.5 * (1.0 + math.cos(math.pi * progress))
